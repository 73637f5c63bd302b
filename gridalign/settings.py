"""Settings, read from the environment (see README "Configuration").

Embedded defaults need no server: an SQLite file and a filesystem Celery broker under ``var/``.
Set DATABASE_URL and CELERY_BROKER_URL (or REDIS_URL) for PostgreSQL and Redis.
"""

from __future__ import annotations

import copy
import os
import secrets
from datetime import timedelta
from pathlib import Path

from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from gridalign.env import (
    SQLITE_OPTIONS,
    env_bool,
    env_int,
    env_list,
    env_str,
    parse_database_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("GRIDALIGN_VAR_DIR") or BASE_DIR / "var")
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)


def _secret_key() -> str:
    key = env_str("SECRET_KEY")
    if key:
        if len(key) < 32:
            raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters long")
        return key
    path = VAR_DIR / "secret_key"
    # A key that `make run` (DEBUG on) generated is reused with DEBUG off too, so the
    # management commands work in a fresh shell on the same checkout. No file, no key: refuse.
    if not DEBUG and not path.exists():
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off (set DEBUG=true for local use, "
            "which generates one into var/secret_key)"
        )
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    key = path.read_text().strip()
    if len(key) < 32:
        raise ImproperlyConfigured(f"{path} holds a key shorter than 32 characters")
    return key


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # first: its templates (the password pages in registration/) win over the admin's, which
    # would show "Django administration" and lead to the admin's login
    "annotator",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
]

MIDDLEWARE = [
    # first: a database that is away (restart, failover) answers 503 + Retry-After, not 500
    "annotator.common.middleware.DatabaseUnavailableMiddleware",
    # every failure under /api/ in the API's JSON error format (too-big bodies, no route)
    "annotator.common.api_errors.ApiJsonErrorsMiddleware",
    # a NUL in the path, a query or a form field: a 400 naming it (PostgreSQL cannot store it)
    "annotator.common.input_guard.UnstorableInputMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every response (CONTENT_SECURITY_POLICY below)
    "csp.middleware.CSPMiddleware",
    # Static files from STATIC_ROOT (collectstatic), straight after the HTTPS redirect: no
    # session or database work for them. With DEBUG on, runserver serves the sources.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # SQLite: a request waits at most SQLITE_REQUEST_WAIT_SECONDS for the write lock
    "annotator.common.sqlite_wait.SqliteRequestWaitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: turns a locked-out login (form, admin or API token) into 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "gridalign.urls"
WSGI_APPLICATION = "gridalign.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

_DATABASE_URL = env_str("DATABASE_URL")
DATABASES = {
    "default": parse_database_url(_DATABASE_URL, base_dir=str(BASE_DIR))
    if _DATABASE_URL
    else {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": VAR_DIR / "gridalign.sqlite3",
        "OPTIONS": dict(SQLITE_OPTIONS),  # WAL, busy timeout, IMMEDIATE (gridalign/env.py)
    }
}
# PostgreSQL's JIT compiles a statement whose estimated cost passes jit_above_cost: against a
# million-pair project the planner's estimates for a page's few-row queries (a correlated
# subquery over the pairs, a join through them) pass it, and compiling took 1.4 s of a 1.5 s
# queue query that runs in 10 ms (EXPLAIN ANALYZE; benchmarks/scale_pages.py). Off for every
# connection of the app unless POSTGRES_JIT=true.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and not env_bool(
    "POSTGRES_JIT", False
):
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    _options["options"] = f"{_options.get('options', '')} -c jit=off".strip()
# The grid's reads and writes on every opening and save as server-side prepared statements on
# PostgreSQL (annotator/common/compiled.py); off behind a pooler in transaction mode.
GRIDALIGN_PREPARED_STATEMENTS = env_bool("GRIDALIGN_PREPARED_STATEMENTS", True)
# Job bookkeeping (progress, heartbeat) on PostgreSQL goes through a connection of its own, in
# autocommit, so that a job's live state is seen (and its row not left locked) while its work
# runs inside one long transaction on "default" (an import, a seeding). Same database; in tests
# a mirror of "default". SQLite allows one writer at a time, so there it stays on "default".
JOBS_DB_ALIAS = "jobs"
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES[JOBS_DB_ALIAS] = copy.deepcopy(DATABASES["default"])
    DATABASES[JOBS_DB_ALIAS]["TEST"] = {"MIRROR": "default"}
    # Should a work's transaction ever lock its own Job row, a progress write would wait for a
    # lock held by its own process for good: fail it after 10 s instead.
    _jobs_options = DATABASES[JOBS_DB_ALIAS].setdefault("OPTIONS", {})
    _jobs_options["options"] = f"{_jobs_options.get('options', '')} -c lock_timeout=10s".strip()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: it refuses a locked-out login before any password is checked. It needs the
