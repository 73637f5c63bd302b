"""The profile page: create a token (key shown once), list, revoke; only one's own."""

from __future__ import annotations

import re

import pytest

from annotator.accounts.services.tokens import create_token, digest_of
from annotator.models import ApiToken

pytestmark = pytest.mark.django_db


def test_profile_creates_lists_and_revokes(client, lead):
    client.force_login(lead)
    page = client.get("/")
    assert b'href="/accounts/profile/"' in page.content  # linked from the header

    response = client.post("/accounts/profile/", {"name": "laptop"})
    assert response.status_code == 200
    key = re.search(r'id="new-token" class="token-key">([^<]+)<', response.content.decode())[1]
    token = ApiToken.objects.get(user=lead)
    assert token.digest == digest_of(key) and token.name == "laptop"

    again = client.get("/accounts/profile/").content.decode()
    assert "laptop" in again and key not in again  # listed, never shown twice

    response = client.post(f"/accounts/profile/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    assert not ApiToken.objects.exists()


def test_cannot_revoke_someone_elses_token(client, lead, annotator):
    theirs, _ = create_token(user=annotator)
    client.force_login(lead)
    client.post(f"/accounts/profile/tokens/{theirs.pk}/revoke/")
    assert ApiToken.objects.filter(pk=theirs.pk).exists()


def test_too_long_name_is_refused_and_nothing_created(client, lead):
    client.force_login(lead)
    response = client.post("/accounts/profile/", {"name": "x" * 101})
    assert response.status_code == 400
    assert not ApiToken.objects.exists()


def test_profile_needs_login(client):
    assert client.get("/accounts/profile/").status_code == 302
