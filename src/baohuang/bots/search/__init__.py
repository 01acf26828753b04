"""The search bot and what it searches with: :mod:`.search` (the bot: determinized
Monte Carlo search over sampled deals), :mod:`.sampler` (deals consistent with what a
seat has seen) and :mod:`.rollout` (fast playouts on rank counts)."""
