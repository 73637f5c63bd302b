"""The gridalign Django project. Importing it loads the Celery app so tasks register."""

from gridalign.celery import app as celery_app

__all__ = ["celery_app"]
