"""Alembic environment.  :func:`baohuang.server.db.storage.migrate` hands in an open
connection (``config.attributes["connection"]``); run from the ``alembic`` command it
connects to ``sqlalchemy.url`` itself."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import async_engine_from_config

from baohuang.server.db.models import metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


async def _run_from_url() -> None:
    config = context.config
    engine = async_engine_from_config(config.get_section(config.config_ini_section, {}),
                                      prefix="sqlalchemy.", poolclass=pool.NullPool)
    async with engine.connect() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        asyncio.run(_run_from_url())


if hasattr(context, "config"):  # imported by Alembic, not by a doctest run
    main()
