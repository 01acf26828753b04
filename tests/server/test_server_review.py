"""复盘 on a real ``baohuang serve``: a finished game's review is computed in the
background, polled with its progress, stored once, and refused to whom it is not for."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from server_support import FAST, guests, running_server

import baohuang as bh
from baohuang.bots.review import ReviewSettings, review_record
from baohuang.client import Client
from baohuang.server.harness import ServerProcess

BOTS = {str(s): "heuristic" for s in (1, 2, 3, 4)}


async def finished_game(player: Client, **spec: Any) -> int:
    """A game of ``player`` (seat 0) and four bots, played to the end: its id."""
    table = await player.create_table(timeout=600, bots=BOTS, **spec)
    await asyncio.wait_for(player.play(table["id"], "heuristic"), 120)
    history = await player.history()
    return int(history[0]["game_id"])


async def ask(server: ServerProcess, method: str, path: str, token: str | None
              ) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.request(method, server.url + path, headers=headers)


async def until_done(server: ServerProcess, path: str, token: str | None
                     ) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    """Poll a review until it is done: the answer and the progress seen on the way."""
    seen: list[tuple[int, int]] = []
    for _ in range(3000):
        answer = (await ask(server, "GET", path, token)).json()
        if answer["status"] == "done":
            return answer, seen
        assert answer["status"] == "running", answer
        seen.append((answer["done"], answer["total"]))
        await asyncio.sleep(0.05)
    raise AssertionError(f"the review of {path} did not end")


def test_a_review_is_computed_polled_stored_and_refused_to_others(tmp_path: Path) -> None:
    flags = (*FAST, "--review-playouts", "40", "--reviews-per-user", "1")
    with running_server("sqlite", tmp_path, *flags) as server:
        async def main() -> dict[str, Any]:
            owner, other = await guests(server.url, 2, "rv")
            private = await finished_game(owner, private=True)
            public = await finished_game(owner)
            path = f"/api/games/{private}/review/0"
            out: dict[str, Any] = {"private": private, "public": public}
            out["anonymous"] = await ask(server, "POST", path, None)
            out["not_yours"] = await ask(server, "POST", path, other.token)
            out["not_yours_get"] = await ask(server, "GET", path, other.token)
            out["bot_seat"] = await ask(server, "POST", f"/api/games/{private}/review/3",
                                        other.token)
            out["no_seat"] = await ask(server, "POST", f"/api/games/{private}/review/5",
                                       owner.token)
            out["no_game"] = await ask(server, "POST", "/api/games/999/review/0", owner.token)
            out["not_started"] = await ask(server, "GET", path, owner.token)
            out["started"] = await ask(server, "POST", path, owner.token)
            out["again"] = await ask(server, "POST", path, owner.token)
            out["second"] = await ask(server, "POST", f"/api/games/{public}/review/1",
                                      owner.token)
            out["done"], out["progress"] = await until_done(server, path, owner.token)
            out["cached"] = await ask(server, "POST", path, owner.token)
            # a public game: anyone logged in may review any seat
            out["public"] = await ask(server, "POST", f"/api/games/{public}/review/2",
                                      other.token)
            out["public_done"], _ = await until_done(
                server, f"/api/games/{public}/review/2", other.token)
            out["record"] = (await owner.replay(private))["record"]
            return out

        out = asyncio.run(main())
    assert out["anonymous"].status_code == 401
    assert out["anonymous"].json()["error"]["code"] == "login_required"
    for key in ("not_yours", "not_yours_get", "bot_seat"):
        assert out[key].status_code == 403, key
        assert out[key].json()["error"]["code"] == "not_your_seat"
        assert "only the seats you played" in out[key].json()["error"]["message"]
    assert out["no_seat"].status_code == 404 and out["no_game"].status_code == 404
    assert out["not_started"].status_code == 404
    assert out["not_started"].json()["error"]["code"] == "not_started"
    assert out["started"].status_code == 202 and out["started"].json()["status"] == "running"
    assert out["again"].status_code == 202           # the same job, not a second one
    assert out["second"].status_code == 429
    assert out["second"].json()["error"]["code"] == "too_many_reviews"
    review = out["done"]["review"]
    total = review["total"]
    assert total > 0 and review["reviewed"] == total and not review["partial"]
    assert all(done <= t == total for done, t in out["progress"])
    assert len(review["series"]) == total
    assert out["cached"].status_code == 200 and out["cached"].json()["review"] == review
    # the stored review is the one the terminal computes from the same record and budget
    local = review_record(out["record"], 0, ReviewSettings(playouts=40, cpu_seconds=90.0))
    assert local.to_dict()["decisions"] == review["decisions"]
    assert bh.Game.from_record(out["record"]).result.scores[0] == review["final_score"]  # type: ignore[union-attr]
    assert out["public"].status_code == 202
    assert out["public_done"]["review"]["seat"] == 2


def test_a_game_still_being_played_is_not_reviewed(tmp_path: Path) -> None:
    with running_server("sqlite", tmp_path, *FAST) as server:
        async def main() -> httpx.Response:
            (player,) = await guests(server.url, 1, "ip")
            table = await player.create_table(timeout=600, bots=BOTS)
            playing = asyncio.create_task(player.play(table["id"], None))
            for _ in range(600):          # the game is dealt: game 1 exists
                answer = await ask(server, "POST", "/api/games/1/review/0", player.token)
                if answer.status_code != 404:
                    break
                await asyncio.sleep(0.05)
            playing.cancel()
            return answer

        answer = asyncio.run(main())
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "not_finished"
    assert "is still being played" in answer.json()["error"]["message"]
