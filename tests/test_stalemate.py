"""R24, no endless hand: the stalemate, the longest hand it allows, and the limits derived from it.

The adversaries here are the loops a griefing table or a careless trainer plays: "take the one-card
pile, discard another card" for ever, with a stock draw or a single card laid just often enough to
keep the hand alive. Each is played to the stop, and the hand's length held to
``br.longest_hand`` (derived in docs/decisions.md).
"""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.limits import MAX_HAND_ACTIONS
from buraco_rules.core.rules import MAX_STALEMATE_TURNS, MIN_STALEMATE_TURNS
from buraco_rules.testing import rule_sets

F = variants.BURACO_FECHADO
CS = variants.CANASTA_STBL
IT = variants.ITALIAN
FI = variants.ITALIAN_FIBUR
PRESETS = (F, CS, IT, FI)
OPEN = [(rules, n) for rules in (IT, FI) for n in rules.player_counts]
OPEN_IDS = [f"{rules.name}-{n}p" for rules, n in OPEN]
ALL = [(rules, n) for rules in PRESETS for n in rules.player_counts]
ALL_IDS = [f"{rules.name}-{n}p" for rules, n in ALL]


def exchange(state):
    """One idle turn: take the open pile and discard a card other than the one taken (R11)."""
    state = br.apply(state, br.TakeDiscardPile())
    return br.apply(state, next(a for a in br.legal_actions(state) if type(a) is br.Discard))


def draw_and_discard(state):
    """One turn of progress that lays nothing: draw from the stock, discard the card drawn."""
    drawn = state.stock[0]
    state = br.apply(state, br.DrawFromStock())
    return br.apply(state, br.Discard(drawn))


def drawable(rules, players):
    """The cards the stock gives before the hand ends (R15, R21)."""
    dealt = players * rules.hand_size + 2 * rules.extra_pile_size
    dealt += int(rules.discard_pile_starts_face_up)
    extra = 2 * rules.extra_pile_size if rules.extra_pile_becomes_stock else 0
    return len(br.DECK) - dealt - rules.stock_reserve + extra


# --- the rule set field ------------------------------------------------------------------------


@pytest.mark.parametrize("rules", PRESETS, ids=lambda r: r.name)
def test_R24_every_preset_ends_a_stalemate_after_twelve_turns(rules):
    assert rules.stalemate_turns == 12
    assert br.new_game(rules, seed=1).idle_turns == 0


@pytest.mark.parametrize(
    "value", [MIN_STALEMATE_TURNS - 1, MAX_STALEMATE_TURNS + 1, 0, -5, True, 12.0, None, "12"]
)
def test_R24_stalemate_turns_is_checked_like_every_field(value):
    with pytest.raises(br.InvalidRules, match=r"stalemate_turns must be an int from 4 to 24.*R24"):
        attrs.evolve(IT, stalemate_turns=value)


def test_R24_stalemate_turns_takes_every_value_in_range():
    for n in (MIN_STALEMATE_TURNS, 7, MAX_STALEMATE_TURNS):
        assert attrs.evolve(IT, stalemate_turns=n).stalemate_turns == n


# --- the stop ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "players"), OPEN, ids=OPEN_IDS)
def test_R24_take_one_discard_one_stops_after_the_set_number_of_turns(rules, players):
    state = br.new_game(rules, players, seed=3)
    stock = state.stock
    turns = 0
    while not state.is_over:
        assert state.idle_turns == turns
        state = exchange(state)
        turns += 1
        assert turns <= rules.stalemate_turns
        br.validate(state)
    assert turns == rules.stalemate_turns == state.idle_turns
    assert state.stock == stock  # nobody drew: the stock is untouched
    assert state.outcome == br.Outcome(br.Termination.STALEMATE, went_out=None)
    assert br.legal_actions(state) == ()
    for seat in range(players):
        assert br.view(state, seat).outcome == state.outcome
    assert br.from_json(br.to_json(state)) == state
    with pytest.raises(br.IllegalAction) as error:
        br.apply(state, br.TakeDiscardPile())
    assert error.value.code is br.ErrorCode.GAME_OVER


@pytest.mark.parametrize(("rules", "players"), OPEN, ids=OPEN_IDS)
def test_R24_the_last_idle_turn_may_still_lay_a_card_and_go_on(rules, players):
    deck = br.arrange_deck(rules, players, hands=["5S 6S 7S 8S"], face_up="KD")
    state = br.new_game(rules, players, deck=deck)
    state = br.apply(state, br.DrawFromStock())
    state = br.apply(state, br.NewMeld("5S 6S 7S"))
    state = br.apply(state, br.Discard(state.hands[0][0]))  # a club: 8S stays in the hand
    while state.idle_turns < rules.stalemate_turns - 1 or state.current_player != 0:
        state = exchange(state)
        if state.is_over:
            pytest.fail("the hand ended before seat 0's turn came round")
    state = br.apply(state, br.TakeDiscardPile())
    assert state.idle_turns == rules.stalemate_turns  # a discard now would end the hand
    state = br.apply(state, br.AddToMeld(0, "8S"))  # progress: a card laid on the table
    assert state.idle_turns == 0
    card = next(c for c in state.hands[0] if c != state.taken_single_card)
    state = br.apply(state, br.Discard(card))
    assert not state.is_over and state.idle_turns == 0


