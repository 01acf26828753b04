"""The transport: the Starlette app (:mod:`.app`), HTTP routes (:mod:`.api`), the
WebSocket endpoint (:mod:`.ws`) and its connections (:mod:`.connection`), and what
they share (:mod:`.state`)."""
