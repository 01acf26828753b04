"""Accounts: users, guests and sessions (:mod:`.accounts`), ratings (:mod:`.rating`)
and levels (:mod:`.levels`)."""
