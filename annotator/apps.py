from django.apps import AppConfig


class AnnotatorConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "annotator"
    verbose_name = "Annotation"

    def ready(self) -> None:
        from annotator import signals  # noqa: F401  (connects the Celery signal handlers)
