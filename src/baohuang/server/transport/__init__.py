"""The transport: the Starlette app (:mod:`.app`), HTTP routes (:mod:`.api`), the
WebSocket endpoint (:mod:`.ws`) and its connections (:mod:`.connection`, with the
batched writes of :mod:`.wsbatch`), and what they share (:mod:`.state`)."""
