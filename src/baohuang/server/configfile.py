"""The server's settings from a TOML file, the environment and the command line, checked
as a whole: ``baohuang serve --config FILE`` and ``baohuang config check --file FILE``
read them here, so that what the check accepts is what the server starts with.

A key is a :class:`~.config.ServerConfig` field (``db_url``, ``redis_url``,
``forwarded_allow_ips``, ``trusted_hosts``, ``metrics_token`` …) or one of the serving
process's own (``host``, ``port``, ``log_level``, ``log_format``).  Its variable in the
environment is ``BAOHUANG_`` and the key in capitals (``BAOHUANG_DB_URL``; a list's
items separated by commas).  The command line wins over the environment, the
environment over the file, the file over the defaults.

>>> settings = load_settings(None, {"BAOHUANG_PORT": "8100",
...                                 "BAOHUANG_TRUSTED_HOSTS": "bh.example.org,localhost"},
...                          {"host": "0.0.0.0"})
>>> settings.host, settings.port, settings.config.trusted_hosts
('0.0.0.0', 8100, ('bh.example.org', 'localhost'))
>>> settings.sources["port"], settings.sources["host"]
('$BAOHUANG_PORT', 'command line')
>>> try:
...     load_settings(None, {"BAOHUANG_LEASE_TTL": "soon", "BAOHUANG_NODE": "a#b"})
... except SettingsError as exc:
...     for problem in exc.problems: print(problem)
lease_ttl ($BAOHUANG_LEASE_TTL): expected a number, got 'soon'
>>> try:
...     load_settings(None, {"BAOHUANG_NODE": "a#b", "BAOHUANG_PORT": "99999"})
... except SettingsError as exc:
...     for problem in exc.problems: print(problem)
port ($BAOHUANG_PORT): a port is 1 to 65535, not 99999
node ($BAOHUANG_NODE): a node's name may not hold '#' or '|': 'a#b'
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import tomllib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec

from .config import ServerConfig, default_db_url
from .logs import FORMATS, LEVELS

__all__ = ["ENV_PREFIX", "KEYS", "MIN_METRICS_TOKEN", "SECRET_KEYS", "Settings",
           "SettingsError", "env_name", "load_settings"]

ENV_PREFIX = "BAOHUANG_"
#: the shortest bearer token ``/metrics`` takes (one that can be guessed guards nothing)
MIN_METRICS_TOKEN = 16
#: the serving process's own keys (not the server's :class:`ServerConfig`), and types
_PROCESS: dict[str, Any] = {"host": str, "port": int, "log_level": str,
                            "log_format": str | None}
_CONFIG: dict[str, Any] = typing.get_type_hints(ServerConfig)
#: every key a file or the environment may set, and its type
KEYS: dict[str, Any] = {**_PROCESS, **_CONFIG}
#: keys whose values are secret, or may hold one (a database's or Redis's password)
SECRET_KEYS = ("metrics_token", "db_url", "redis_url")
_RATES = ("login_rate_account", "login_rate_address", "account_rate_address",
          "table_rate_address", "table_rate_account", "code_rate_address",
          "code_rate_account")
_DATABASES = ("sqlite+aiosqlite", "postgresql+asyncpg")
_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


def env_name(key: str) -> str:
    """The environment variable of a key: ``env_name("db_url") == "BAOHUANG_DB_URL"``."""
    return ENV_PREFIX + key.upper()


class SettingsError(Exception):
    """Settings the server cannot start with: each problem on a line of its own."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Settings:
    """Everything ``baohuang serve`` starts with, and where each value set came from."""

    config: ServerConfig
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    #: ``None``: text on a terminal, JSON otherwise (``logs.default_format``)
    log_format: str | None = None
    #: key → where its value came from (a file's path, ``$BAOHUANG_…``, ``command line``)
    sources: dict[str, str] = field(default_factory=dict)
    #: what does not stop the server but may not be meant
    warnings: tuple[str, ...] = ()

    def shown(self) -> list[tuple[str, str, str]]:
        """The keys set other than by default — key, value (a secret as ``***``, a
        URL's password too), source — for ``baohuang config check``."""
        rows = []
        for key, source in self.sources.items():
            value = getattr(self.config, key) if key in _CONFIG else getattr(self, key)
            rows.append((key, _masked(key, value), source))
        return rows


