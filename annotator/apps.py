from django.apps import AppConfig


class AnnotatorConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "annotator"
    verbose_name = "Annotation"

    def ready(self) -> None:
        from annotator import signals  # noqa: F401  (connects the Celery signal handlers)
        from annotator.accounts import password_changes
        from annotator.corpora import jobs as corpora_jobs
        from annotator.documents import jobs as documents_jobs
        from annotator.jobs import selftest
        from annotator.reports import jobs as reports_jobs
        from annotator.seeding import jobs as seeding_jobs

        # Each feature that runs jobs registers its kinds (annotator.jobs.registry).
        for feature in (selftest, seeding_jobs, corpora_jobs, reports_jobs, documents_jobs):
            feature.register_job_kinds()
        password_changes.connect()  # a new password revokes the account's API tokens
