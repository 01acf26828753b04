"""Storage: the database tables (:mod:`.models`), the :class:`~.storage.Storage` the
server reads and writes through (:mod:`.storage`: made of :mod:`.action_log`,
:mod:`.users` and :mod:`.games` on :mod:`.database`, with its SQLite paths in
:mod:`.storage_sqlite`) and the Alembic migrations (``migrations/``)."""
