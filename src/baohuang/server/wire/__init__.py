"""The wire format: client and server messages (:mod:`.protocol`), what a seat or a
watcher is sent of a game (:mod:`.render`) and the replay of a stored game
(:mod:`.replay`)."""
