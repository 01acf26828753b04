"""The rules engine: pure and deterministic, no I/O and no clocks.

``Game.new`` deals, ``Game.legal_actions`` / ``Game.apply`` are the only way a
game changes, and ``Game.view(seat)`` is the only way information leaves it.
One module per part of the rules (docs/rules.md): cards and notation (§2),
plays and beating (§3), rule options and presets (§4, §5), the role phase
(§6), the play phase (§7), scoring and tribute (§8, §9), matches; and the
events and views that carry what each seat may see.
"""