# request, so every login path (form, admin, POST /api/auth/token/) passes it to authenticate().
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Django's validators, judging every password a person chooses (change, reset link): not like
# the username, at least 8 characters, not in the list of 20,000 common passwords, not all
# digits. Passwords the site makes (one-time passwords, setup_demo's) are set directly.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "frontend" / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns at every start-up about a missing one
# WhiteNoise serves STATIC_ROOT. With DEBUG off the files carry a content hash in their names
# (cached for a year by browsers) and are precompressed; `collectstatic` makes them (the
# Dockerfile runs it at build time). With DEBUG on, plain names, no collectstatic needed.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- Login throttling (django-axes) --------------------------------------------------------
# LOGIN_FAILURE_LIMIT wrong passwords for one username from one address lock that pair out for
# LOGIN_COOLOFF_MINUTES (the right password is refused too, with 429 and a message saying how
# long); a successful login resets the count. Per username *and* address, so nobody can lock a
# colleague out from elsewhere.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no start-up banner on every command (lockouts are still logged)
AXES_LOCKOUT_CALLABLE = "annotator.accounts.views.lockout.locked_out"
# The client's address: REMOTE_ADDR, unless NUM_PROXIES trusted proxies in front append to
# X-Forwarded-For (then the address the outermost of them saw), as DRF's throttles read it.
# Never a header the client alone controls, or one forged X-Forwarded-For per attempt would
# escape the lockout; and behind a proxy not REMOTE_ADDR, or every client would share one.
NUM_PROXIES = env_int("NUM_PROXIES", 0, minimum=0)
AXES_CLIENT_IP_CALLABLE = "annotator.accounts.views.lockout.client_address"

