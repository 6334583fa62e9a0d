"""Buraco as an OpenSpiel game, ``python_buraco``: importing this module registers it.

Needs OpenSpiel (``pip install 'buraco-rules[openspiel]'``). Actions are the 96 tokens of
:mod:`buraco_rules.rl.encoding`, one per step (a single legal token is a step too); the deal is
explicit chance, 108 steps over the 53 card faces, each face weighted by its copies left, building
the deck that ``br.new_game(deck=...)`` deals. The game is zero-sum between the two teams:
``returns()[seat]`` is ``reward_scale`` times the seat's team's total less the other team's, paid
when the hand ends, and a hand cut at ``max_turns`` turns (of any seat) ends there, scored as it
stands.

>>> import pyspiel
>>> from buraco_rules.rl import openspiel
>>> game = pyspiel.load_game(openspiel.GAME_NAME, {"variant": "italian", "players": 2})
>>> game.num_distinct_actions(), game.max_chance_outcomes(), game.num_players()
(96, 53, 2)
>>> state = game.new_initial_state()
>>> while state.is_chance_node():
...     state.apply_action(state.chance_outcomes()[0][0])
>>> state.engine_state.hands[0][:3]
(Card('AC'), Card('AC'), Card('2C'))
>>> [state.action_to_string(a) for a in state.legal_actions()]
['draw', 'take']
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs
import numpy as np
import numpy.typing as npt
import pyspiel

from .. import variants
from ..core.cards import DECK, all_cards
from ..core.rules import DECK_SIZE, RuleSet
from ..engine.state import TEAM, GameState
from ..hidden.determinize import determinize
from ..hidden.views import PlayerView, view
from ..play.face import new_game
from ._position import IllegalToken, Position, max_tokens_per_turn, token_name, utility_bound
from .encoding import NUM_TOKENS, is_complete, legal_tokens
from .observation import LAYOUT, OBSERVATION_SIZE, _write_prefix, encode

__all__ = [
    "DEFAULTS",
    "GAME_NAME",
    "GAME_TYPE",
    "BuracoGame",
    "BuracoObserver",
    "BuracoState",
    "from_engine_state",
    "max_tokens_per_turn",
    "utility_bound",
]

GAME_NAME: Final = "python_buraco"
"""The name the game is registered under: ``pyspiel.load_game("python_buraco")``."""
DEFAULTS: Final = {
    "variant": "buraco-fechado",
    "players": 2,
    "max_turns": 300,
    "reward_scale": 1.0,
    "first_player": 0,
}
"""The parameters and their defaults."""

GAME_TYPE: Final = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Buraco (buraco-rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)
"""The game's type: sequential, explicit chance, imperfect information, zero-sum, terminal
rewards; information states as strings only (a perfect-recall history has no exact tensor of a
fixed size)."""

_FACES: Final = all_cards()
_COPIES: Final = tuple(DECK.count(c) for c in _FACES)


@attrs.frozen
class _Config:
    """The game's parameters, checked (shared by every state: never copied)."""

    rules: RuleSet
    players: int
    max_turns: int
    reward_scale: float
    first_player: int

    def __deepcopy__(self, memo: object) -> _Config:
        return self


@attrs.frozen(eq=False)
class _Recall:
    """One link of the hand's history as the seats observe it: the end of the deal (``previous``
    None) or an action completed by ``actor`` (its ``tokens``), with the engine state after it.
    A seat's perfect-recall information state is a digest of the links up to the last one (what
    it saw after each action, and the action, all public but a draw's card, which only the view
    of the seat that drew shows) and its observation now; :meth:`digest` works it out the first
    time it is asked and keeps it."""

    previous: _Recall | None
    engine: GameState
    actor: int = -1
    tokens: tuple[int, ...] = ()
    own_deal: tuple[tuple[int, ...], ...] = ()
    """At the end of the deal: by seat, the faces dealt to it, in the order dealt."""
    digests: dict[int, bytes] = attrs.field(factory=dict, repr=False)
    """By seat, the digest once worked out (a memo: the link stays as it was)."""

    def __deepcopy__(self, memo: object) -> _Recall:
        return self

    def digest(self, seat: int) -> bytes:
        """The digest of what ``seat`` observed up to and including this link."""
        pending: list[_Recall] = []
        link: _Recall | None = self
        while link is not None and seat not in link.digests:
            pending.append(link)
            link = link.previous
        for link in reversed(pending):
            hasher = hashlib.blake2b(digest_size=16)
            if link.previous is None:
                own = link.own_deal[seat] if link.own_deal else ()
                hasher.update(f"dealt to me {own}".encode())
            else:
                hasher.update(link.previous.digests[seat])
                hasher.update(f"{link.actor} played {link.tokens}".encode())
            hasher.update(repr(view(link.engine, seat)).encode())
            link.digests[seat] = hasher.digest()
        return self.digests[seat]


