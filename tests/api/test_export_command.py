"""``manage.py export_gold`` writes the same bytes as the API's export."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from tests.api.helpers import body

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("fmt", ["jsonl", "giza-a3"])
def test_command_writes_what_the_api_sends(tmp_path, api, project, lead, corpus, fmt):
    call_command("export_gold", project=project.name, fmt=fmt, output_dir=str(tmp_path))
    [written] = list(tmp_path.iterdir())
    response = api(lead).get(f"/api/projects/{project.pk}/export/", {"format": fmt})
    assert written.name == response["Content-Disposition"].split('"')[1]
    assert written.read_bytes() == body(response)


def test_unknown_project_and_subcorpus_are_refused(tmp_path, project, corpus):
    with pytest.raises(CommandError, match="no project named"):
        call_command("export_gold", project="nope", output=str(tmp_path / "x"))
    with pytest.raises(CommandError, match="subcorpus"):
        call_command("export_gold", project=project.name, subcorpus="x", output=str(tmp_path / "x"))
    assert not list(tmp_path.iterdir())
