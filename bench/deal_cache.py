"""The ladder scripts' per-deal cache (``bench/bots.py``, ``bench/levels.py``).

Every finished deal of a step is appended to a file of JSON lines (default
``~/.cache/baohuang/bench-bots.jsonl``) under a key made of the step's bots
and format, the rules, the seed, the deal and a hash of the package source
the step's bots and the tournament run on (:func:`source_hash`), so that a
run finds the deals an earlier one played with the same code.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Protocol

# the modules a ladder runs on, loaded before SOURCE_FILES is read
import baohuang.bots
import baohuang.tournament.core
import baohuang.tournament.execute
import baohuang.tournament.stats  # noqa: F401
from baohuang.engine.rules import RuleSet
from baohuang.tournament.records import DealResult, GameSummary, Timing

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "baohuang" / \
    "bench-bots.jsonl"
#: Source files only one bot family runs (the rest of the package is shared).
BOT_FILES = {
    "search": ("bots/search/search.py", "bots/search/sampler.py", "bots/search/evidence.py",
               "bots/search/worlds.py", "bots/search/rollout.py",
               "bots/search/belief_search.py", "bots/belief.py"),
    "heuristic": ("bots/heuristic.py", "bots/hand_eval.py"),
}
#: The package modules a ladder runs on (those loaded by the imports above)
#: and their source as it was loaded, read before any game is played: every
#: run hashes the same files, and an edit made while a run goes on does not
#: change the keys of the code that run is playing.
SOURCE_FILES = {Path(str(m.__file__)): Path(str(m.__file__)).read_bytes()
                for name, m in sorted(sys.modules.items())
                if (name == "baohuang" or name.startswith("baohuang."))
                and getattr(m, "__file__", None)}
#: The bots a bot plays through (``search`` asks ``heuristic`` first).
USES = {"search": ("search", "heuristic"), "heuristic": ("heuristic",),
        "belief": ("search", "heuristic"), "hard": ("search", "heuristic"),
        "expert": ("search", "heuristic"), "easy": ("heuristic",),
        "normal": ("heuristic",)}




class Pairing(Protocol):
    """What a cache key needs of a step: its two bots and its format."""

    @property
    def upper(self) -> str: ...

    @property
    def lower(self) -> str: ...

    @property
    def format(self) -> str: ...


def family(bot: str) -> str:
    """``search-200`` is a ``search`` bot."""
    return bot.split("-", 1)[0]


def source_hash(bots: tuple[str, ...]) -> str:
    """A hash of the package source these bots and the tournament run on: every
    loaded ``baohuang`` module except the files of bot families not used."""
    used = {b for bot in bots for b in USES.get(family(bot), (family(bot),))}
    skip = {f for fam, files in BOT_FILES.items() if fam not in used for f in files}
    root = Path(sys.modules["baohuang"].__file__ or "").parent
    digest = hashlib.sha256()
    for path, text in sorted(SOURCE_FILES.items()):
        rel = path.relative_to(root).as_posix()
        if rel not in skip:
            digest.update(rel.encode())
            digest.update(text)
    return digest.hexdigest()[:16]


def deal_to_json(r: DealResult) -> dict[str, Any]:
    return {"deal": r.deal, "game_seed": r.game_seed,
            "games": [[list(g.lineup), list(g.scores), list(g.roles), g.rounds]
                      for g in r.games],
            "guard": [[viewer, rnd, sums] for (viewer, rnd), sums in r.guard.items()],
            "timing": [{"label": t.label, "hist": sorted(t.hist.items()),
                        "decisions": t.decisions, "seconds": t.seconds,
                        "playouts": t.playouts} for t in r.timing]}


def deal_from_json(d: dict[str, Any]) -> DealResult:
    games = [GameSummary(tuple(lu), tuple(sc), tuple(ro), rounds)
             for lu, sc, ro, rounds in d["games"]]
    guard = {(viewer, rnd): list(sums) for viewer, rnd, sums in d["guard"]}
    timing = [Timing(t["label"], {int(b): k for b, k in t["hist"]}, t["decisions"],
                     t["seconds"], t["playouts"]) for t in d["timing"]]
    return DealResult(d["deal"], d["game_seed"], games, guard, timing)


class Cache:
    """Finished deals of earlier runs, one JSON object a line."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            for line in path.read_text().splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue        # a line cut short by an interrupted run
                if isinstance(entry, dict) and "key" in entry and "result" in entry:
                    self.entries[entry["key"]] = entry["result"]

    @staticmethod
    def key(step: Pairing, rules: RuleSet, seed: int, deal: int, inference: bool,
            source: str, clock: str = "wall") -> str:
        return json.dumps([step.upper, step.lower, step.format, rules.to_dict(), seed, deal,
                           inference, source, clock], sort_keys=True)

    def get(self, key: str) -> tuple[DealResult, float] | None:
        """A cached deal and the worker seconds it took."""
        found = self.entries.get(key)
        return None if found is None else (deal_from_json(found), found["seconds"])

    def put(self, key: str, result: DealResult, seconds: float) -> None:
        data = deal_to_json(result)
        data["seconds"] = seconds
        self.entries[key] = data
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write(json.dumps({"key": key, "result": data}) + "\n")
