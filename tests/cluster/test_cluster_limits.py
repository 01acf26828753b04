"""Login limits shared by the nodes of a cluster: counted in the cluster's Redis, so that
N nodes do not allow N times as many tries (SECURITY.md, docs/cluster.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from baohuang.server.accounts.accounts import AccountError, Accounts
from baohuang.server.cluster.services import RedisServer
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.harness import ServerThread


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


def test_the_tables_a_user_may_own_are_counted_on_every_node(redis_server: RedisServer,
                                                             tmp_path: Path) -> None:
    """Two nodes on one database and one Redis: the tables a user made on one node count
    when he makes another on the other node (``tables_per_user``)."""
    db_url = f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}"

    def node(name: str) -> ServerThread:
        return ServerThread(ServerConfig(db_url=db_url, redis_url=redis_server.url,
                                         node=name, tables_per_user=2))

    with node("one") as one, node("two") as two:
        token = httpx.post(one.url + "/api/guest", json={"name": "owner"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        made = [httpx.post(one.url + "/api/tables", json={}, headers=auth).status_code
                for _ in range(2)]
        refused = httpx.post(two.url + "/api/tables", json={}, headers=auth)
        assert made == [201, 201]
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "too_many_tables"


def test_accounts_and_tables_made_per_address_are_counted_on_every_node(
        redis_server: RedisServer, tmp_path: Path) -> None:
    """Two nodes on one database and one Redis: the guests and tables one client
    address made on one node count on the other (``account_rate_address``,
    ``table_rate_address``), so that a balancer spreading its requests over N nodes
    does not give it N times as many."""
    db_url = f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}"

    def node(name: str) -> ServerThread:
        return ServerThread(ServerConfig(db_url=db_url, redis_url=redis_server.url,
                                         node=name, account_rate_address="2/minute",
                                         table_rate_address="3/minute"))

    def guest(url: str, name: str) -> httpx.Response:
        return httpx.post(url + "/api/guest", json={"name": name},
                          headers={"X-Forwarded-For": "203.0.113.50"})

    with node("one") as one, node("two") as two:
        made = [guest(one.url, "first"), guest(two.url, "second")]
        assert [r.status_code for r in made] == [200, 200]
        refused = guest(one.url, "third")
        assert (refused.status_code, refused.json()["error"]["code"]) == (429, "rate_limited")
        assert guest(two.url, "fourth").status_code == 429
        answers = []
        for url, response in ((one.url, made[0]), (two.url, made[1]), (one.url, made[1]),
                              (two.url, made[0])):
            answers.append(httpx.post(url + "/api/tables", json={}, headers={
                "Authorization": f"Bearer {response.json()['token']}",
                "X-Forwarded-For": "203.0.113.50"}).status_code)
        assert answers == [201, 201, 201, 429]


def test_a_private_table_on_another_node_is_found_by_its_code_only(
        redis_server: RedisServer, tmp_path: Path) -> None:
    """A private table runs on node one; on node two (from the cluster's directory)
    its id finds it for its owner only, its code for anyone, and the code lookups a
    client address makes on either node count together."""
    db_url = f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}"

    def node(name: str) -> ServerThread:
        return ServerThread(ServerConfig(db_url=db_url, redis_url=redis_server.url,
                                         node=name, code_rate_address="3/minute"))

    def auth(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}", "X-Forwarded-For": "203.0.113.60"}

    with node("one") as one, node("two") as two:
        owner = httpx.post(one.url + "/api/guest", json={"name": "host"}).json()["token"]
        other = httpx.post(two.url + "/api/guest", json={"name": "other"}).json()["token"]
        made = httpx.post(one.url + "/api/tables", json={"private": True},
                          headers={"Authorization": f"Bearer {owner}"}).json()
        by_id = f"/api/tables/{made['id']}"
        assert httpx.get(two.url + by_id, headers=auth(other)).status_code == 404
        mine = httpx.get(two.url + by_id, headers=auth(owner))
        assert mine.status_code == 200 and mine.json()["code"] == made["code"]
        by_code = f"/api/tables/{made['code']}"
        answers = [httpx.get(url + by_code, headers=auth(other)).status_code
                   for url in (two.url, one.url, two.url, one.url)]
        assert answers == [200, 200, 200, 429]