def _masked(key: str, value: Any) -> str:
    if value is None:
        return "(none)"
    if key == "metrics_token":
        return "***"
    if key in ("db_url", "redis_url"):
        parts = urlsplit(str(value))
        if parts.password:
            return str(value).replace(f":{parts.password}@", ":***@", 1)
    if isinstance(value, tuple):
        return ", ".join(value) or "(none)"
    return str(value)


def _type_name(kind: Any) -> str:
    if kind in _TYPE_NAMES:
        return _TYPE_NAMES[kind]
    args = typing.get_args(kind)
    if typing.get_origin(kind) is tuple:
        return "a list of strings"
    named = [_type_name(arg) for arg in args if arg is not type(None)]
    return " or ".join(named) if named else str(kind)


def _from_env(kind: Any, text: str) -> Any:
    """An environment variable's text as a value for ``kind`` (a list: split at commas;
    empty, for a setting that may be none: none)."""
    if text == "" and type(None) in typing.get_args(kind):
        return None
    if typing.get_origin(kind) is tuple:
        return [item.strip() for item in text.split(",") if item.strip()]
    return text


def _convert(key: str, kind: Any, value: Any, *, strict: bool) -> Any:
    """``value`` as ``kind``; raises ValueError with what was expected."""
    try:
        return msgspec.convert(value, kind, strict=strict)
    except msgspec.ValidationError:
        raise ValueError(f"expected {_type_name(kind)}, got {value!r}") from None


