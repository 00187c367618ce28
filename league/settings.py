"""Parlour's one settings module. Every knob is an environment variable; see .env.example."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

from league.env import ConfigError, database_from_url, env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("PARLOUR_VAR_DIR", str(BASE_DIR / "var")))  # SQLite file, broker spool, dev secret

DEBUG = env_bool("DEBUG", False)


def _secret_key() -> str:
    key = env_str("SECRET_KEY")
    if key:
        return key
    if "pytest" in sys.modules:
        return "tests-only-not-a-secret"  # a test run needs no secret, and must not need one to start
    if not DEBUG:
        raise ConfigError("SECRET_KEY must be set when DEBUG is off")
    # Development only: a random key kept in var/ so sessions survive a restart.
    path = VAR_DIR / "dev-secret-key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "league",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "league.urls"
WSGI_APPLICATION = "league.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "league.context.games",
            ],
        },
    },
]

_database_url = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'parlour.sqlite3'}")
DATABASES = {"default": database_from_url(_database_url)}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # The web server and the worker write at once: wait for the lock instead of failing, take it up front.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file (not memory) so that a real Celery worker process in the tests sees the same test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-parlour.sqlite3")}
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env_int("CONN_MAX_AGE", 60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "league.staticfinders.GameViewerFinder",  # each game's replay renderer: games/<id>/viewer.js
]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Uploads: the limits of a bot archive (issue 2: 1 MB compressed, 10 MB unpacked).
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "league.api.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "league.api.errors.exception_handler",
}

# ----- Celery ------------------------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
BROKER_DIR = VAR_DIR / "broker"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)}
else:
    # The embedded default: a broker that needs no server (kombu's filesystem transport).
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 1800)
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 60
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# ----- The league --------------------------------------------------------------------------------------------
# How often the ladder scheduler runs, and how many ladder matches it keeps queued per game.
LADDER_INTERVAL_SECONDS = env_int("LADDER_INTERVAL_SECONDS", 10)
LADDER_QUEUE_DEPTH = env_int("LADDER_QUEUE_DEPTH", 2)
LADDER_ENABLED = env_bool("LADDER_ENABLED", True)
# The sandbox backend for bots: "bwrap" (real isolation) or "none" (local development only, and only with
# ALLOW_UNSANDBOXED_BOTS=true: workers refuse it otherwise).
BOT_SANDBOX = env_str("BOT_SANDBOX", "bwrap")
if BOT_SANDBOX not in {"bwrap", "none"}:
    raise ConfigError(f"BOT_SANDBOX must be bwrap or none, not {BOT_SANDBOX!r}")
ALLOW_UNSANDBOXED_BOTS = env_bool("ALLOW_UNSANDBOXED_BOTS", False)
# A match claimed longer ago than this is considered abandoned by a dead worker and re-queued.
MATCH_STALE_SECONDS = env_int("MATCH_STALE_SECONDS", CELERY_TASK_TIME_LIMIT + 60)
MATCH_MAX_ATTEMPTS = env_int("MATCH_MAX_ATTEMPTS", 3)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
