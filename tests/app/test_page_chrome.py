"""Pages a lead meets when something goes wrong or needs care (issue 31, defect 10): 403, 404
and 500 pages with navigation, a favicon, the self-test kept for staff, removing a member
asks first, and an error message that looks like one."""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.test import RequestFactory
from django.views.defaults import server_error

from annotator.models import Membership


def test_404_and_403_pages_keep_the_site_navigation(client, annotator, project):
    client.force_login(annotator)
    missing = client.get("/projects/999999/")
    assert missing.status_code == 404
    assert b'class="site-header"' in missing.content and b'href="/"' in missing.content
    forbidden = client.get(f"/projects/{project.pk}/members/")
    assert forbidden.status_code == 403
    page = forbidden.content.decode()
    assert "Only the project&#x27;s leads may open this page." in page
    assert 'class="site-header"' in page and "Your projects" in page


def test_the_500_page_needs_no_database_and_offers_a_way_back():
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert b"Your saved work is safe" in response.content and b'href="/"' in response.content


def test_every_page_names_a_favicon_that_exists(client, lead):
    client.force_login(lead)
    assert b'rel="icon" href="/static/gridalign/favicon.svg"' in client.get("/").content
    assert finders.find("gridalign/favicon.svg")


def test_the_self_test_is_offered_to_staff_not_to_leads(client, lead, make_user, project):
    client.force_login(lead)
    assert b"self-test" not in client.get(f"/projects/{project.pk}/").content.lower()
    staff = make_user("site_admin", is_staff=True)
    client.force_login(staff)
    assert b"self-test" in client.get(f"/projects/{project.pk}/").content.lower()


def test_removing_a_member_asks_and_refusals_look_like_errors(client, lead, annotator, project):
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/members/").content.decode()
    assert 'data-confirm="Remove annotator_user from Test project?' in page
    response = client.post(
        f"/projects/{project.pk}/members/", {"action": "remove", "user": lead.pk}, follow=True
    )
    assert 'class="message message--error"' in response.content.decode()
    assert "at least one lead" in response.content.decode()
    assert Membership.objects.filter(project=project, user=lead).exists()
