"""The Celery application. Settings come from Django's (prefix CELERY_)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")

app = Celery("gridalign")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
