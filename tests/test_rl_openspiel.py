"""The OpenSpiel game ``python_buraco`` (:mod:`buraco_rules.rl.openspiel`): OpenSpiel's own
``random_sim_test`` in every variant and player count, with and without serialization; the deal as
explicit chance; zero-sum returns equal to the score difference; truncation at ``max_turns``;
resampling that keeps the information state; observers built from views; and ``Clone()`` sharing
the engine state."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.cards import DECK, all_cards
from buraco_rules.rl.encoding import DRAW, FIRST_CARD, NUM_TOKENS, legal_tokens

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")
openspiel = pytest.importorskip("buraco_rules.rl.openspiel")
from buraco_rules.rl.observation import OBSERVATION_SIZE, encode  # noqa: E402

CONFIGS = [
    ("buraco-fechado", 2),
    ("buraco-fechado", 4),
    ("canasta-stbl", 2),
    ("italian", 2),
    ("italian", 4),
    ("italian-fibur", 2),
    ("italian-fibur", 4),
]
configs = pytest.mark.parametrize(
    ("variant", "players"), CONFIGS, ids=[f"{v}-{n}p" for v, n in CONFIGS]
)
FACES = all_cards()


def load(variant: str, players: int, **params: object) -> object:
    return pyspiel.load_game(
        openspiel.GAME_NAME, {"variant": variant, "players": players, **params}
    )


def dealt(game: object, rng: random.Random) -> object:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    while state.is_chance_node():
        outcomes, weights = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, weights)[0])
    return state


def play_out(state: object, rng: random.Random, visit: object = None) -> object:
    while not state.is_terminal():  # type: ignore[attr-defined]
        if visit is not None:
            visit(state)  # type: ignore[operator]
        if state.is_chance_node():  # type: ignore[attr-defined]
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)  # type: ignore[attr-defined]
            state.apply_action(rng.choices(outcomes, weights)[0])  # type: ignore[attr-defined]
        else:
            state.apply_action(rng.choice(state.legal_actions()))  # type: ignore[attr-defined]
    return state


@configs
@pytest.mark.parametrize("serialize", [False, True], ids=["plain", "serialized"])
def test_openspiels_random_sim_test_passes(variant: str, players: int, serialize: bool) -> None:
    pyspiel.random_sim_test(load(variant, players), num_sims=1, serialize=serialize, verbose=False)


def test_random_sim_test_passes_for_truncated_hands() -> None:
    game = load("italian", 4, max_turns=12, reward_scale=0.01, first_player=3)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "params",
    [
        {"variant": "canasta-stbl", "players": 4},
        {"variant": "no-such-variant"},
        {"players": 3},
        {"max_turns": 0},
        {"reward_scale": 0.0},
        {"reward_scale": float("inf")},
        {"first_player": 2},
        {"first_player": -1},
    ],
    ids=repr,
)
def test_bad_parameters_are_a_value_error_from_load_game(params: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        pyspiel.load_game(openspiel.GAME_NAME, params)


def test_the_game_info_follows_the_parameters() -> None:
    game = load("italian", 4, max_turns=10, reward_scale=0.5)
    assert game.num_players() == 4 and game.num_distinct_actions() == NUM_TOKENS == 96
    assert game.max_chance_outcomes() == 53
    bound = openspiel.utility_bound(variants.ITALIAN) * 0.5
    assert game.max_utility() == bound and game.min_utility() == -bound
    assert game.max_game_length() == 10 * openspiel.max_tokens_per_turn()
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    default = pyspiel.load_game(openspiel.GAME_NAME)
    assert default.get_parameters() == openspiel.DEFAULTS and default.num_players() == 2
    assert game.observation_tensor_size() == OBSERVATION_SIZE + 2
    assert game.max_chance_nodes_in_history() == 108  # the deal, and no chance after it
    assert game.max_history_length() == 108 + game.max_game_length()
    kind = game.get_type()
    assert kind.provides_information_state_string and not kind.provides_information_state_tensor


def test_the_deal_is_explicit_chance_over_the_53_faces_building_new_games_deck() -> None:
    game = load("buraco-fechado", 4, first_player=2)
    state = game.new_initial_state()
    first = dict(state.chance_outcomes())
    assert len(first) == 53 and first[52] == pytest.approx(4 / 108)
    assert first[0] == pytest.approx(2 / 108) and sum(first.values()) == pytest.approx(1.0)
    rng = random.Random(3)
    faces = []
    while state.is_chance_node():
        outcomes = dict(state.chance_outcomes())
        left = Counter(DECK)
        left.subtract(FACES[f] for f in faces)
        assert outcomes == pytest.approx(
            {f: n / (108 - len(faces)) for f, n in enumerate(left[c] for c in FACES) if n}
        )
        face = rng.choice(sorted(outcomes))
        faces.append(face)
        state.apply_action(face)
    assert len(faces) == 108
    expected = br.new_game(
        variants.BURACO_FECHADO, 4, deck=[FACES[f] for f in faces], first_player=2
    )
    assert state.engine_state == expected and state.current_player() == 2
    assert state.pending_tokens == () and not state.is_truncated


@configs
def test_returns_are_the_score_difference_zero_sum_between_teams(
    variant: str, players: int
) -> None:
    game = load(variant, players, reward_scale=0.25)
    for seed in range(2):
        state = play_out(dealt(game, random.Random(seed)), random.Random(seed))
        totals = [s.total for s in br.score(state.engine_state)]
        returns = state.returns()
        assert sum(returns) == 0.0
        for seat in range(players):
            own, other = totals[seat % 2], totals[1 - seat % 2]
            assert returns[seat] == pytest.approx(0.25 * (own - other))
        assert state.rewards() == returns


@configs
def test_a_hand_cut_at_max_turns_is_terminal_and_scored_as_it_stands(
    variant: str, players: int
) -> None:
    game = load(variant, players, max_turns=7)
    state = dealt(game, random.Random(1))
    rng = random.Random(1)
    seats = []
    while not state.is_terminal():
        assert not state.is_truncated
        seats.append(state.current_player())
        state.apply_action(rng.choice(state.legal_actions()))
    engine = state.engine_state
    assert state.is_truncated and state.turns == 7 and not engine.is_over
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []
    totals = [s.total for s in br.score(engine)]
    diff = totals[0] - totals[1]
    assert state.returns() == [diff if seat % 2 == 0 else -diff for seat in range(players)]
    changes = sum(a != b for a, b in itertools.pairwise(seats))
    assert changes == 6  # seven turns: the seat to act changed six times before the cut


@configs
def test_legal_actions_are_the_legal_tokens_and_observers_are_views(
    variant: str, players: int
) -> None:
    game = load(variant, players)
    rng = random.Random(7)
    checked = 0

    def visit(state: object) -> None:
        nonlocal checked
        if state.is_chance_node() or rng.random() > 0.1:  # type: ignore[attr-defined]
            return
        checked += 1
        engine, pending = state.engine_state, state.pending_tokens  # type: ignore[attr-defined]
        actor = engine.current_player
        assert state.legal_actions() == list(legal_tokens(engine, pending))  # type: ignore[attr-defined]
        mask = state.legal_actions_mask(actor)  # type: ignore[attr-defined]
        assert [t for t, bit in enumerate(mask) if bit] == list(legal_tokens(engine, pending))
        for seat in range(players):
            if seat != actor:
                assert state.legal_actions(seat) == []  # type: ignore[attr-defined]
            tensor = np.asarray(state.observation_tensor(seat), dtype=np.float32)  # type: ignore[attr-defined]
            seen = encode(br.view(engine, seat), pending if seat == actor else ())
            assert np.array_equal(tensor[:OBSERVATION_SIZE], seen)

    play_out(dealt(game, rng), rng, visit)
    assert checked > 5


@configs
def test_resampling_keeps_the_information_state_of_the_player(variant: str, players: int) -> None:
    game = load(variant, players)
    rng = random.Random(11)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0

    def visit(state: object) -> None:
        nonlocal checked
        if rng.random() > 0.05 and not (state.is_chance_node() and rng.random() < 0.01):  # type: ignore[attr-defined]
            return
        checked += 1
        for seat in range(players):
            again = state.resample_from_infostate(seat, sampler)  # type: ignore[attr-defined]
            assert again.information_state_string(seat) == state.information_state_string(seat)  # type: ignore[attr-defined]
            assert again.observation_tensor(seat) == state.observation_tensor(seat)  # type: ignore[attr-defined]
            assert again.current_player() == state.current_player()  # type: ignore[attr-defined]
            assert again.move_number() == state.move_number()  # type: ignore[attr-defined]
            if state.is_chance_node():  # type: ignore[attr-defined]
                # dealt anew: a true history, the seat's own cards in their places
                assert len(again.history()) == len(state.history())  # type: ignore[attr-defined]
            else:
                assert again.history() == state.history()  # type: ignore[attr-defined]
            if not state.is_chance_node():  # type: ignore[attr-defined]
                if seat == state.current_player():  # type: ignore[attr-defined]
                    assert again.legal_actions() == state.legal_actions()  # type: ignore[attr-defined]
                assert br.view(again.engine_state, seat) == br.view(state.engine_state, seat)  # type: ignore[attr-defined]
                br.validate(again.engine_state)

    play_out(game.new_initial_state(), rng, visit)
    assert checked > 3


def test_resampling_redeals_what_the_player_cannot_see() -> None:
    game = load("buraco-fechado", 2)
    state = dealt(game, random.Random(2))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    others = {state.resample_from_infostate(0, sampler).engine_state.hands[1] for _ in range(5)}
    assert len(others) > 1
    assert all(
        state.resample_from_infostate(0, sampler).engine_state.hands[0]
        == state.engine_state.hands[0]
        for _ in range(3)
    )


def test_clone_shares_the_engine_state() -> None:
    state = dealt(load("italian", 2), random.Random(4))
    state.apply_action(state.legal_actions()[0])
    copy = state.clone()
    assert copy.engine_state is state.engine_state and copy.history() == state.history()
    copy.apply_action(copy.legal_actions()[0])
    assert copy.engine_state is not state.engine_state or copy.pending_tokens != ()
    assert str(state) != str(copy)


def test_from_engine_state_builds_a_state_directly() -> None:
    game = load("italian", 2)
    engine = br.apply(br.new_game(variants.ITALIAN, 2, seed=0), br.DrawFromStock())
    state = openspiel.from_engine_state(game, engine)
    assert state.engine_state is engine and state.current_player() == 0
    assert state.legal_actions() == list(legal_tokens(engine))
    meld = (4,)
    spelt = openspiel.from_engine_state(game, engine, meld)
    assert spelt.pending_tokens == meld and spelt.legal_actions() == list(
        legal_tokens(engine, meld)
    )
    with pytest.raises(ValueError):
        openspiel.from_engine_state(game, engine, (0,))  # no draw in the play phase
    with pytest.raises(ValueError):
        openspiel.from_engine_state(game, br.new_game(variants.ITALIAN, 4, seed=0))
    with pytest.raises(ValueError):
        state.apply_action(0)  # an illegal token is refused, the state unchanged
    assert state.engine_state is engine


def test_other_seats_do_not_see_the_tokens_being_spelt() -> None:
    game = load("italian", 2)
    engine = br.apply(br.new_game(variants.ITALIAN, 2, seed=0), br.DrawFromStock())
    state = openspiel.from_engine_state(game, engine)
    spelt = openspiel.from_engine_state(game, engine, (4,))
    assert spelt.information_state_string(1) == state.information_state_string(1)
    assert spelt.observation_tensor(1) == state.observation_tensor(1)
    assert spelt.information_state_string(0) != state.information_state_string(0)


def test_information_states_have_perfect_recall() -> None:
    """Two histories after which seat 0 sees the same table (a closed pile shows its top only)
    but in which it saw seat 1 discard different cards: the same observation, different
    information states, and each history's is kept by resampling."""
    game = load("buraco-fechado", 2)
    start = dealt(game, random.Random(9))
    hand1 = sorted(set(start.engine_state.hands[1]))
    ends = []
    for discarded in hand1[:2]:
        state = start.clone()
        state.apply_action(DRAW)
        state.apply_action(FIRST_CARD + int(start.engine_state.hands[0][0]))
        state.apply_action(DRAW)
        state.apply_action(FIRST_CARD + int(discarded))
        state.apply_action(DRAW)
        state.apply_action(FIRST_CARD + int(start.engine_state.hands[0][1]))
        ends.append(state)
    first, second = ends
    assert first.observation_string(0) == second.observation_string(0)
    assert first.information_state_string(0) != second.information_state_string(0)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for state in ends:
        again = state.resample_from_infostate(0, sampler)
        assert again.information_state_string(0) == state.information_state_string(0)
    with pytest.raises(ValueError):  # no tensor of a fixed size holds a history
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True)).set_from(first, 0)


