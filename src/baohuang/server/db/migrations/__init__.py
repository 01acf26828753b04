"""Alembic migrations of the server database, applied by ``baohuang serve`` on start
(:func:`baohuang.server.db.storage.migrate`).  To write a new one by hand, copy the latest
file in ``versions/`` and set ``down_revision`` to its ``revision``."""
