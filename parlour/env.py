"""Strict readers for settings from environment variables: a malformed value fails loudly at start-up."""

from __future__ import annotations

import os
from typing import Any, overload
from urllib.parse import parse_qs, unquote, urlparse


class ConfigError(RuntimeError):
    pass


@overload
def env_str(name: str) -> str | None: ...
@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: str | None) -> str | None: ...
def env_str(name: str, default: str | None = None) -> str | None:
    """The variable's value; unset or empty, the default (typed ``str`` when the default is one)."""
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def env_bool(name: str, default: bool) -> bool:
    value = env_str(name)
    if value is None:
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name} must be true or false, not {value!r}")


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    value = env_str(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {value!r}") from None
    if minimum is not None and number < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, not {number}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = env_str(name)
    return default if value is None else [item.strip() for item in value.split(",") if item.strip()]


def database_from_url(url: str) -> dict[str, Any]:
    """Django's DATABASES entry for ``postgres://user:pass@host:port/name`` or ``sqlite:///path``."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": unquote(parsed.path[1:] if parsed.path else "")}
    if parsed.scheme in {"postgres", "postgresql"}:
        options = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "OPTIONS": options,
        }
    raise ConfigError(f"DATABASE_URL must start with postgres:// or sqlite:///, not {url!r}")


def env_proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """Django's SECURE_PROXY_SSL_HEADER from ``HTTP_X_FORWARDED_PROTO`` (the value ``https`` implied) or
    ``HTTP_X_FORWARDED_PROTO=https``. Set it only behind a proxy that overwrites the header: a client can send it."""
    value = env_str(name)
    if value is None:
        return None
    header, _, expected = value.partition("=")
    if not header.startswith("HTTP_") or not header.replace("_", "").isalnum() or header != header.upper():
        raise ConfigError(f"{name} must name a request header as Django sees it, e.g. HTTP_X_FORWARDED_PROTO")
    return header, expected or "https"
