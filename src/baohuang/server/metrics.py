"""The server's figures for Prometheus (``GET /metrics``, docs/operating.md).

One :class:`ServerMetrics` per server — its own ``prometheus_client`` registry, not
the library's global one, so that several servers in one process (the tests') count
apart.  A server is one process (one uvicorn worker; several nodes are several
processes, each scraped on its own), so no multiprocess collection is needed.

The server's parts record what happens as it happens (a move stored, a login refused,
托管 taking a seat over); what is in memory now (tables, seats, leases) is read when
the figures are scraped.  The engine records nothing: it is pure.

>>> metrics = ServerMetrics()
>>> metrics.moves.labels("player").inc()
>>> b"baohuang_moves_total" in metrics.exposition()
True
>>> ServerMetrics().moves.labels("player")._value.get()      # (a registry of its own)
0.0
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = ["CONTENT_TYPE", "Census", "ServerMetrics", "token_matches"]

#: Prometheus' text format
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: seconds: a move's handling and a database write take milliseconds, a bot's
#: decision up to a second or so
_FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                 2.5, 5.0)
_THINK_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass(frozen=True, slots=True)
class Census:
    """What the server holds in memory at the moment of a scrape."""

    #: tables in memory by status (``open``, ``playing``, ``finished``, ``dissolved``)
    tables: dict[str, int]
    #: taken seats at open and playing tables, by who sits there (``player``, ``bot``)
    seats: dict[str, int]
    #: a cluster node: its name and how many table leases it holds (``None``: one server)
    node: str | None = None
    leases: int = 0


class _CensusCollector(Collector):
    """Reads a :class:`Census` when scraped."""

    def __init__(self, census: Callable[[], Census]) -> None:
        self.census = census

    def collect(self) -> Iterable[Metric]:
        now = self.census()
        tables = GaugeMetricFamily("baohuang_tables", "Tables in memory by status",
                                   labels=["status"])
        for status in ("open", "playing", "finished", "dissolved"):
            tables.add_metric([status], now.tables.get(status, 0))
        seats = GaugeMetricFamily("baohuang_seats",
                                  "Taken seats at open and playing tables, by who sits there",
                                  labels=["kind"])
        for kind in ("player", "bot"):
            seats.add_metric([kind], now.seats.get(kind, 0))
        yield tables
        yield seats
        if now.node is not None:
            leases = GaugeMetricFamily("baohuang_cluster_leases",
                                       "Table leases this cluster node holds", labels=["node"])
            leases.add_metric([now.node], now.leases)
            yield leases


class ServerMetrics:
    """The figures of one server process."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.sockets = Gauge("baohuang_sockets", "Open WebSocket connections",
                             registry=registry)
        self.moves = Counter("baohuang_moves", "Moves stored, by who made them (player, "
                             "bot, hosted: 托管, timeout)", ["source"], registry=registry)
        self._moves: dict[str, Counter] = {}
        self.move_seconds = Histogram(
            "baohuang_move_seconds", "Handling of one move at its table: applied, stored "
            "and sent", buckets=_FAST_BUCKETS, registry=registry)
        self.store_seconds = Histogram(
            "baohuang_store_seconds", "Storing one move in the database (each try)",
            buckets=_FAST_BUCKETS, registry=registry)
        self.bot_think_seconds = Histogram(
            "baohuang_bot_think_seconds", "A server bot's thinking for one decision (its "
            "pause not counted)", ["bot"], buckets=_THINK_BUCKETS, registry=registry)
        self.hosted_takeovers = Counter(
            "baohuang_hosted_takeovers", "Seats 托管 took over, by why (timeout, away, "
            "asked, left)", ["reason"], registry=registry)
        self.errors = Counter(
            "baohuang_errors", "Refusals and failures, by where (api, socket, table) and "
            "their code", ["where", "code"], registry=registry)
        self.login_failures = Counter("baohuang_login_failures",
                                      "Logins refused for a wrong name or password",
                                      registry=registry)
        self.rate_limited = Counter(
            "baohuang_rate_limited", "Tries refused by a rate limit, by which (login-address, "
            "table-account, messages, ...)", ["limit"], registry=registry)
        self.takeovers = Counter("baohuang_cluster_takeovers",
                                 "Tables this cluster node took over from another",
                                 ["node"], registry=registry)

    def moved(self, source: str, seconds: float) -> None:
        """One move stored (by ``source``), handled in ``seconds``: on every move, so
        each source's child counter is looked up once (``labels`` takes a lock)."""
        child = self._moves.get(source)
        if child is None:
            child = self._moves[source] = self.moves.labels(source)
        child.inc()
        self.move_seconds.observe(seconds)

    def watch(self, census: Callable[[], Census]) -> None:
        """Read ``census`` at each scrape (the server's tables, seats and leases)."""
        self.registry.register(_CensusCollector(census))

    def exposition(self) -> bytes:
        """Every figure in Prometheus' text format."""
        return generate_latest(self.registry)

    def families(self) -> Iterator[str]:
        """The names of the figures (as an expression names them: a counter's with
        ``_total``, a histogram's with ``_bucket``, ``_sum`` and ``_count``)."""
        for family in self.registry.collect():
            for sample in family.samples:
                yield sample.name


def token_matches(given: str | None, expected: str | None) -> bool:
    """Whether a scraper's bearer token is the configured one (compared in constant
    time); with none configured, nobody's is.

    >>> token_matches("s3cret", "s3cret"), token_matches("guess", "s3cret")
    (True, False)
    >>> token_matches(None, "s3cret"), token_matches("", None)
    (False, False)
    """
    if not expected or given is None:
        return False
    return secrets.compare_digest(given.encode(), expected.encode())