@attrs.frozen
class _Node:
    """Everything a state holds, immutable: ``Clone()`` deep-copies a Python state's attributes,
    and this one is shared instead of copied (the engine state never changes)."""

    dealt: tuple[int, ...] = ()
    """The faces dealt so far, while the deal lasts."""
    position: Position | None = None
    """The hand once dealt."""
    recall: _Recall | None = None
    """The history's last link, once dealt."""
    player: int = attrs.field(init=False, eq=False, repr=False)
    """The seat to act, ``CHANCE`` or ``TERMINAL``: worked out once, as OpenSpiel asks for it
    several times a step (``legal_actions``, ``apply_action``, ``is_terminal`` each ask)."""

    def __attrs_post_init__(self) -> None:
        position = self.position
        if position is None:
            player = int(pyspiel.PlayerId.CHANCE)
        elif position.over:
            player = int(pyspiel.PlayerId.TERMINAL)
        else:
            player = position.engine.current_player
        object.__setattr__(self, "player", player)

    def __deepcopy__(self, memo: object) -> _Node:
        return self


def _config(params: dict[str, Any]) -> _Config:
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(
            f"{GAME_NAME} has no parameter {unknown[0]!r}; it takes {sorted(DEFAULTS)}"
        )
    merged = {**DEFAULTS, **params}
    rules = variants.get(merged["variant"])  # ValueError naming the variants
    players = merged["players"]
    if type(players) is not int or players not in rules.player_counts:
        counts = " or ".join(map(str, rules.player_counts))
        raise ValueError(f"{rules.title} is played by {counts} players, not {players!r} (R1)")
    max_turns = merged["max_turns"]
    if type(max_turns) is not int or max_turns < 1:
        raise ValueError(f"max_turns must be an int from 1, not {max_turns!r}")
    scale = merged["reward_scale"]
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not math.isfinite(scale):
        raise ValueError(f"reward_scale must be a positive number, not {scale!r}")
    if scale <= 0:
        raise ValueError(f"reward_scale must be a positive number, not {scale!r}")
    first = merged["first_player"]
    if type(first) is not int or not 0 <= first < players:
        raise ValueError(f"first_player must be a seat from 0 to {players - 1}, not {first!r}")
    return _Config(rules, players, max_turns, float(scale), first)


