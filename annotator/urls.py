from django.contrib.auth import views as auth_views
from django.urls import path

from annotator.accounts.views import profile
from annotator.accounts.views.forgotten import ForgottenPasswordView
from annotator.common import converters  # noqa: F401  (registers <id:...>)
from annotator.common import views as health
from annotator.corpora import export_page
from annotator.corpora import views as corpora
from annotator.discussions import views as discussions
from annotator.documents import views as documents
from annotator.gold import views as adjudication
from annotator.grid import views as annotate
from annotator.jobs import views as jobs
from annotator.projects.views import lead, pages, pairs, setup
from annotator.reports.views import dashboard
from annotator.seeding import views as seeding

urlpatterns = [
    path("", pages.home, name="home"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            template_name="annotator/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/profile/", profile.profile, name="profile"),
    # Django's own password views (templates in annotator/templates/registration/).
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("accounts/password/reset/", ForgottenPasswordView.as_view(), name="password_reset"),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path(
        "accounts/profile/tokens/<id:token_id>/revoke/",
        profile.revoke,
        name="profile-token-revoke",
    ),
    path("projects/new/", setup.new_project, name="project-new"),
    path("projects/<id:project_id>/", pages.project_detail, name="project-detail"),
    path("projects/<id:project_id>/settings/", setup.project_settings, name="project-settings"),
    path("projects/<id:project_id>/pairs/", pairs.pairs_page, name="project-pairs"),
    path("projects/<id:project_id>/pairs/<id:pair_id>/", pairs.pair_view, name="project-pair"),
    path(
        "projects/<id:project_id>/pairs/<id:pair_id>/gold/restore/",
        adjudication.restore_gold_version,
        name="project-pair-gold-restore",
    ),
    path("projects/<id:project_id>/archive/", setup.project_archive, name="project-archive"),
    path(
        "projects/<id:project_id>/jobs/selftest/",
        jobs.start_selftest,
        name="project-start-selftest",
    ),
    path(
        "projects/<id:project_id>/jobs/seed/", seeding.start_seeding, name="project-start-seeding"
    ),
    path("jobs/<id:job_id>/", jobs.job_detail, name="job-detail"),
    # the lead's pages (members, assignment, progress, adjudication)
    path("projects/<id:project_id>/members/", lead.members_page, name="project-members"),
    path("projects/<id:project_id>/assign/", lead.assign_page, name="project-assign"),
    path("projects/<id:project_id>/progress/", lead.progress_page, name="project-progress"),
    path(
        "projects/<id:project_id>/assignments/<id:assignment_id>/<str:action>/",
        lead.assignment_action,
        name="project-assignment-action",
    ),
    path(
        "projects/<id:project_id>/adjudicate/",
        adjudication.adjudication_list,
        name="project-adjudication-list",
    ),
    path(
        "projects/<id:project_id>/adjudicate/<id:pair_id>/",
        adjudication.adjudicate_page,
        name="project-adjudicate",
    ),
    path(
        "projects/<id:project_id>/review/",
        adjudication.review_queue_page,
        name="project-review-queue",
    ),
    path(
        "projects/<id:project_id>/review/<id:review_id>/",
        adjudication.review_decide,
        name="project-review-decide",
    ),
    path(
        "projects/<id:project_id>/discussions/",
        discussions.project_discussions,
        name="project-discussions",
    ),
    path(
        "projects/<id:project_id>/pairs/<id:pair_id>/discussion/<id:annotator_id>/",
        discussions.thread_page,
        name="pair-discussion",
    ),
    # grid-backend: the annotator's queue, the grid page and the guidelines
    path("projects/<id:project_id>/queue/", annotate.queue, name="project-queue"),
    path("projects/<id:project_id>/guidelines/", annotate.guidelines, name="project-guidelines"),
    path("annotate/<id:assignment_id>/", annotate.annotate, name="annotate"),
    # the agreement dashboard and the disagreement browser (leads)
    path(
        "projects/<id:project_id>/agreement/",
        dashboard.agreement_dashboard,
        name="project-agreement",
    ),
    path(
        "projects/<id:project_id>/agreement/compute/",
        dashboard.start_report,
        name="project-start-report",
    ),
    path(
        "projects/<id:project_id>/disagreements/",
        dashboard.disagreement_browser,
        name="project-disagreements",
    ),
    path("projects/<id:project_id>/documents/", documents.documents_page, name="project-documents"),
    path("projects/<id:project_id>/import/", corpora.import_page, name="project-import"),
    path("projects/<id:project_id>/export/", export_page.export_page, name="project-export"),
    path(
        "documents/<id:document_pair_id>/review/",
        documents.document_review,
        name="document-review",
    ),
    path("healthz", health.healthz, name="healthz"),
]
