"""Parlour's one settings module. Every knob is an environment variable; see .env.example."""

from __future__ import annotations

import copy
import json
import secrets
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from kombu import Queue

from bots.packaging import MAX_UPLOAD_BYTES
from games.registry import GAMES, VIEWER_DIR, ladder_defaults
from parlour.broker import filesystem_options
from parlour.env import (
    ConfigError,
    database_from_url,
    env_bool,
    env_int,
    env_list,
    env_proxy_ssl_header,
    env_str,
)

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
        raise ConfigError(
            "SECRET_KEY must be set when DEBUG is off (on your own machine, DEBUG=1 uses a development key kept in "
            "var/, as `make run` does)"
        )
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
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "league",
]

MIDDLEWARE = [
    "league.api.request_bodies.RequestBodyLimitMiddleware",  # first: nothing may read a body it refuses
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as axes asks: it turns a lock-out into its page
]

ROOT_URLCONF = "parlour.urls"
WSGI_APPLICATION = "parlour.wsgi.application"

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
                "league.site.context.games",
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
    "league.site.staticfinders.GameViewerFinder",  # each game's replay renderer: games/<id>/viewer.js
]
# The replay viewer's shell (viewer.js and its modules, kit.js, generic.js, viewer.css) is the games package's; the
# site serves it at static/league/viewer/, the URL its pages have always used. The local viewer
# (bots/authoring/viewer.py) serves the same files.
STATICFILES_DIRS = [("league/viewer", str(VIEWER_DIR))]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))  # where collectstatic writes
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Request bodies (league/api/request_bodies.py): over these a request is refused with 413 from its Content-Length,
# before a byte of it is read. Signed-in users and API tokens may send a bot upload (bots/packaging.py has the
# archive's own limits) and its form; anyone else a login form's worth. Uploaded files stay in memory, never in the
# temp folder.
REQUEST_BODY_MAX_BYTES = MAX_UPLOAD_BYTES + 64 * 1024
ANONYMOUS_BODY_MAX_BYTES = 64 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
FILE_UPLOAD_HANDLERS = ["league.api.request_bodies.MemoryOnlyUploadHandler"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "league.api.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "league.api.pagination.Pagination",
    # JSON only, whatever the Accept header (no browsable API: docs/api.md, "Errors"); JSON bodies are parsed with a
    # bound on their nesting, checked while reading (league.api.parsers).
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "league.api.negotiation.JsonWhateverTheAccept",
    "DEFAULT_PARSER_CLASSES": [
        "league.api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "league.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "league.api.schema.ExampleSchema",  # drf-spectacular's, with examples
    # Throttling (docs/api.md): per anonymous address, per signed-in user and per API token; over a rate the answer is
    # 429 with Retry-After. The rates are read at each request, so the environment (and tests) can change them.
    "DEFAULT_THROTTLE_CLASSES": [
        "league.api.throttling.AnonThrottle",
        "league.api.throttling.UserThrottle",
        "league.api.throttling.TokenThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "300/min"),
        "user": env_str("API_THROTTLE_USER", "1200/min"),
        "token": env_str("API_THROTTLE_TOKEN", "600/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Parlour API",
    "DESCRIPTION": "The league's REST API: games, bots, matches, leaderboards, tournaments, challenges, tokens "
    "(docs/api.md). Authenticate with `Authorization: Token <key>` or a session.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",  # served from our own static files, never a CDN
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # No deep links: Swagger UI puts each one inside its operation's button, a link nested in a button that screen
    # readers cannot reach (axe's nested-interactive; swagger-api/swagger-ui#9570).
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    "REDOC_DIST": "SIDECAR",
    # Redoc's response and secondary text colours a shade darker: its defaults fall short of WCAG AA's 4.5:1.
    "REDOC_UI_SETTINGS": {
        "theme": {
            "colors": {"success": {"main": "#17691f"}, "error": {"main": "#b71c1a"}, "text": {"secondary": "#595959"}}
        }
    },
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/",
    "ENUM_NAME_OVERRIDES": {"GameEnum": "league.core.game_choices.game_choices"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",  # the default
        "league.api.schema.small_integer_examples",
    ],
}

# ----- Celery ------------------------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
BROKER_DIR = VAR_DIR / "broker"
# Redis hands an unacknowledged message (acks_late) to another worker after this long. Every time limit, lease and
# back-off below is shorter, so a live task is never delivered twice while it runs (docs/operations.md).
BROKER_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 3600)
# How often a worker looks for new messages on the filesystem broker (Redis pushes them: no polling there). kombu's
# default, a second, was most of an upload's wait for its validation.
BROKER_POLL_MS = env_int("BROKER_POLL_MS", 100, minimum=10)
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, int | str | bool | float]  # kombu's, for the transport in use
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": BROKER_VISIBILITY_TIMEOUT}
else:
    # The embedded default: a broker that needs no server, kombu's filesystem transport with atomic writes and takes
    # (parlour/broker.py: a consumer never reads a half-written message).
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT = "parlour.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = filesystem_options(BROKER_DIR, BROKER_POLL_MS)
# Three queues (docs/operations.md, "Processes"): validations have a lane of their own, so that an upload is validated
# in seconds however many matches are queued; matches, the ladder and tournaments use the default queue; the sweeper's
# tick has a queue that both kinds of worker take (-Q celery,sweep and -Q validation,sweep), so that it never waits
# behind a burst of match messages (docs/benchmarks.md, section 13) and any live worker host runs it.
# A worker started without -Q takes all three.
VALIDATION_QUEUE = "validation"
SWEEP_QUEUE = "sweep"
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = [
    Queue("celery", routing_key="celery"),
    Queue(VALIDATION_QUEUE, routing_key=VALIDATION_QUEUE),
    Queue(SWEEP_QUEUE, routing_key=SWEEP_QUEUE),
]
CELERY_TASK_ROUTES = {
    "parlour.validate_version": {"queue": VALIDATION_QUEUE},
    "parlour.requeue_stale_matches": {"queue": SWEEP_QUEUE},
}
# Liveness (parlour/liveness.py, parlour/supervise.py): a worker touches its heartbeat file this often from its
# consumer's event loop; the supervisor restarts a worker whose file is older than WORKER_STALL_SECONDS.
WORKER_HEARTBEAT_SECONDS = env_int("WORKER_HEARTBEAT_SECONDS", 2, minimum=1)
WORKER_STALL_SECONDS = env_int("WORKER_STALL_SECONDS", 30, minimum=2)
WORKER_HEARTBEAT_FILE = env_str("WORKER_HEARTBEAT_FILE")
# Processes of the match worker that `make run` starts (the validation lane has one of its own).
WORKERS = env_int("WORKERS", 2, minimum=1)
# A worker lowers its CPU priority by this much at start-up (its pool and the bots' sandboxes inherit it): where the
# web server and the workers share a machine, people's pages come before matches played flat out. 0 on the embedded
# default; .env.production.example sets 10. Bots are charged their CPU time, so a niced match is as fair.
WORKER_NICE = env_int("WORKER_NICE", 0, minimum=0)
if WORKER_NICE > 19:
    raise ConfigError("WORKER_NICE must be at most 19 (the lowest priority)")
if WORKER_STALL_SECONDS <= 2 * WORKER_HEARTBEAT_SECONDS:
    raise ConfigError("WORKER_STALL_SECONDS must be more than twice WORKER_HEARTBEAT_SECONDS")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 1800)
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - max(1, min(60, CELERY_TASK_TIME_LIMIT // 10))
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker outlives a broker outage: it reconnects for as long as it takes, and the matches it is playing go on (their
# claims in the database, not the broker's messages, decide who records them).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False

# ----- The league --------------------------------------------------------------------------------------------
# How often the ladder scheduler runs, and how many ladder matches it keeps queued per game.
LADDER_INTERVAL_SECONDS = env_int("LADDER_INTERVAL_SECONDS", 10)
LADDER_QUEUE_DEPTH = env_int("LADDER_QUEUE_DEPTH", 2)
LADDER_ENABLED = env_bool("LADDER_ENABLED", True)
# What the workers can run at once: the scheduler keeps at most this many ladder matches queued or running, over
# all games together (so the queue never outgrows the workers and a new upload's first games start soon).
LADDER_WORKER_CAPACITY = env_int("LADDER_WORKER_CAPACITY", 16)
# A bot that has waited this long for a ladder match goes before everyone who has not (nobody starves).
LADDER_STARVE_SECONDS = env_int("LADDER_STARVE_SECONDS", 300)
# A bot with more than LADDER_FAULT_LIMIT faults in its last LADDER_FAULT_WINDOW matches is paused (10% of 50).
# Fitted Elo (docs/ratings.md): beat refits each game whose rated games changed this often.
RATINGS_REFIT_SECONDS = env_int("RATINGS_REFIT_SECONDS", 60, minimum=1)
LADDER_FAULT_WINDOW = env_int("LADDER_FAULT_WINDOW", 50)
LADDER_FAULT_LIMIT = env_int("LADDER_FAULT_LIMIT", 5)
# Per-game ladder settings (docs/ratings.md). Keys, all optional:
#   table_sizes     player counts the ladder seats, chosen at random per match (default: all the game allows)
#   games_per_hour  at most this many ladder matches of the game are created in any hour
#   max_in_flight   at most this many queued or running ladder matches per bot
#   time_control    {"move_ms": ..., "bank_ms": ...} for the game's ladder matches (default: the runtime's)
#   matchmaking     "settle" (the default: fitted Elo, docs/ratings.md), "uncertainty" or "random"
#   enabled         false takes the game off the ladder
#   series          games per ladder table, played in a row by the same bot processes (default 1; the short games
#                   set their own: Love Letter 12, High Society and Ranczo 6; "random" matchmaking plays single games)
# Each game sets its own defaults (LADDER in games/<id>/__init__.py); the environment variable LADDER_GAMES (JSON,
# the same shape) is merged over them, game by game.
# A deep copy: settings may be changed (tests do), the games' own constants never.
LADDER_GAMES: dict[str, dict[str, Any]] = {game_id: copy.deepcopy(dict(ladder_defaults(game_id))) for game_id in GAMES}
_LADDER_GAME_KEYS = {
    "table_sizes",
    "games_per_hour",
    "max_in_flight",
    "time_control",
    "matchmaking",
    "enabled",
    "series",
}


def _ladder_games_from_env() -> dict[str, dict[str, Any]]:
    raw = env_str("LADDER_GAMES")
    if raw is None:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as error:
        raise ConfigError(f"LADDER_GAMES must be JSON: {error}") from None
    if not isinstance(value, dict) or not all(isinstance(entry, dict) for entry in value.values()):
        raise ConfigError('LADDER_GAMES must be a JSON object of objects, e.g. {"love_letter": {"table_sizes": [2]}}')
    for game_id, entry in value.items():
        if unknown := set(entry) - _LADDER_GAME_KEYS:
            raise ConfigError(
                f"LADDER_GAMES[{game_id!r}]: unknown keys {sorted(unknown)}; known: {sorted(_LADDER_GAME_KEYS)}"
            )
    return value


for _game_id, _entry in _ladder_games_from_env().items():
    LADDER_GAMES[_game_id] = {**LADDER_GAMES.get(_game_id, {}), **_entry}
# The sandbox backend for bots: "bwrap" (real isolation) or "none" (local development only, and only with
# ALLOW_UNSANDBOXED_BOTS=true: workers refuse it otherwise).
BOT_SANDBOX = env_str("BOT_SANDBOX", "bwrap")
if BOT_SANDBOX not in {"bwrap", "none"}:
    raise ConfigError(f"BOT_SANDBOX must be bwrap or none, not {BOT_SANDBOX!r}")
ALLOW_UNSANDBOXED_BOTS = env_bool("ALLOW_UNSANDBOXED_BOTS", False)
# Workers unpack each bot version once per machine, under VAR_DIR/bot-code/ (workers/code_cache.py), and keep at most
# this many versions there (the least recently used go first, never one used within CELERY_TASK_TIME_LIMIT).
BOT_CODE_CACHE_ENTRIES = env_int("BOT_CODE_CACHE_ENTRIES", 256)
# Reliability (docs/operations.md). A worker's claim on a match (or a validation) is a lease of MATCH_STALE_SECONDS,
# renewed every quarter of it while the worker plays; a lease that runs out means the worker died, and the match may
# be claimed again. Every claim is an attempt: after MATCH_MAX_ATTEMPTS the match fails, with the reason.
MATCH_STALE_SECONDS = env_int("MATCH_STALE_SECONDS", 90)
MATCH_HEARTBEAT_SECONDS = MATCH_STALE_SECONDS / 4
MATCH_MAX_ATTEMPTS = env_int("MATCH_MAX_ATTEMPTS", 3)
# The sweeper (Celery beat) runs this often: it re-queues matches whose lease ran out, and sends run_match again for
# a match still queued MATCH_RESEND_SECONDS after its last message (the broker lost it; a duplicate is harmless).
MATCH_SWEEP_SECONDS = env_int("MATCH_SWEEP_SECONDS", 30)
MATCH_RESEND_SECONDS = env_int("MATCH_RESEND_SECONDS", 300)
# A worker that finishes a match claims the next due one and starts its bots while it records the first, then plays
# it: at most MATCH_CHAIN_MAX matches in one task, and none started after MATCH_CHAIN_SECONDS (a warm shutdown waits
# for the task). 1 turns it off: one match per message.
MATCH_CHAIN_MAX = env_int("MATCH_CHAIN_MAX", 8)
# Placement (league/ladder/placement.py): a newly validated version plays PLACEMENT_GAMES rated games at once (0:
# none), in series of SERIES_GAMES games played by the same bot processes (league/play/series.py).
PLACEMENT_GAMES = env_int("PLACEMENT_GAMES", 30, minimum=0)
SERIES_GAMES = env_int("SERIES_GAMES", 6, minimum=1)
MATCH_CHAIN_SECONDS = env_int("MATCH_CHAIN_SECONDS", 20)
# A series that has played this long gives its worker up between two games when another owner's placement waits
# (time-slicing between owners: a slow bot's long series is slow for its own owner only). 0: after every game.
SERIES_SLICE_SECONDS = env_int("SERIES_SLICE_SECONDS", 20, minimum=0)
# An attempt that failed for the infrastructure is tried again after MATCH_RETRY_SECONDS · 2^(attempt - 1), at most
# MATCH_RETRY_MAX_SECONDS (and a little less, at random, so that retries do not arrive together).
MATCH_RETRY_SECONDS = env_int("MATCH_RETRY_SECONDS", 10)
MATCH_RETRY_MAX_SECONDS = env_int("MATCH_RETRY_MAX_SECONDS", 600)
for _name, _value in [
    ("CELERY_TASK_TIME_LIMIT", CELERY_TASK_TIME_LIMIT),
    ("MATCH_STALE_SECONDS", MATCH_STALE_SECONDS),
    ("MATCH_RETRY_MAX_SECONDS", MATCH_RETRY_MAX_SECONDS),
]:
    # Longer than the visibility timeout, Redis would hand a running task (or a retry waiting for its time) to a
    # second worker: harmless thanks to the claims, but every such duplicate is wasted work.
    if not 0 < _value < BROKER_VISIBILITY_TIMEOUT:
        raise ConfigError(f"{_name} ({_value} s) must be positive and below CELERY_VISIBILITY_TIMEOUT")
if MATCH_MAX_ATTEMPTS < 1 or MATCH_SWEEP_SECONDS < 1 or MATCH_RESEND_SECONDS < 1 or MATCH_RETRY_SECONDS < 0:
    raise ConfigError("MATCH_MAX_ATTEMPTS, _SWEEP_SECONDS and _RESEND_SECONDS must be at least 1, _RETRY_SECONDS 0")
if MATCH_CHAIN_MAX < 1 or MATCH_CHAIN_SECONDS < 0:
    raise ConfigError("MATCH_CHAIN_MAX must be at least 1 and MATCH_CHAIN_SECONDS at least 0")
# Challenges and version tests (docs/challenges.md): unrated games an owner asks for, at most this many per
# challenge and this many per user in any hour (more is refused with 429 and the time to retry).
CHALLENGE_MAX_GAMES = env_int("CHALLENGE_MAX_GAMES", 100)
CHALLENGE_GAMES_PER_HOUR = env_int("CHALLENGE_GAMES_PER_HOUR", 200)

# People's tables (docs/tables.md): a logged-in person plays the league's bots in the browser. Each of the person's
# decisions has HUMAN_TABLE_CLOCK_SECONDS (HUMAN_TABLE_CLOCKS: per game, "ten=60,love_letter=90"); when it runs out
# the person forfeits. At most HUMAN_TABLES_MAX tables are played at once (each holds a worker for the whole game);
# more wait, queued, and their pages say so.
HUMAN_TABLE_CLOCK_SECONDS = env_int("HUMAN_TABLE_CLOCK_SECONDS", 120, minimum=5)
HUMAN_TABLES_MAX = env_int("HUMAN_TABLES_MAX", 1, minimum=1)
# Watching league matches live (docs/live.md): a running match's worker publishes its moves at most this often
# (one small database write); 0 turns live publishing off.
LIVE_MATCH_INTERVAL_MS = env_int("LIVE_MATCH_INTERVAL_MS", 150, minimum=0)
# Parlour TV on /live/ (docs/live.md): a replayed game's pace (ms a move); how long its result stays before the next.
LIVE_BROADCAST_MOVE_MS = env_int("LIVE_BROADCAST_MOVE_MS", 1500, minimum=10)
LIVE_BROADCAST_RESULT_MS = env_int("LIVE_BROADCAST_RESULT_MS", 6000, minimum=10)
# A long game (TEN: some 300 moves) is played faster so a broadcast lasts about this long, never under 0.4 s a move.
LIVE_BROADCAST_MAX_SECONDS = env_int("LIVE_BROADCAST_MAX_SECONDS", 180, minimum=1)
# Live event streams (league/site/event_stream.py, docs/live.md): open at once per web process, and from one address
# (429 past it, 503 past the total, each with Retry-After); how often each web process re-reads the rows it streams
# (with
# REDIS_URL a safety net: changes arrive published); a reader that takes longer than STREAM_SEND_TIMEOUT_SECONDS to
# accept a chunk is dropped (parlour/asgi.py).
STREAM_MAX_OPEN = env_int("STREAM_MAX_OPEN", 2000, minimum=1)
STREAM_MAX_PER_ADDRESS = env_int("STREAM_MAX_PER_ADDRESS", 16, minimum=1)
STREAM_POLL_MS = env_int("STREAM_POLL_MS", 1000 if REDIS_URL else 100, minimum=10)
STREAM_SEND_TIMEOUT_SECONDS = env_int("STREAM_SEND_TIMEOUT_SECONDS", 10, minimum=1)
# Remote bots (docs/remote.md): requests a second per bot token (its replies and streams opened: a bot in several
# games at once answers hundreds of moves a second), the largest reply
# (one protocol line), the dropped connections in an hour that pause a bot as faults do, and the streams one bot may
# hold open at once (its event stream and its games' message streams; all of them count in STREAM_MAX_OPEN too).
REMOTE_REQUESTS_PER_SECOND = env_int("REMOTE_REQUESTS_PER_SECOND", 500, minimum=1)
REMOTE_REPLY_MAX_BYTES = env_int("REMOTE_REPLY_MAX_BYTES", 64 * 1024, minimum=1024)
REMOTE_DROPS_PER_HOUR = env_int("REMOTE_DROPS_PER_HOUR", 30, minimum=1)
REMOTE_STREAMS_PER_BOT = env_int("REMOTE_STREAMS_PER_BOT", 16, minimum=2)
# PostgreSQL connections each web process keeps in its pool (parlour/asgi.py): a page or a live stream's read borrows
# one instead of opening its own (a new connection is a new PostgreSQL backend process). The workers keep
# CONN_MAX_AGE.
WEB_DB_POOL_MAX = env_int("WEB_DB_POOL_MAX", 12, minimum=1)


def _table_clocks_from_env() -> dict[str, int]:
    clocks: dict[str, int] = {}
    for item in env_list("HUMAN_TABLE_CLOCKS", []):
        game, _, seconds = item.partition("=")
        game = game.strip()
        if game not in GAMES or not seconds.strip().isdigit() or int(seconds) < 5:
            raise ConfigError(f"HUMAN_TABLE_CLOCKS: {item!r} is not <game>=<seconds, at least 5> for a known game")
        clocks[game] = int(seconds)
    return clocks


HUMAN_TABLE_CLOCKS = _table_clocks_from_env()

# ----- Fair use and retention (docs/security.md) -------------------------------------------------------------
# Uploads per user, counted from the database (every web process sees the same counts). A user may own at most
# FAIR_USE_BOTS_PER_USER bots (over all games: 403 beyond) and store at most FAIR_USE_UPLOADS_PER_HOUR versions in any
# hour, a new bot's first one included, and FAIR_USE_VERSIONS_PER_BOT_PER_HOUR of one bot (429 and the time to retry
# beyond). Staff are exempt. Bot stderr and the notes bots attach to moves are deleted LOG_RETENTION_DAYS after the
# match (or the validation); the replay's moves and outcome stay.
FAIR_USE_BOTS_PER_USER = env_int("FAIR_USE_BOTS_PER_USER", 20, minimum=1)
FAIR_USE_UPLOADS_PER_HOUR = env_int("FAIR_USE_UPLOADS_PER_HOUR", 30, minimum=1)
FAIR_USE_VERSIONS_PER_BOT_PER_HOUR = env_int("FAIR_USE_VERSIONS_PER_BOT_PER_HOUR", 10, minimum=1)
# Worker time per owner (league/play/worker_budget.py): the wall time their versions' placement and their
# challenges cost the workers in any hour. Beyond it challenges and tables get 429, placement waits, and the fair
# order between placing owners puts the one who spent least first.
FAIR_USE_WORKER_SECONDS_PER_HOUR = env_int("FAIR_USE_WORKER_SECONDS_PER_HOUR", 1800, minimum=1)
LOG_RETENTION_DAYS = env_int("LOG_RETENTION_DAYS", 30, minimum=1)

# "default": the API's throttle counters. Per process unless CACHE_URL names a Redis database: with several web
# processes, set it, or each process counts a client's requests on its own (docs/api.md). Never the broker's
# database: clearing the cache (the tests do) would empty the queue. "pages": the busy pages' expensive parts
# (league/ratings/caching.py), keyed on a fingerprint of the data they show, so a per-process cache is never stale;
# entries expire after a minute so that the relative times in them ("5 minutes ago") stay current.
CACHE_URL = env_str("CACHE_URL")
if CACHE_URL is None:
    _default_cache = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
elif not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ConfigError(f"CACHE_URL must be a redis://, rediss:// or unix:// URL, not {CACHE_URL!r}")
elif CACHE_URL == REDIS_URL:
    raise ConfigError("CACHE_URL must not be the broker's Redis database (REDIS_URL): clearing one would empty both")
else:
    _default_cache = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
CACHES = {
    "default": _default_cache,
    "pages": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "pages",
        "TIMEOUT": 60,
        "OPTIONS": {"MAX_ENTRIES": 1000},
    },
}

# ----- Accounts, headers and deployment (docs/security.md) ---------------------------------------------------
# Log-in throttling (django-axes): LOGIN_FAILURE_LIMIT wrong passwords from one address, for one account or over any
# accounts, lock that address out of the log-in form and the admin's for LOGIN_COOLOFF_MINUTES (429 and a page that
# says so). Never the account itself: its owner, from another address, still logs in (usernames are public, so a lock
# on the account alone lets anyone lock anyone out). `manage.py axes_reset` lifts every lock-out at once.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out account or address before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], ["ip_address"]]  # per account from one address; per address
# Failures are forgotten only after the cool-off, never on a successful log-in: with per-address counting that would
# let a stranger wipe the count of their guesses at another account by logging in to their own.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "league.accounts.views.locked_out"  # 429, Retry-After, registration/locked_out.html
AXES_HTTP_RESPONSE_CODE = 429
AXES_DISABLE_ACCESS_LOG = True  # failures are counted; successful log-ins (and their addresses) are not kept
# The client's address (league/accounts/limits.py, client_address): REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT
# reverse proxies that each append to X-Forwarded-For, the address the outermost one saw.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)
AXES_CLIENT_IP_CALLABLE = "league.accounts.limits.client_address"
# Per address and per hour (league/accounts/limits.py, django-ratelimit in the default cache: shared by every web
# process when CACHE_URL is set): accounts created, password resets asked for (429 and a page past either), and mails
# of each kind (reset, verification) sent to one e-mail address (past it the same page as a success, and no mail).
SIGNUPS_PER_HOUR = env_int("SIGNUPS_PER_HOUR", 3, minimum=1)
# Guests (league/accounts/guests.py): someone who sits at a table without signing up gets a guest account, at most
# GUESTS_PER_HOUR from one address; it and its tables are deleted GUEST_HOURS later.
GUESTS_PER_HOUR = env_int("GUESTS_PER_HOUR", 10, minimum=1)
GUEST_HOURS = env_int("GUEST_HOURS", 24, minimum=1)
PASSWORD_RESETS_PER_HOUR = env_int("PASSWORD_RESETS_PER_HOUR", 5, minimum=1)
MAILS_PER_RECIPIENT_PER_HOUR = env_int("MAILS_PER_RECIPIENT_PER_HOUR", 3, minimum=1)
# Uploading a bot (site and API, new versions too) needs a verified e-mail address: sign-up mails a signed link valid
# EMAIL_VERIFICATION_TIMEOUT seconds. Off by default so `make run` needs no mail; .env.production.example turns it on.
REQUIRE_EMAIL_VERIFICATION = env_bool("REQUIRE_EMAIL_VERIFICATION", False)
EMAIL_VERIFICATION_TIMEOUT = env_int("EMAIL_VERIFICATION_TIMEOUT", 3 * 24 * 3600, minimum=3600)

# Password reset by e-mail (Django's views). Mail goes to the console unless EMAIL_HOST names an SMTP server.
EMAIL_HOST = env_str("EMAIL_HOST")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", EMAIL_PORT == 587)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", EMAIL_PORT == 465)
    EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Parlour <noreply@localhost>")
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3 * 3600)  # seconds a reset link stays valid

# Content-Security-Policy (django-csp) on every response: our own scripts, styles, images and fonts only; no inline
# script or style anywhere (templates load theirs from league/static/). Redoc's page alone adds style-src
# 'unsafe-inline' and worker-src blob: (parlour/urls.py: its bundle writes <style> elements and starts a blob: worker).
_CSP_SELF = "'self'"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [_CSP_SELF],
        "script-src": [_CSP_SELF],
        "style-src": [_CSP_SELF],
        "img-src": [_CSP_SELF, "data:"],  # the admin's and Swagger UI's stylesheets draw icons from data: URLs
        "font-src": [_CSP_SELF],
        "connect-src": [_CSP_SELF],
        "object-src": ["'none'"],
        "base-uri": [_CSP_SELF],
        "form-action": [_CSP_SELF],
        "frame-ancestors": ["'none'"],
    }
}

# HTTPS in production (.env.production.example passes `manage.py check --deploy`). The defaults suit `make run`:
# plain http on localhost, where a secure cookie would never be sent back and an HSTS header would stick to
# localhost in the browser for months.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
SECURE_PROXY_SSL_HEADER = env_proxy_ssl_header("SECURE_PROXY_SSL_HEADER")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