class BuracoGame(pyspiel.Game):  # type: ignore[misc]
    """The game; load it with ``pyspiel.load_game("python_buraco", {...})`` (see
    :data:`DEFAULTS`). Bad parameters are a ``ValueError``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        config = _config(dict(params or {}))
        bound = utility_bound(config.rules) * config.reward_scale
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_TOKENS,
            max_chance_outcomes=len(_FACES),
            num_players=config.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=config.max_turns * max_tokens_per_turn(),
        )
        super().__init__(GAME_TYPE, info, {**DEFAULTS, **(params or {})})
        self.config = config

    def max_chance_nodes_in_history(self) -> int:
        """The deal: 108 chance steps, and none after it."""
        return DECK_SIZE

    def new_initial_state(self, *args: object) -> BuracoState:
        """The state before the deal."""
        return BuracoState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> BuracoObserver:
        """The observer of views (:class:`BuracoObserver`) for ``iig_obs_type``."""
        return BuracoObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class BuracoState(pyspiel.State):  # type: ignore[misc]
    """A state: the deal in progress, or an engine state and the tokens of the action being
    spelt."""

    def __init__(self, game: BuracoGame) -> None:
        super().__init__(game)
        self._config: _Config = game.config
        self._node = _Node()

    @property
    def position(self) -> Position | None:
        """The hand as the adapters step it (None while the deal lasts)."""
        return self._node.position

    @property
    def engine_state(self) -> GameState | None:
        """The engine's state (None while the deal lasts)."""
        position = self._node.position
        return None if position is None else position.engine

    @property
    def pending_tokens(self) -> tuple[int, ...]:
        """The tokens of the action the seat to act is spelling."""
        position = self._node.position
        return () if position is None else position.pending

    @property
    def is_truncated(self) -> bool:
        """True when the hand was cut at ``max_turns`` (and so is terminal)."""
        position = self._node.position
        return position is not None and position.truncated

    @property
    def turns(self) -> int:
        """Turns played so far, of any seat (a turn ends when the seat to act changes)."""
        position = self._node.position
        return 0 if position is None else position.turns

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` during the deal or ``TERMINAL``."""
        return self._node.player

    def _legal_actions(self, player: int) -> list[int]:
        position = self._node.position
        if position is None or player != position.engine.current_player:
            return []
        return list(position.legal())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The faces still in the deck, each with the chance of its copies left."""
        dealt = Counter(self._node.dealt)
        left = DECK_SIZE - len(self._node.dealt)
        return [
            (face, (copies - dealt[face]) / left)
            for face, copies in enumerate(_COPIES)
            if copies > dealt[face]
        ]

    def _apply_action(self, action: int) -> None:
        node = self._node
        config = self._config
        if node.position is None:
            face = int(action)
            dealt = (*node.dealt, face)
            if not 0 <= face < len(_FACES) or dealt.count(face) > _COPIES[face]:
                raise ValueError(f"no copy of face {face} is left to deal")
            if len(dealt) < DECK_SIZE:
                self._node = _Node(dealt=dealt)
                return
            deck = [_FACES[f] for f in dealt]
            engine = new_game(
                config.rules, config.players, deck=deck, first_player=config.first_player
            )
            own = tuple(
                tuple(dealt[i] for i in _hand_positions(config, seat))
                for seat in range(config.players)
            )
            self._node = _Node(
                position=Position(engine), recall=_Recall(None, engine, own_deal=own)
            )
            return
        before = node.position
        try:
            after = before.step(int(action), config.max_turns)
        except IllegalToken as error:
            raise ValueError(str(error)) from None
        recall = node.recall
        if after.engine is not before.engine:  # an action was completed
            tokens = (*before.pending, int(action))
            recall = _Recall(recall, after.engine, before.engine.current_player, tokens)
        self._node = _Node(position=after, recall=recall)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {_FACES[int(action)]}"
        return token_name(int(action))

    def is_terminal(self) -> bool:
        """The hand is over, or was cut at ``max_turns``."""
        position = self._node.position
        return position is not None and position.over

    def returns(self) -> list[float]:
        """By seat, ``reward_scale`` × (own team's total − the other team's); zeros until the
        end."""
        config = self._config
        position = self._node.position
        if position is None or not position.over:
            return [0.0] * config.players
        diff = position.team_difference() * config.reward_scale
        return [diff if TEAM[seat] == 0 else -diff for seat in range(config.players)]

    def rewards(self) -> list[float]:
        """Rewards come at the end only: the returns there, zeros before."""
        return self.returns()

    def resample_from_infostate(self, player: int, sampler: Callable[[], float]) -> BuracoState:
        """A state with the same information state for ``player``: the cards ``player`` cannot
        see dealt again at random, drawn from a ``random.Random`` seeded by ``sampler()``.

        During the deal, the faces dealt to the others so far are drawn again from what
        ``player`` has not been dealt and the state is dealt anew with them: its history is a
        true one. After the deal the hidden cards are re-dealt with ``br.determinize`` (so they
        agree with ``player``'s view now) in a clone, which keeps the history and move number of
        this state (its chance outcomes are then the deal as it was, not the re-dealt one) and
        ``player``'s record of it; the tokens another seat is spelling, which ``player`` cannot
        see, are dropped."""
        rng = random.Random(int(float(sampler()) * 2**53))
        node = self._node
        position = node.position
        if position is None:
            dealt = BuracoState(self.get_game())
            for face in _redeal(node.dealt, self._config, player, rng):
                dealt.apply_action(face)
            return dealt
        clone: BuracoState = self.clone()
        engine = determinize(view(position.engine, player), rng)
        pending = position.pending if position.engine.current_player == player else ()
        recall = node.recall
        kept = {} if recall is None else {player: recall.digest(player)}
        clone._node = _Node(
            position=attrs.evolve(position, engine=engine, pending=pending),
            recall=_Recall(None, engine, digests=kept),
        )
        return clone

    def __str__(self) -> str:
        node = self._node
        if node.position is None:
            return "deal: " + " ".join(str(_FACES[f]) for f in node.dealt)
        return _describe(node.position)


def _describe(position: Position) -> str:
    state = position.engine
    lines = [
        f"{state.rules.name} {state.players}p, turn {position.turns}, seat "
        f"{state.current_player} to act, phase {state.phase.value}"
        + (", truncated" if position.truncated else ""),
    ]
    lines += [f"hand {s}: {' '.join(map(str, h))}" for s, h in enumerate(state.hands)]
    lines.append("stock: " + " ".join(map(str, state.stock)))
    lines.append("pile: " + " ".join(map(str, state.discard_pile)))
    for team in (0, 1):
        lines.append(f"melds {team}: " + " | ".join(str(m) for m in state.melds[team]))
        extra = state.extra_piles[team]
        lines.append(f"extra {team}: " + ("-" if extra is None else " ".join(map(str, extra))))
    lines.append(
        f"extra taken {state.extra_pile_taken}, untouched {state.untouched_extra_pile}, "
        f"single {state.taken_single_card}, went out {state.went_out}"
    )
    lines.append("pending: " + " ".join(token_name(t) for t in position.pending))
    return "\n".join(lines)


def _hand_positions(config: _Config, player: int) -> range:
    """Where ``player``'s hand lies in the deal order (``br.new_game``)."""
    size = config.rules.hand_size
    return range(player * size, (player + 1) * size)


def _redeal(
    dealt: tuple[int, ...], config: _Config, player: int, rng: random.Random
) -> tuple[int, ...]:
    """The faces dealt so far, those of other places replaced by a random draw from what
    ``player`` has not seen (the deck less its own cards)."""
    own = _hand_positions(config, player)
    left = Counter({face: n for face, n in enumerate(_COPIES)})
    left.subtract(dealt[i] for i in own if i < len(dealt))
    pool = list(left.elements())
    rng.shuffle(pool)
    out = []
    for i, face in enumerate(dealt):
        out.append(face if i in own else pool.pop())
    return tuple(out)


def from_engine_state(
    game: BuracoGame, engine_state: GameState, pending: Sequence[int] = ()
) -> BuracoState:
    """A state of ``game`` at ``engine_state`` (its rules and players must be the game's), with
    the tokens ``pending`` spelt (they must lead toward a legal action). Its history is empty,
    and its seats' records of the hand start there."""
    config: _Config = game.config
    if type(engine_state) is not GameState:
        raise TypeError(f"expected a GameState, not {type(engine_state).__name__}")
    if engine_state.rules != config.rules or engine_state.players != config.players:
        raise ValueError("the engine state is not of this game's rules and players")
    tokens = tuple(int(t) for t in pending)
    for k in range(len(tokens)):
        if tokens[k] not in legal_tokens(engine_state, tokens[:k]):
            raise ValueError(
                f"the pending tokens lead to no legal action at {token_name(tokens[k])}"
            )
    if tokens and is_complete(tokens):
        raise ValueError("the pending tokens spell a whole action: apply it instead")
    state = game.new_initial_state()
    state._node = _Node(position=Position(engine_state, tokens), recall=_Recall(None, engine_state))
    return state


# The observer -------------------------------------------------------------------------------

_EXTRA: Final = 2
"""Numbers the observer adds after the observation of the view: the deal's progress and the turns
played ÷ ``max_turns``."""
_PRIVATE: Final = (LAYOUT["hand"].slice, LAYOUT["prefix"].slice)


class BuracoObserver:
    """OpenSpiel's observer of a state for a player, built from that seat's
    :class:`~buraco_rules.PlayerView` (:func:`buraco_rules.rl.observation.encode`): the tensor is
    the view's observation followed by the deal's progress (dealt ÷ 108) and the turns played ÷
    ``max_turns``, the string a text of the same. The prefix of the action being spelt is the
    acting seat's alone. Private information is the seat's hand and prefix; an observer of public
    information only leaves them out.

    With ``perfect_recall`` (information states) it gives strings only: the seat's whole record of
    the hand, a digest of what it observed after every action (and, during the deal, the faces
    dealt to it in order) followed by its observation now. Two histories give the same string
    exactly when the seat observed the same things in the same order (but for a 128-bit digest's
    collisions), so tabular algorithms keep information sets apart; no tensor of a fixed size
    could hold that record, so none is offered (``provides_information_state_tensor`` is
    False)."""

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"the Buraco observer takes no parameters, not {params!r}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("no Buraco observation shows every player's private cards")
        self._private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._public = bool(iig_obs_type.public_info)
        self._recall = bool(iig_obs_type.perfect_recall)
        if self._recall and not (self._private and self._public):
            raise ValueError("a perfect-recall record is of a seat's own and public information")
        self.tensor = np.zeros(0 if self._recall else OBSERVATION_SIZE + _EXTRA, np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        if not self._recall:
            self.dict = {name: self.tensor[f.slice] for name, f in LAYOUT.items()}
            self.dict["progress"] = self.tensor[OBSERVATION_SIZE:]
        self._kept: dict[int, tuple[GameState, npt.NDArray[np.float32]]] = {}
        """By seat, the last engine state observed and its observation without a prefix."""

    def _seen(self, state: BuracoState, player: int) -> tuple[PlayerView | None, tuple[int, ...]]:
        position = state._node.position
        if position is None:
            return None, ()
        pending = position.pending if position.engine.current_player == player else ()
        return view(position.engine, player), pending

    def set_from(self, state: BuracoState, player: int) -> None:
        """Fill :attr:`tensor` with ``state`` as ``player`` observes it (in place: :attr:`dict`
        holds views of it). A perfect-recall observer has no tensor: a ``ValueError``."""
        if self._recall:
            raise ValueError("a perfect-recall information state has no tensor, only a string")
        node = state._node
        tensor = self.tensor
        position = node.position
        if position is None:
            tensor.fill(0.0)
            if not node.dealt:  # OpenSpiel asks about a new state for every tensor's shape
                return
            hand = [
                node.dealt[i] for i in _hand_positions(state._config, player) if i < len(node.dealt)
            ]
            if self._private:
                counts = np.bincount(np.asarray(hand, dtype=np.intp), minlength=53)
                tensor[LAYOUT["hand"].slice] = counts / np.asarray(_COPIES, np.float32)
            tensor[OBSERVATION_SIZE] = len(node.dealt) / DECK_SIZE
            return
        engine = position.engine
        kept = self._kept.get(player)
        if kept is None or kept[0] is not engine:
            # While a seat spells an action the engine state stays: only the prefix changes.
            kept = (engine, encode(view(engine, player)))
            self._kept[player] = kept
        tensor[:OBSERVATION_SIZE] = kept[1]
        if engine.current_player == player and position.pending and self._private:
            _write_prefix(tensor, position.pending)
        if not self._private:
            tensor[_PRIVATE[0]] = 0.0
        if not self._public:
            private = tensor[_PRIVATE[0]].copy(), tensor[_PRIVATE[1]].copy()
            tensor.fill(0.0)
            tensor[_PRIVATE[0]], tensor[_PRIVATE[1]] = private
            return
        tensor[OBSERVATION_SIZE] = 1.0
        tensor[OBSERVATION_SIZE + 1] = min(1.0, position.turns / state._config.max_turns)

    def string_from(self, state: BuracoState, player: int) -> str:
        """``state`` as ``player`` observes it, as text (with ``perfect_recall``, after the
        digest of its record of the hand)."""
        node = state._node
        text = self._observed(state, player)
        if not self._recall:
            return text
        if node.recall is None:  # the deal: the faces dealt to the seat, in the order dealt
            own = [
                node.dealt[i] for i in _hand_positions(state._config, player) if i < len(node.dealt)
            ]
            return f"{text} | dealt in order " + " ".join(str(_FACES[f]) for f in own)
        return f"record {node.recall.digest(player).hex()} | {text}"

    def _observed(self, state: BuracoState, player: int) -> str:
        node = state._node
        seen, pending = self._seen(state, player)
        if seen is None:
            parts = [f"p{player}", f"dealt {len(node.dealt)}"]
            if self._private:
                hand = sorted(
                    node.dealt[i]
                    for i in _hand_positions(state._config, player)
                    if i < len(node.dealt)
                )
                parts.append("hand " + " ".join(str(_FACES[f]) for f in hand))
            return " | ".join(parts)
        parts = [f"p{player}"]
        if self._private:
            parts.append("hand " + " ".join(map(str, seen.hand)))
            parts.append("spelling " + " ".join(token_name(t) for t in pending))
        if self._public:
            parts += _public_text(seen, state.turns)
        return " | ".join(parts)


def _public_text(seen: PlayerView, turns: int) -> list[str]:
    melds = [" / ".join(str(m) for m in team) for team in seen.melds]
    return [
        f"turn {turns}",
        f"to act {seen.current_player} ({seen.phase.value})",
        f"hands {seen.hand_sizes}",
        f"stock {seen.stock_size}",
        f"pile {seen.discard_pile_size}: " + " ".join(map(str, seen.discard_pile)),
        f"melds 0: {melds[0]}",
        f"melds 1: {melds[1]}",
        f"extra {seen.extra_pile_sizes} taken {seen.extra_pile_taken} "
        f"untouched {seen.untouched_extra_pile}",
        f"single {seen.taken_single_card} out {seen.went_out}",
    ]


pyspiel.register_game(GAME_TYPE, BuracoGame)