REST_FRAMEWORK = {
    "NUM_PROXIES": NUM_PROXIES,
    # Token first: an anonymous request gets 401 with "WWW-Authenticate: Token" (scripts), the
    # browser's session (with CSRF) second. No Basic auth: a password on every request would
    # bypass the token endpoint's throttle.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "annotator.accounts.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON bodies too deep or holding lone surrogates are a 400 before any view runs, and no
    # response fails to encode (annotator/api/json_input.py).
    "DEFAULT_PARSER_CLASSES": [
        "annotator.common.json_input.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": [
        "annotator.common.json_input.SafeJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "annotator.common.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "annotator.common.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.AnonRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON") or "120/min",
        "token": env_str("API_THROTTLE_TOKEN") or "10/min",  # POST /api/auth/token/ per IP
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "gridalign API",
    "DESCRIPTION": "Word-alignment annotation: projects, pairs, annotations, gold, jobs.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the pinned drf-spectacular-sidecar package: no CDN, no network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,  # upload endpoints: multipart request bodies, JSON answers
    "SCHEMA_PATH_PREFIX": "/api/",
    "ENUM_NAME_OVERRIDES": {
        "FileFormatEnum": "annotator.common.schema.FILE_FORMAT_CHOICES",
        "JobStatusEnum": "annotator.models.Job.Status",
        "AssignmentStatusEnum": "annotator.models.Assignment.Status",
    },
}
# Uploads for imports and evaluation (API): largest file accepted, in megabytes.
API_UPLOAD_MAX_MB = env_int("API_UPLOAD_MAX_MB", 200, minimum=1)
# Evaluate: an upload larger than this (bytes, all its files) is stored and scored by an
# "evaluate" job (202); smaller ones are scored in the request (200).
EVALUATE_INLINE_MAX_BYTES = env_int("EVALUATE_INLINE_MAX_BYTES", 2 * 1024 * 1024, minimum=0)
# An import job reads jsonl and tsv files this many pairs at a time, writing each chunk before
# reading the next (all in one transaction): the worker's memory holds one chunk.
IMPORT_CHUNK_PAIRS = env_int("IMPORT_CHUNK_PAIRS", 5000, minimum=1)
# SQLite: how long a web request waits for the one write lock (a big import holds it until it
# commits) before its 503 + Retry-After; workers and commands wait the connection's 20 s.
SQLITE_REQUEST_WAIT_SECONDS = env_int("SQLITE_REQUEST_WAIT_SECONDS", 5, minimum=1)

# --- Celery -------------------------------------------------------------------------------
# Default: kombu's filesystem transport under var/ (no server). Redis when a URL is given.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or env_str("REDIS_URL") or "filesystem://"
if not CELERY_BROKER_URL.startswith(("filesystem://", "redis://", "rediss://", "memory://")):
    raise ImproperlyConfigured(
        f"CELERY_BROKER_URL={CELERY_BROKER_URL!r}: use redis://host:port/db or filesystem://"
    )
_BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("queue", "processed", "control"):
        (_BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    # kombu's transport, each message written whole before a worker can take it (gridalign/broker.py)
    CELERY_BROKER_TRANSPORT = "gridalign.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_BROKER_DIR / "queue"),
        "data_folder_out": str(_BROKER_DIR / "queue"),
        "processed_folder": str(_BROKER_DIR / "processed"),
        "control_folder": str(_BROKER_DIR / "control"),
        "store_processed": False,
        # a worker looks for new messages every 0.2 s (kombu's default 1 s made every step of
        # a chunked seeding's chain wait up to a second for its next task)
        "polling_interval": 0.2,
    }
# Jobs report through the Job table, so tasks store no result by default. The result backend
# is for the chunked seeding's chords only (their E-step and align tasks store a small result,
# which is how the chord knows its header is done): Redis's when the broker is Redis (a chord's
# header counted with one INCR each), else Celery's file backend under var/ (``make run``'s
# embedded broker: chords are then joined by Celery's ``chord_unlock`` task, which polls).
CELERY_TASK_IGNORE_RESULT = True
_RESULTS_DIR = VAR_DIR / "celery-results"
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or CELERY_BROKER_URL
else:
    _RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or f"file://{_RESULTS_DIR}"
    # chord_unlock looks again every 0.2 s whether a chord's header is done (default 1 s a try)
    CELERY_RESULT_CHORD_RETRY_INTERVAL = 0.2
CELERY_RESULT_EXPIRES = env_int("CELERY_RESULT_EXPIRES", 24 * 3600, minimum=60)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = False  # a killed task must not loop; its job is failed instead
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Seeding a project of more than SEED_CHUNK_PAIRS pairs spreads its EM over the workers: each
# iteration's E-step runs as one task per chunk of SEED_CHUNK_PAIRS pairs (a Celery chord per
# iteration), and the seeds are aligned and written a chunk per task. Smaller projects seed in
# one task, as before. 0 turns the chunked path off.
SEED_CHUNK_PAIRS = env_int("SEED_CHUNK_PAIRS", 50_000, minimum=0)
# Where a chunked seeding's corpus arrays, per-chunk expected counts and model meet: a folder
# every worker sees at the same path (a shared volume when workers run on several machines).
SEED_WORK_DIR = Path(env_str("SEED_WORK_DIR") or VAR_DIR / "seed-work")
# A project seeded in chunks with enough gold for the supervised link model: its fit (one task)
# reads every gold pair and pairs spread evenly over the project, SEED_SAMPLE_PAIRS in all, to
# train the HMMs with the gold as counts and the second round on its own links (the unsupervised
# HMM and the word counts come from all the pairs). Its memory and time are those of seeding a
# project of this many pairs in one task: on 20,000 synthetic pairs 2.4 GB and 4.5 min on this
# 2-core machine, on 50,000 3.6 GB and 9 min (docs/benchmarks.md).
SEED_SAMPLE_PAIRS = env_int("SEED_SAMPLE_PAIRS", 20_000, minimum=1)
# A chunk task whose worker died this many times (killed, out of memory) fails its job.
SEED_TASK_MAX_ATTEMPTS = env_int("SEED_TASK_MAX_ATTEMPTS", 3, minimum=1)

# A running job whose heartbeat is older than this is declared dead (seconds).
JOB_STALE_AFTER = env_int("JOB_STALE_AFTER", 120, minimum=5)
# A queued job that no worker has started after this long is failed: its message was lost.
JOB_QUEUED_MAX = env_int("JOB_QUEUED_MAX", 6 * 3600, minimum=60)
# Celery beat (exactly one per deployment: `rundev` embeds it, docker-compose has a `beat`
# service) sweeps for such jobs every JOB_SWEEP_EVERY seconds; workers also sweep on start.
JOB_SWEEP_EVERY = env_int("JOB_SWEEP_EVERY", 60, minimum=5)
# A worker imports scikit-learn and reads the seed model's outside resources (WordNet, word
# vectors, thesaurus, tag lexicon: ~280 MB) as it starts, before its pool's processes fork,
# which then share them; off: each process reads them at its first supervised retrain.
SEED_MODEL_PRELOAD = env_bool("SEED_MODEL_PRELOAD", True)
CELERY_BEAT_SCHEDULE = {
    "fail-stale-jobs": {
        "task": "annotator.tasks.fail_stale_jobs",
        "schedule": float(JOB_SWEEP_EVERY),
        "options": {"expires": float(JOB_SWEEP_EVERY)},  # a backlog of sweeps is pointless
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# E-mail (password reset links): the console by default, so a local run prints the link;
# production sets EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and EMAIL_HOST etc.
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "") or ""
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "") or ""
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "gridalign@localhost")
# Whether the site really sends mail: with the console backend (the default) nothing leaves the
# machine, so "Forgotten your password?" says to ask a lead for a reset link instead of
# promising an e-mail (docs/operations.md, "Mail").
MAIL_SENDS = env_bool(
    "MAIL_SENDS",
    EMAIL_BACKEND not in ("django.core.mail.backends.console.EmailBackend",
                          "django.core.mail.backends.dummy.EmailBackend"),
)  # fmt: skip

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# --- HTTPS, HSTS and cookies --------------------------------------------------------------
# Safe by default with DEBUG off: everything over HTTPS, cookies never sent in clear. A site
# served over plain HTTP (docker-compose on localhost) turns them off explicitly; one behind a
# TLS-terminating proxy sets SECURE_PROXY_SSL_HEADER. README "Operations" lists what each does.
_PRODUCTION = not DEBUG
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", _PRODUCTION)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # probes from inside the container speak plain HTTP
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if _PRODUCTION else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", _PRODUCTION)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", _PRODUCTION)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", _PRODUCTION)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", _PRODUCTION)


