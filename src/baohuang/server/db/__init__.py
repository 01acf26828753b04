"""Storage: the database tables (:mod:`.models`), the :class:`~.storage.Storage` the
server reads and writes through (:mod:`.storage`, with its SQLite paths in
:mod:`.storage_sqlite`) and the Alembic migrations (``migrations/``)."""
