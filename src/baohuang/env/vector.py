"""Many games stepped as one batch: :class:`VectorEnv` (``n`` games, one decision each
per step, observations and masks stacked as ``[n, 485]`` and ``[n, 29379]`` arrays).

>>> import numpy as np
>>> from baohuang.env import VectorEnv
>>> envs = VectorEnv(4, preset="shandong")
>>> obs, info = envs.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].shape
((4, 485), (4, 29379))
>>> rng = np.random.default_rng(0)
>>> for _ in range(100):
...     actions = [rng.choice(legal) for legal in envs.legal_indexes()]
...     obs, rewards, terminations, truncations, info = envs.step(actions)
>>> rewards.shape, int(info["to_act"][0]) in range(5)
((4, 5), True)

Each game's observation and mask are those of its seat to act (``info["to_act"]``),
exactly what the PettingZoo environment's ``observe`` gives that seat (the same
numbers, the same layout: ``docs/rl.md``), and a game reset with ``seed + i`` is the
PettingZoo environment reset with that seed.  One step is one decision in each game.

A step makes no ``View``: :class:`ValuesEncoder` reads the view's values
(``Game.view_values``: the public fields and the seat's own) and the plays and passes
from the actions it applies (every seat sees each of them), and the mask is changed
only where the legal actions were and are.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector.utils import batch_space

import baohuang as bh
from baohuang.engine.views import OWN_FIELDS, PUBLIC_FIELDS

from .actions import N_ACTIONS, ActionEncoder, IllegalActionIndex, decode, reveal_card_of
from .observation import (
    _B_CALLED,
    _B_CANDIDATE,
    _B_DEALER,
    _B_EMPEROR,
    _B_GUARD,
    _B_GUARD_OPEN,
    _B_HAND,
    _B_HAND_END,
    _B_HIST_SEATS,
    _B_HISTORY,
    _B_HISTORY_END,
    _B_KICKS,
    _B_LAST_CARDS,
    _B_LAST_CARDS_END,
    _B_LAST_SEAT,
    _B_LEADER,
    _B_LEFT,
    _B_OUT,
    _B_PLAYED,
    _B_PLAYED_END,
    _B_REBELS,
    _B_ROLE,
    _B_RULES,
    _B_RULES_END,
    _B_SIZES,
    _B_SOLO,
    _B_STAGE,
    _B_TO_ACT,
    _NBYTES,
    _ONE,
    _PASS_ROW,
    _REL4,
    _SUIT_OF,
    _ZERO_ROW,
    HISTORY,
    OBS_HIGH,
    OBS_SIZE,
    SLOTS,
    ObservationEncoder,
    Vector,
    _pack2,
    _pack5,
    _rules_vector,
    _seat_block,
)
from .pettingzoo_env import make_rules

__all__ = ["ValuesEncoder", "VectorEnv"]

_public_parts: Final = itemgetter(*(PUBLIC_FIELDS.index(name) for name in (
    "stage", "dealer", "rules", "hand_counts", "candidate", "emperor", "called", "guard_open",
    "rebels", "kicks", "stake", "leader", "last_play", "out", "left")))
_own_parts: Final = itemgetter(*(OWN_FIELDS.index(name) for name in (
    "seat", "to_act", "hand", "guard", "role", "solo", "legal_actions")))
_reveal_parts: Final = itemgetter(*(PUBLIC_FIELDS.index(name) for name in (
    "stage", "guard_open", "rebels", "rules", "called")))
_GUARD: Final = OWN_FIELDS.index("guard")
_SOLO: Final = OWN_FIELDS.index("solo")
_PLAY: Final = bh.ActionKind.PLAY
_PASS: Final = bh.ActionKind.PASS
_ASK: Final = bh.ActionKind.ASK_LEAD
_NEVER: Final = object()
_ZERO1: Final = bytes(4)
_ZERO5: Final = bytes(20)
_ROW: Final = 4 * (5 + 1 + SLOTS)
_HIST_CUT: Final = 4 * HISTORY * (5 + 1 + SLOTS) - _ROW


#: per play (its cards): its hand-block entries and history row; its counts per slot;
#: per play (its card texts): its hand-block entries and history row
_BY_CARDS: dict[tuple[bh.Card, ...], tuple[Vector, bytes]] = {}
_COUNTS: dict[tuple[bh.Card, ...], bytes] = {}
_TEXTS: dict[tuple[str, ...], tuple[Vector, bytes]] = {}


class ValuesEncoder(ObservationEncoder):
    """:class:`~baohuang.env.observation.ObservationEncoder` fed a view's values
    (``Game.view_values``) instead of a ``View``, and told each play and pass as it is
    applied (:meth:`record`) instead of reading the view's events: the same vectors,
    for an environment that applies every action of one game itself."""

    __slots__ = ("_bufs", "_by_cards", "_made", "_plays")

    def __init__(self) -> None:
        # per play (its cards): its hand-block entries and its history row
        self._by_cards = _BY_CARDS
        super().__init__()
        # what is known of plays, shared by the encoders of a batch (never changed)
        self._counts = _COUNTS
        self._texts = _TEXTS

    def record(self, seat: int, action: bh.Action) -> None:
        """``seat`` took ``action`` (a play, pass or 接风 request shows in the history
        and the cards played; the role phase's actions do not)."""
        kind = action[0]
        if kind is _PLAY:
            cards = action[1]
            vectors = self._by_cards.get(cards)
            if vectors is None:
                if len(self._by_cards) > 50_000:
                    self._by_cards.clear()
                vectors = self._by_cards[cards] = self._play_vectors(tuple(map(str, cards)))
            played = self._played
            played[seat] += vectors[0]
            self._played_rows[seat] = played[seat, :SLOTS].tobytes()
            self._plays += 1
            self._hist = vectors[1] + self._hist[:_HIST_CUT]
        elif kind is _PASS or kind is _ASK:
            self._hist = _PASS_ROW + self._hist[:_HIST_CUT]
        else:
            return
        seats = self._hist_seats
        seats.insert(0, seat)
        if len(seats) > HISTORY:
            seats.pop()

    def reset(self) -> None:
        super().reset()
        # per observer: its observation as bytes, and what they were made of (the
        # objects compared by identity, one-hot entries by byte offset; -1: none)
        self._bufs: list[bytearray] = [bytearray(_NBYTES) for _ in range(5)]
        self._made: list[list[Any]] = [[*[_NEVER] * 12, [-1] * 11] for _ in range(5)]
        self._plays = 0

    def encode_values(self, public: tuple[Any, ...], own: tuple[Any, ...]) -> bytearray:
        """The observation (as float32 bytes) of the seat whose view has these values
        (``public``, ``own``: as ``Game.view_values`` gives them).  The bytes are the
        seat's own buffer, changed where its observation changed since it was last
        made (and written over when it is made again)."""
        (stage, dealer, rules_dict, sizes, candidate, emperor, called, guard_open, rebels,
         kicks, stake, leader, last, out, left) = _public_parts(public)
        me, to_act, hand, guard, role, solo, _ = _own_parts(own)
        buf: bytearray = self._bufs[me]
        made = self._made[me]
        rel = _REL4[me]
        data = self._hand_bytes_of(stage, hand, called, me)
        if data is not made[0]:
            buf[_B_HAND:_B_HAND_END] = made[0] = data
        if self._plays != made[1]:
            made[1] = self._plays
            rows = self._played_rows
            buf[_B_PLAYED:_B_PLAYED_END] = b"".join(rows[me:] + rows[:me])
        hist = self._hist
        one = _ONE
        if hist is not made[2]:
            buf[_B_HISTORY:_B_HISTORY_END] = made[2] = hist
            for o, seat in zip(_B_HIST_SEATS, self._hist_seats, strict=False):
                o += rel[seat]
                buf[o:o + 4] = one
        if rules_dict is not made[3]:
            made[3] = rules_dict
            buf[_B_RULES:_B_RULES_END] = _rules_vector(rules_dict).tobytes()
        if sizes is not made[4]:
            made[4] = sizes
            buf[_B_SIZES:_B_SIZES + 20] = _pack5(*sizes[me:], *sizes[:me])
        if rebels is not made[5]:
            made[5] = rebels
            buf[_B_REBELS:_B_REBELS + 20] = _seat_block(rebels, me, False)
        if left is not made[6]:
            made[6] = left
            buf[_B_LEFT:_B_LEFT + 20] = _seat_block(left, me, False)
        if out is not made[7]:
            made[7] = out
            buf[_B_OUT:_B_OUT + 20] = _seat_block(out, me, True)
        if last is not made[8]:
            made[8] = last
            buf[_B_LAST_SEAT:_B_LAST_SEAT + 20] = _ZERO5
            if last is None:
                buf[_B_LAST_CARDS:_B_LAST_CARDS_END] = _ZERO_ROW
            else:
                o = _B_LAST_SEAT + rel[last[0]]
                buf[o:o + 4] = one
                buf[_B_LAST_CARDS:_B_LAST_CARDS_END] = self._cards_bytes(last[1])
        if kicks != made[9] or stake != made[10]:
            made[9], made[10] = kicks, stake
            buf[_B_KICKS:_B_KICKS + 8] = _pack2(kicks, stake)
        # one-hot entries: the byte offset of each 1 now (-1: none), as made[12] has them,
        # worked out only when one of the values they come from changed (made[11])
        key = (stage, to_act, dealer, candidate, emperor, guard, leader, role, solo, called,
               guard_open)
        if key == made[11]:
            return buf
        made[11] = key
        offsets = [_B_STAGE[stage],
                   _B_TO_ACT + (20 if to_act is None else rel[to_act]),
                   _B_DEALER + rel[dealer],
                   -1 if candidate is None else _B_CANDIDATE + rel[candidate],
                   -1 if emperor is None else _B_EMPEROR + rel[emperor],
                   -1 if guard is None else _B_GUARD + rel[guard],
                   -1 if leader is None else _B_LEADER + rel[leader],
                   -1 if role is None else _B_ROLE[role],
                   -1 if solo is None else _B_SOLO[solo],
                   -1 if called is None or called.suit is None
                   else _B_CALLED + 4 * int(_SUIT_OF[int(called)]),
                   _B_GUARD_OPEN if guard_open else -1]
        before = made[12]
        if offsets != before:
            for was, o in zip(before, offsets, strict=True):
                if o != was:
                    if was >= 0:
                        buf[was:was + 4] = _ZERO1
                    if o >= 0:
                        buf[o:o + 4] = one
            made[12] = offsets
        return buf


class VectorEnv:
    """``n`` games of 保皇 stepped together, each at its seat to act.

    ``preset`` (or a ``bh.RuleSet``) and ``**options``: the rules, as for
    ``baohuang_v0.env``.  :meth:`reset` and :meth:`step` return the observations as
    ``{"observation": float32[n, 485], "action_mask": int8[n, 29379]}``: row ``i``
    is game ``i``'s seat to act (``info["to_act"][i]``).  These two arrays are the
    environment's own and are written over by the next step: copy what you keep.

    A game that ends is dealt again at once (its next deal seed drawn as the PettingZoo
    environment's ``reset()`` draws it): that step's row is the new game's first
    decision, ``rewards[i]`` holds the scores of the game that ended (per seat, 0
    while it goes on) and ``terminations[i]`` is True.

    ``num_envs``, ``single_observation_space``, ``single_action_space``,
    ``observation_space`` and ``action_space`` follow Gymnasium's vector conventions
    (a turn-based game of five seats is not one of its single-agent vector
    environments, so it is not a ``gymnasium.vector.VectorEnv``)."""

    def __init__(self, n: int, preset: str | bh.RuleSet = "shandong", **options: Any) -> None:
        if n < 1:
            raise ValueError("a batch has at least one game")
        self.n = n
        self.rules = make_rules(preset, **options)
        self.num_envs = n
        # the spaces, by Gymnasium's vector conventions (one game's, and the batch's)
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(low=np.zeros(OBS_SIZE, dtype=np.float32),
                                      high=OBS_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8)})
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.observations = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
        self.to_act = np.zeros(n, dtype=np.int64)
        self._obs_bytes = self.observations.data.cast("B")
        self._mask_bytes = self.masks.data.cast("B")
        self._actions = ActionEncoder()
        self._encoders = [ValuesEncoder() for _ in range(n)]
        self._rngs = [seeding.np_random(None)[0] for _ in range(n)]
        self.games: list[bh.Game] = [bh.Game.new(self.rules, 0) for _ in range(n)]
        # per game: the legal actions of its seat to act and their indexes
        self._legal: list[tuple[bh.Action, ...]] = [() for _ in range(n)]
        self._indexes: list[list[int]] = [[] for _ in range(n)]

    # -- episodes ------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[dict[str, npt.NDArray[Any]],
                                                       dict[str, Any]]:
        """Deal every game anew; with ``seed``, game ``i`` as the PettingZoo
        environment's ``reset(seed=seed + i)``."""
        for i in range(self.n):
            if seed is not None:
                self._rngs[i] = seeding.np_random(seed + i)[0]
            self._deal(i)
        self._decide()
        return self._observed(), {"to_act": self.to_act}

    def _deal(self, i: int) -> None:
        """Game ``i`` dealt anew (its first decision is made by :meth:`_decide`)."""
        self.games[i] = bh.Game.new(self.rules, int(self._rngs[i].integers(2**31)))
        self._encoders[i].reset()

    def _decide(self) -> None:
        """Every game's next decision: its seat's observation row, mask and legal
        actions."""
        obs, mask, masks = self._obs_bytes, self._mask_bytes, self.masks
        indexes_with = self._actions.indexes_with
        all_legal, all_indexes = self._legal, self._indexes
        seats = []
        for i, (game, encoder) in enumerate(zip(self.games, self._encoders, strict=True)):
            seat = game.to_act
            assert seat is not None
            public, own = game.view_values(seat)
            start = i * _NBYTES
            obs[start:start + _NBYTES] = encoder.encode_values(public, own)
            legal = own[-1]
            special = None
            if own[_GUARD] == seat:         # (only a hidden Guard's plays can show him)
                stage, guard_open, rebels, rules, called = _reveal_parts(public)
                special = reveal_card_of(seat, seat, stage, guard_open, own[_SOLO], rebels,
                                         rules, called)
            indexes = indexes_with(legal, special)
            base = i * N_ACTIONS
            for index in all_indexes[i]:
                mask[base + index] = 0
            if len(indexes) <= 32:
                for index in indexes:
                    mask[base + index] = 1
            else:
                masks[i, indexes] = 1
            all_legal[i] = legal
            all_indexes[i] = indexes
            seats.append(seat)
        self.to_act[:] = seats

    def _observed(self) -> dict[str, npt.NDArray[Any]]:
        return {"observation": self.observations, "action_mask": self.masks}

    def legal_indexes(self) -> list[list[int]]:
        """Per game, the indexes of its seat's legal actions (the 1s of its mask)."""
        return [list(indexes) for indexes in self._indexes]

    def step(self, actions: Sequence[int] | npt.NDArray[np.integer[Any]]
             ) -> tuple[dict[str, npt.NDArray[Any]], npt.NDArray[np.float32],
                        npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        """Each game's seat to act takes its action (an index of its mask).  An index
        outside its game's mask raises ``IllegalActionIndex`` naming the game, and no
        game moves."""
        chosen = actions.tolist() if isinstance(actions, np.ndarray) else list(actions)
        if len(chosen) != self.n:
            raise ValueError(f"{self.n} actions wanted (one per game), not {len(chosen)}")
        moves = []
        for i, index in enumerate(chosen):
            try:
                moves.append(self._legal[i][self._indexes[i].index(index)])
            except ValueError:
                game = self.games[i]
                try:
                    decode(int(index), game.view(game.to_act))
                except IllegalActionIndex as exc:
                    raise IllegalActionIndex(exc.index, f"game {i}: {exc}") from None
                raise
        rewards = np.zeros((self.n, 5), dtype=np.float32)
        terminations = np.zeros(self.n, dtype=np.bool_)
        for i, (game, action) in enumerate(zip(self.games, moves, strict=True)):
            seat = game.to_act
            assert seat is not None
            game.apply(action)
            if game.is_over:
                result = game.result
                assert result is not None
                rewards[i] = result.scores
                terminations[i] = True
                self._deal(i)
            else:
                self._encoders[i].record(seat, action)
        self._decide()
        return (self._observed(), rewards, terminations, np.zeros(self.n, dtype=np.bool_),
                {"to_act": self.to_act})

    def close(self) -> None:
        pass
