"""The Celery application. Settings come from Django's (prefix CELERY_)."""

import os

from celery import Celery

from alignment_core.aligner.kernel_choice import use_plain_kernels
from gridalign.env import env_bool

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")

# the edge decides: GRIDALIGN_ALIGNER_PLAIN=1 runs the aligner's kernels as plain Python (checks)
use_plain_kernels(env_bool("GRIDALIGN_ALIGNER_PLAIN", False))

app = Celery("gridalign")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
