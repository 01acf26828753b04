"""Login limits shared by the nodes of a cluster: counted in the cluster's Redis, so that
N nodes do not allow N times as many tries (SECURITY.md, docs/cluster.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from baohuang.server.accounts.accounts import AccountError, Accounts
from baohuang.server.cluster.services import RedisServer
from baohuang.server.db.storage import open_storage


def test_login_tries_on_one_node_count_on_the_other(redis_server: RedisServer,
                                                    tmp_path: Path) -> None:
    async def main() -> list[str]:
        storage = await open_storage(f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}")
        try:
            # two nodes' accounts on the same database and the same Redis
            one, two = (Accounts(storage, per_account="3/minute", per_address="100/minute",
                                 redis_url=redis_server.url) for _ in range(2))
            await one.register("Zhao", "zhao-pass-1")
            answers = []
            for node in (one, two, one, two, one):
                try:
                    await node.login("Zhao", "wrong password", address="10.0.0.7")
                    answers.append("ok")
                except AccountError as e:
                    answers.append(e.code)
            # the right password does not help while the account's window is full, on
            # either node; another account from the same address is not limited
            for node in (one, two):
                with pytest.raises(AccountError, match="rate_limited"):
                    await node.login("Zhao", "zhao-pass-1", address="10.0.0.8")
            await two.register("Qian", "qian-pass-1")
            _, user = await one.login("Qian", "qian-pass-1", address="10.0.0.7")
            assert user.name == "Qian"
            return answers
        finally:
            await storage.close()

    assert asyncio.run(main()) == ["bad_credentials"] * 3 + ["rate_limited"] * 2


def test_a_node_alone_counts_in_its_own_memory(tmp_path: Path) -> None:
    """Without Redis (``make serve``) each process counts its own tries: a second
    process starts from nothing."""
    async def main() -> list[str]:
        storage = await open_storage(f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}")
        try:
            one, two = (Accounts(storage, per_account="1/minute") for _ in range(2))
            await one.register("Sun", "sun-pass-12")
            answers = []
            for node in (one, one, two):
                try:
                    await node.login("Sun", "wrong password")
                except AccountError as e:
                    answers.append(e.code)
            return answers
        finally:
            await storage.close()

    assert asyncio.run(main()) == ["bad_credentials", "rate_limited", "bad_credentials"]


def test_logins_go_on_limited_while_redis_is_out_of_reach(redis_server: RedisServer,
                                                          tmp_path: Path) -> None:
    """Redis stopped: a node counts the tries in its own memory — a login is still
    answered (not a server error), and still limited."""
    async def main() -> list[str]:
        storage = await open_storage(f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}")
        try:
            node = Accounts(storage, per_account="2/minute", redis_url=redis_server.url)
            await node.register("Li", "li-pass-123")
            redis_server.stop()
            answers = []
            for password in ("li-pass-123", "wrong password", "li-pass-123"):
                try:
                    _, user = await node.login("Li", password)
                    answers.append(user.name)
                except AccountError as e:
                    answers.append(e.code)
            return answers
        finally:
            await storage.close()

    assert asyncio.run(main()) == ["Li", "bad_credentials", "rate_limited"]
