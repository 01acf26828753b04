"""每日挑战, the daily duplicate challenge (docs/challenge.md): each day a few deals
from a secret seed, each with a fixed seat against four bots of a fixed level; every
player plays each deal once, and is scored against everyone else who played it.

- :mod:`.days`: the calendar, the deals a day's seed makes, matchpoints and ranking
  (pure);
- :mod:`.store`: the days and attempts as stored;
- :mod:`.service`: starting or resuming a deal at a server table, and the results;
- :mod:`.api`: the HTTP routes (docs/protocol.md §2).
"""