@pytest.mark.parametrize(("rules", "players"), OPEN, ids=OPEN_IDS)
def test_R24_a_hand_still_drawing_never_stops(rules, players):
    """One stock draw in every ``stalemate_turns`` turns keeps the hand going until the stock is
    exhausted, never stalemated: the longest hand of turns that lay nothing, 2 x N x S actions,
    which is the first term of br.longest_hand, reached exactly."""
    n = rules.stalemate_turns
    state = br.new_game(rules, players, seed=5)
    actions = 0
    while not state.is_over:
        if state.idle_turns == n - 1:
            state = draw_and_discard(state)
            assert state.is_over or state.idle_turns == 0
        else:
            state = exchange(state)
        actions += 2
    assert state.outcome == br.Outcome(br.Termination.STOCK_EXHAUSTED)
    assert len(state.stock) == rules.stock_reserve
    assert actions == 2 * n * drawable(rules, players)
    assert actions <= br.longest_hand(rules, players)


@pytest.mark.parametrize(("rules", "players"), OPEN, ids=OPEN_IDS)
def test_R24_a_stalemate_is_scored_as_when_the_stock_runs_out(rules, players):
    deck = br.arrange_deck(rules, players, hands=["5S 6S 7S 9H"], face_up="KD")
    state = br.new_game(rules, players, deck=deck)
    state = br.apply(state, br.DrawFromStock())
    state = br.apply(state, br.NewMeld("5S 6S 7S"))
    state = br.apply(state, br.Discard(br.Card("9H")))
    while not state.is_over:
        state = exchange(state)
    assert state.outcome.termination is br.Termination.STALEMATE
    values = rules.value_by_id
    for team, points in enumerate(br.score(state)):
        # R16 as for an exhausted stock: nobody earns the going-out bonus, both teams lose the
        # 100 of the extra pile they never took, and the cards held count against them.
        held = sum(values[c] for seat in range(team, players, 2) for c in state.hands[seat])
        table = sum(values[c] for m in state.melds[team] for c in m.cards)
        assert points == br.TeamScore(
            table=table, canastas=0, going_out=0, hands=held, extra_pile=rules.extra_pile_penalty
        )
    assert br.score(state)[0].table == 15  # the run 5S 6S 7S


def test_R24_a_closed_pile_never_counts_a_turn_idle():
    """In F and C every take lays the pile's top card (R10): no turn is idle, whatever is played."""
    for rules, players in [(F, 2), (F, 4), (CS, 2)]:
        rng = random.Random(players)
        for seed in range(3):
            state = br.new_game(rules, players, seed=seed)
            while not state.is_over:
                state = br.apply(state, rng.choice(br.legal_actions(state)))
                assert state.idle_turns == 0
            assert state.outcome.termination is not br.Termination.STALEMATE


# --- validate and the codec --------------------------------------------------------------------


def _idle_state():
    state = br.new_game(IT, 2, seed=1)
    return exchange(exchange(state))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"idle_turns": -1}, "idle_turns must be an int from 0 to 12"),
        ({"idle_turns": 13}, "idle_turns must be an int from 0 to 12"),
        ({"idle_turns": 2.0}, "idle_turns must be an int"),
        ({"idle_turns": True}, "idle_turns must be an int"),
        ({"idle_turns": 12}, "ends the hand in stalemate"),
    ],
)
def test_R24_validate_refuses_a_wrong_idle_count(change, message):
    state = _idle_state()
    assert state.idle_turns == 2 and state.phase is br.Phase.DRAW
    with pytest.raises(br.InvalidState, match=message):
        br.validate(attrs.evolve(state, **change))


def test_R24_validate_refuses_an_idle_turn_where_none_can_be():
    closed = br.new_game(F, 2, seed=1)
    with pytest.raises(br.InvalidState, match="no turn is idle"):
        br.validate(attrs.evolve(closed, idle_turns=1))
    state = br.apply(br.new_game(IT, 2, seed=1), br.DrawFromStock())
    with pytest.raises(br.InvalidState, match="took the whole pile"):
        br.validate(attrs.evolve(state, idle_turns=1))  # the pile still holds its card


