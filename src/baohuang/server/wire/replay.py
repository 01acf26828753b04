"""The replay of a finished game (docs/protocol.md §2 ``Replay``): its record,
every event with nothing hidden, and after each action every seat's cards."""

from __future__ import annotations

from typing import Any

from ...engine.actions import Action
from ...engine.game import RECORD_VERSION, Game
from ...engine.rules import RuleSet
from ...engine.scoring import TributeBasis

__all__ = ["record_of", "replay"]


def record_of(row: dict[str, Any]) -> dict[str, Any]:
    """The ``Game.record()`` of a stored game row (with its ``actions``)."""
    return {"version": RECORD_VERSION, "rules": row["rules"], "seed": row["seed"],
            "dealer": row["dealer"], "tribute": row["tribute"],
            "actions": [a["action"] for a in row["actions"]]}


def replay(row: dict[str, Any]) -> dict[str, Any]:
    """Everything a replay viewer needs, for a finished game row."""
    record = record_of(row)
    tribute = record["tribute"]
    game = Game.new(RuleSet.from_dict(record["rules"]), record["seed"], dealer=record["dealer"],
                    tribute=None if tribute is None else TributeBasis.from_dict(tribute))
    start = _position(game)          # the deal, before the first action
    steps = []
    for stored in row["actions"]:
        action = Action.from_dict(stored["action"])
        game.apply(action)
        steps.append({"action": action.to_dict(), "seat": stored["seat"],
                      "source": stored["source"], **_position(game)})
    players = [{"seat": p["seat"], "name": p["name"], "user_id": p["user_id"], "bot": p["bot"],
                "score": p["score"], "place": p["place"]} for p in row["players"]]
    # (a private table's id stays with its members: a replay is public)
    private = bool(row.get("private", False))
    return {"game_id": row["id"], "table_id": None if private else row["table_id"],
            "index": row["idx"], "private": private,
            "players": players, "result": row["result"], "scored": row["scored"],
            "practice": bool(row.get("practice", False)),
            "record": record, "events": game.replay_events() if game.is_over else [],
            "start": start, "steps": steps}


def _position(game: Game) -> dict[str, Any]:
    """The spectator view (without the event list) and every seat's cards."""
    view = game.view(None).to_dict()
    del view["events"]
    return {"view": view, "hands": {str(s): [str(c) for c in game.hand(s)] for s in range(5)}}
