"""Who sits at a 亲友圈 (club) table: its club's members only; anyone else may watch
if the club lets them (``clubs.watchers``), and is refused with a clear error if not
(docs/protocol.md §2 Clubs).  Read from the database at each join and sit, so that a
member removed a moment ago sits no more, on every node."""

from __future__ import annotations

from ..db.storage import Storage

__all__ = ["club_refusal", "is_member"]


async def is_member(storage: Storage, club_id: int, user_id: int) -> bool:
    """Whether ``user_id`` is a member of the club (of any role; not one still waiting
    for approval)."""
    role = await storage.club_role(club_id, user_id)
    return role is not None and role != "pending"


async def club_refusal(storage: Storage, club_id: int, *, sitting: bool
                       ) -> tuple[str, str] | None:
    """The error ``(code, message)`` for someone who is not a member of the club and
    asks to sit (``sitting``) or to watch; None when he may (watch)."""
    if sitting:
        return ("not_member", "only the club's members sit at its tables: join the club "
                "with its invitation code first")
    club = await storage.club(club_id)
    if club is not None and club["watchers"]:
        return None
    return ("not_member", "this club's tables are for its members only")