def test_R24_the_count_is_public_and_carried_by_views_and_documents():
    state = _idle_state()
    seen = br.view(state, 1)
    assert seen.idle_turns == state.idle_turns == 2
    assert br.determinize(seen, random.Random(7)).idle_turns == 2
    assert br.from_json(br.to_json(seen)) == seen
    assert br.from_json(br.to_json(state)) == state
    data = br.to_data(state)
    del data["idle_turns"]  # a document written before R24 reads as a count of 0
    assert br.from_data(data) == attrs.evolve(state, idle_turns=0)


# --- the longest hand (docs/decisions.md) --------------------------------------------------------


def _lays(actions):
    """The smallest progress a turn can make: one card added to a meld, else a new meld of 3."""
    singles = [a for a in actions if type(a) is br.AddToMeld and len(a.cards) == 1]
    return singles or [a for a in actions if type(a) is br.NewMeld and len(a.cards) == 3]


def stretch(rules, players, seed):
    """An adversary that makes a hand as long as it can: idle turns while the count allows one
    more, then the least progress there is (one card laid, else one stock draw), and again. With
    a closed pile, the take that lays only the pile's top card, else a draw. Returns the number of
    actions of the hand, played to its end, and its outcome."""
    rng = random.Random(seed)
    state = br.new_game(rules, players, seed=seed)
    n = rules.stalemate_turns
    actions = 0

    def play(action):
        nonlocal state, actions
        state = br.apply(state, action)
        actions += 1

    while not state.is_over:
        listed = br.legal_actions(state)
        take = br.TakeDiscardPile()
        if rules.closed_discard_pile:
            takes = [
                a
                for a in listed
                if type(a) is br.TakeDiscardPile and type(a.meld) is br.AddToMeld
                if len(a.meld.cards) <= 1
            ]
            play(rng.choice(takes) if takes else br.DrawFromStock())
        elif take in listed and state.idle_turns < n - 1:
            play(take)
        elif take in listed and _lays(br.legal_actions(br.apply(state, take))):
            play(take)
            play(rng.choice(_lays(br.legal_actions(state))))
        else:
            play(br.DrawFromStock())
        if not state.is_over:
            play(rng.choice([a for a in br.legal_actions(state) if type(a) is br.Discard]))
    return actions, state.outcome


@pytest.mark.parametrize(("rules", "players"), ALL, ids=ALL_IDS)
def test_R24_no_adversary_outlasts_the_longest_hand(rules, players):
    bound = br.longest_hand(rules, players)
    for seed in range(2):
        actions, outcome = stretch(rules, players, seed)
        assert actions <= bound, (actions, outcome)
    # The loop that lays nothing and draws as rarely as it may reaches the first term exactly.
    n = None if rules.closed_discard_pile else rules.stalemate_turns
    state = br.new_game(rules, players, seed=11)
    actions = 0
    while not state.is_over:
        state = (
            draw_and_discard(state) if n is None or state.idle_turns == n - 1 else exchange(state)
        )
        actions += 2
    per_draw = 2 if n is None else 2 * n
    assert actions == per_draw * drawable(rules, players) <= bound


@settings(max_examples=200, deadline=None)
@given(rules=rule_sets(), players=st.sampled_from((2, 4)))
def test_R24_the_longest_hand_under_any_rules_is_bounded_too(rules, players):
    """MAX_HAND_ACTIONS, from which the decoders' limits are derived, bounds every rule set."""
    if players in rules.player_counts:
        assert br.longest_hand(rules, players) <= MAX_HAND_ACTIONS


def test_R24_the_rule_set_of_the_longest_hand_reaches_max_hand_actions():
    # An open pile with the most turns allowed, two players dealt one card each, the extra piles
    # turned into stock (R15): every card but two may be drawn.
    rules = attrs.evolve(
        IT,
        name="longest",
        hand_size=1,
        extra_pile_size=2,
        discard_pile_starts_face_up=False,
        extra_pile_becomes_stock=True,
        stalemate_turns=MAX_STALEMATE_TURNS,
    )
    assert br.longest_hand(rules, 2) == MAX_HAND_ACTIONS
    # Played by four (smaller hands, a quicker test): the drawing loop to the stop.
    n = rules.stalemate_turns
    state = br.new_game(rules, 4, seed=2)
    actions = 0
    while not state.is_over:
        if state.idle_turns == n - 1 or not state.discard_pile:
            state = draw_and_discard(state)
        else:
            state = exchange(state)
        actions += 2
    assert state.outcome.termination is br.Termination.STOCK_EXHAUSTED
    # The first turn has no pile to take (R3): it spends a draw.
    assert actions == 2 * n * (drawable(rules, 4) - 1) + 2 <= br.longest_hand(rules, 4)