def _proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto: trust that header's ``https`` as "this
    request came over HTTPS". Only behind a proxy that sets (and strips) it: otherwise any
    client could claim HTTPS. Empty (the default): not trusted."""
    header = (env_str(name) or "").strip()
    if not header:
        return None
    if not all(c.isalnum() or c == "-" for c in header):
        raise ImproperlyConfigured(
            f"{name}={header!r} is not an HTTP header name (e.g. X-Forwarded-Proto)"
        )
    return ("HTTP_" + header.upper().replace("-", "_"), "https")


SECURE_PROXY_SSL_HEADER = _proxy_ssl_header("SECURE_PROXY_SSL_HEADER")
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the grid's JavaScript reads the CSRF token from the cookie
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# --- Content-Security-Policy (django-csp) --------------------------------------------------
# Scripts only from this site's own files: no inline script, no event-handler attributes, no
# eval, nothing from another origin (pages hand data to their scripts with json_script). Style
# sheets from this site only; style *attributes* stay allowed (progress bars set a width), not
# <style> elements. Images also as data: URLs (the API docs' icons). Nobody may frame a page.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# --- Annotation (grid-backend) -------------------------------------------------------------
# Time spent on a pair is the gap between an annotator's saves (or opening it), capped at this
# many seconds so an idle tab left open over lunch does not count as work.
ANNOTATION_IDLE_CAP = env_int("ANNOTATION_IDLE_CAP", 120, minimum=1)