def _suggest(key: str) -> str:
    close = difflib.get_close_matches(key, KEYS, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _read_file(path: Path, problems: list[str]) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{path}: no such file")
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: cannot be read ({exc})")
        return {}
    except tomllib.TOMLDecodeError as exc:
        problems.append(f"{path}: not TOML: {exc}")
        return {}
    known = {}
    for key, value in data.items():
        if key not in KEYS:
            what = "section" if isinstance(value, dict) else "key"
            problems.append(f"{path}: unknown {what} '{key}'{_suggest(key)}")
        else:
            known[key] = value
    return known


def load_settings(file: Path | None, env: Mapping[str, str] | None = None,
                  given: Mapping[str, Any] | None = None) -> Settings:
    """The settings from ``file`` (TOML), then ``env`` (by default ``os.environ``), then
    ``given`` (the command line's values); raises :class:`SettingsError` listing every
    problem found — unknown keys, wrong types, bad URLs, rates or addresses, secrets
    too short or readable by every user."""
    environ = os.environ if env is None else env
    problems: list[str] = []
    raw: dict[str, tuple[Any, str, bool]] = {}            # key → value, source, strict
    if file is not None:
        for key, value in _read_file(file, problems).items():
            raw[key] = (value, str(file), True)
    for key, kind in KEYS.items():
        name = env_name(key)
        if name in environ:
            raw[key] = (_from_env(kind, environ[name]), f"${name}", False)
    for key, value in (given or {}).items():
        raw[key] = (value, "command line", True)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, (value, source, strict) in raw.items():
        try:
            values[key] = _convert(key, KEYS[key], value, strict=strict)
        except ValueError as exc:
            problems.append(f"{key} ({source}): {exc}")
        else:
            sources[key] = source
    if problems:
        raise SettingsError(problems)
    config_values = {key: value for key, value in values.items() if key in _CONFIG}
    config_values.setdefault("db_url", default_db_url())
    config = ServerConfig(**config_values)
    settings = Settings(config, **{key: value for key, value in values.items()
                                   if key in _PROCESS}, sources=sources)
    warnings: list[str] = []
    _check(settings, problems, warnings)
    if file is not None and file.exists():
        _check_file_secrets(file, raw, problems)
    if problems:
        raise SettingsError(problems)
    return Settings(config, settings.host, settings.port, settings.log_level,
                    settings.log_format, sources, tuple(warnings))


def _check(settings: Settings, problems: list[str], warnings: list[str]) -> None:
    """The rules a value must follow beyond its type."""
    from limits import parse_many
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    config, sources = settings.config, settings.sources

    def bad(key: str, why: str) -> None:
        where = sources.get(key, "default")
        problems.append(f"{key} ({where}): {why}")

    if settings.log_level not in LEVELS:
        bad("log_level", f"one of {', '.join(LEVELS)}, not {settings.log_level!r}")
    if settings.log_format is not None and settings.log_format not in FORMATS:
        bad("log_format", f"one of {', '.join(FORMATS)}, not {settings.log_format!r}")
    if not 1 <= settings.port <= 65535:
        bad("port", f"a port is 1 to 65535, not {settings.port}")
    for key, kind in _CONFIG.items():
        value = getattr(config, key)
        if kind in (int, float) and value < 0:
            bad(key, f"must not be negative ({value})")
    try:
        url = make_url(config.db_url)
    except ArgumentError:
        bad("db_url", f"not a URL: {_masked('db_url', config.db_url)!r}")
    else:
        if url.drivername not in _DATABASES:
            bad("db_url", f"the server speaks {' or '.join(_DATABASES)}, not "
                f"{url.drivername!r} (sqlite+aiosqlite:////srv/baohuang/baohuang.db, "
                "postgresql+asyncpg://USER:PASSWORD@HOST/NAME)")
        elif url.drivername.startswith("sqlite"):
            if not url.database:
                bad("db_url", "names no file (sqlite+aiosqlite:////PATH/baohuang.db)")
        elif not url.database:
            bad("db_url", "names no database (…@HOST/NAME)")
        elif url.password is None and url.host not in (None, "", "localhost"):
            warnings.append(f"db_url ({sources.get('db_url', 'default')}): no password for "
                            f"{url.host}: PGPASSWORD or ~/.pgpass must hold it")
    if config.redis_url is not None:
        parts = urlsplit(config.redis_url)
        if parts.scheme not in ("redis", "rediss", "unix") or \
                (parts.scheme != "unix" and not parts.hostname):
            bad("redis_url", "not a Redis URL (redis://[:PASSWORD@]HOST:PORT/DB, rediss://… "
                f"or unix://PATH): {_masked('redis_url', config.redis_url)!r}")
        if config.db_url.startswith("sqlite"):
            warnings.append("redis_url: a cluster node on an SQLite file shares it only "
                            "with the nodes of this machine; nodes on several machines "
                            "need PostgreSQL in db_url")
    if "#" in config.node or "|" in config.node:
        bad("node", f"a node's name may not hold '#' or '|': {config.node!r}")
    for key in _RATES:
        try:
            parse_many(getattr(config, key))
        except ValueError:
            bad(key, f"not a rate such as 10/minute;60/hour: {getattr(config, key)!r}")
    if not 1024 <= config.max_header_line <= config.max_header_bytes:
        bad("max_header_line", "must be at least 1024 and at most max_header_bytes "
            f"({config.max_header_bytes})")
    if config.lease_ttl <= 0:
        bad("lease_ttl", "must be positive")
    if config.metrics_token is not None and len(config.metrics_token) < MIN_METRICS_TOKEN:
        bad("metrics_token", f"must have at least {MIN_METRICS_TOKEN} characters (say "
            "`openssl rand -hex 32`)")
    for origin in config.allowed_origins:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or \
                parts.path not in ("", "/"):
            bad("allowed_origins", f"an origin is https://HOST[:PORT], not {origin!r}")
    for address in config.forwarded_allow_ips.split(","):
        address = address.strip()
        if address == "*" or address.startswith("unix:"):
            continue
        try:
            ipaddress.ip_network(address, strict=False)
        except ValueError:
            bad("forwarded_allow_ips", f"not an address or network: {address!r}")
    from .challenge.service import check_config
    try:
        check_config(config)
    except ValueError as exc:        # (the daily challenge's settings: docs/challenge.md)
        problems.append(f"challenge_* settings: {exc}")


def _check_file_secrets(file: Path, raw: Mapping[str, tuple[Any, str, bool]],
                        problems: list[str]) -> None:
    """A secret in the file (the metrics token, a database's or Redis's password) that
    every user of the machine may read is refused."""
    held = []
    for key in SECRET_KEYS:
        if key in raw and raw[key][1] == str(file):
            value = raw[key][0]
            if key == "metrics_token" or (isinstance(value, str) and urlsplit(value).password):
                held.append(key)
    if held and file.stat().st_mode & 0o004:
        problems.append(f"{file}: holds a secret ({', '.join(held)}) and every user of the "
                        f"machine may read it: chmod o-r {file}, or give it in the "
                        "environment (" + ", ".join(f"${env_name(k)}" for k in held) + ")")