def test_a_seats_information_states_differ_along_a_hand() -> None:
    game = load("italian", 2, max_turns=30)
    seen: dict[str, int] = {}

    def visit(state: object) -> None:
        if state.is_chance_node():  # type: ignore[attr-defined]
            return
        key = state.information_state_string(0)  # type: ignore[attr-defined]
        moves = state.move_number()  # type: ignore[attr-defined]
        assert seen.setdefault(key, moves) == moves or state.current_player() != 0  # type: ignore[attr-defined]

    play_out(dealt(game, random.Random(3)), random.Random(3), visit)
    assert len(seen) > 20


def test_ismcts_plays_through_the_adapter() -> None:
    ismcts = pytest.importorskip("open_spiel.python.algorithms.ismcts")
    mcts = pytest.importorskip("open_spiel.python.algorithms.mcts")
    game = load("italian", 2, max_turns=4)
    state = dealt(game, random.Random(5))
    bot = ismcts.ISMCTSBot(
        game=game,
        evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        uct_c=2.0,
        max_simulations=4,
        random_state=np.random.RandomState(0),
    )
    action = bot.step(state)
    assert action in state.legal_actions()


def test_an_observer_reused_across_token_steps_equals_a_new_one() -> None:
    """The observer keeps a seat's observation per engine state and writes only the prefix in
    place: at every token step, for every seat and observation type, it matches an observer
    built afresh (which has kept nothing), and the default one matches ``encode``."""
    game = load("buraco-fechado", 2)
    rng = random.Random(3)
    types = [
        None,
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        ),
        pyspiel.IIGObservationType(
            perfect_recall=False,
            public_info=False,
            private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER,
        ),
    ]
    kept = [game.make_py_observer(t) for t in types]  # type: ignore[attr-defined]
    steps = 0

    def visit(state: object) -> None:
        nonlocal steps
        if state.is_chance_node():  # type: ignore[attr-defined]
            return
        steps += 1
        for seat in (1, 0):  # the other seat first, then the actor, on the same engine state
            for obs_type, observer in zip(types, kept, strict=True):
                observer.set_from(state, seat)
                fresh = game.make_py_observer(obs_type)  # type: ignore[attr-defined]
                fresh.set_from(state, seat)
                assert np.array_equal(observer.tensor, fresh.tensor)
            engine, pending = state.engine_state, state.pending_tokens  # type: ignore[attr-defined]
            spelt = pending if seat == engine.current_player else ()
            expected = encode(br.view(engine, seat), spelt)
            assert np.array_equal(kept[0].tensor[:OBSERVATION_SIZE], expected)

    play_out(dealt(game, rng), rng, visit)
    assert steps > 100


@configs
def test_openspiels_python_game_sim_checks_pass(variant: str, players: int) -> None:
    """OpenSpiel's own ``games_sim_test`` play-through: clone, serialise (pyspiel's and pickle)
    and replay checks along a random hand."""
    games_sim = pytest.importorskip("open_spiel.python.tests.games_sim_test")
    games_sim.GamesSimTest().sim_game(load(variant, players, max_turns=60))
