"""The fault tests use the app's fixtures (users, a project, fast password hashing)."""

from tests.app.conftest import (  # noqa: F401 - fixtures, found by pytest by name
    PASSWORD,
    annotator,
    client_for,
    fast_password_hashing,
    lead,
    make_user,
    outsider,
    pair,
    project,
)
