"""Property-based tests: random legal play in every variant and player count (R1-R23).

Each game is dealt from a seed drawn by Hypothesis and played by choosing, at every step, one of
``legal_actions`` by an index Hypothesis draws, so a failure shrinks to a short game.

Run ``python tests/test_properties.py`` for the one-off survey of game lengths over seeded games.
"""

from __future__ import annotations

import copy
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import product

import attrs
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.cards import all_cards
from buraco_rules.core.decks import DECK_COUNTS
from forging import forged

VARIANTS = (
    variants.BURACO_FECHADO,
    variants.CANASTA_STBL,
    variants.ITALIAN,
    variants.ITALIAN_FIBUR,
)
CONFIGS = [(rules, n) for rules in VARIANTS for n in rules.player_counts]
CONFIG_IDS = [f"{rules.name}-{n}p" for rules, n in CONFIGS]
MAX_STEPS = 3000
"""A random game must end within this many actions."""
SEEDS = st.integers(0, 2**32 - 1)
CARDS = all_cards()
MIN_MELD, CANASTA = 3, 7

STEPS_SEEN: dict[str, int] = {}
"""The most actions any game of a configuration took in this run (printed with ``-s``)."""


def examples(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


configs = pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=CONFIG_IDS)


@pytest.fixture(scope="module", autouse=True)
def _report_steps() -> Iterator[None]:
    yield
    if STEPS_SEEN:
        print("\nlongest random game (actions):", dict(sorted(STEPS_SEEN.items())))


# --- playing random games -------------------------------------------------------------------------


Step = tuple[br.GameState, tuple[br.Action, ...], int | None]
PASSIVE = (br.DrawFromStock, br.Discard)


def walk(
    data: st.DataObject,
    rules: br.RuleSet,
    players: int,
    *,
    seed: int | None = None,
    seeded_choices: bool = False,
) -> Iterator[Step]:
    """Every state of one random game: ``(state, legal_actions(state), index)``, where
    ``actions[index]`` is played next (None for the final state). The game must end within
    MAX_STEPS actions.

    Choices are Hypothesis draws (so failures shrink), or with ``seeded_choices`` a
    ``random.Random`` seeded by one draw, which never runs out of Hypothesis' choice budget. In a
    "greedy" game (half of them) every other choice, about, is among the melds and takes only, so
    that canastas, extra piles and going out come up often.
    """
    if seed is None:
        seed = data.draw(SEEDS, label="seed")
    state = br.new_game(rules, players, seed=seed)
    greedy = data.draw(st.booleans(), label="greedy")
    rng = random.Random(data.draw(SEEDS, label="choice seed")) if seeded_choices else None
    steps = 0
    while not state.is_over:
        assert steps < MAX_STEPS, f"no end after {MAX_STEPS} actions"
        actions = br.legal_actions(state)
        assert actions, "a hand in progress must have a legal action"
        pool: Sequence[int] = range(len(actions))
        if greedy:
            melds = [i for i, a in enumerate(actions) if not isinstance(a, PASSIVE)]
            prefer = rng.random() < 0.5 if rng is not None else data.draw(st.booleans())
            if melds and prefer:
                pool = melds
        if rng is not None:
            index = pool[rng.randrange(len(pool))]
        else:
            index = pool[data.draw(st.integers(0, len(pool) - 1))]
        yield state, actions, index
        state = br.apply(state, actions[index])
        steps += 1
    key = f"{rules.name}-{players}p"
    STEPS_SEEN[key] = max(STEPS_SEEN.get(key, 0), steps)
    event("went out" if state.went_out is not None else "no card to draw")
    event(f"extra piles taken: {sum(state.extra_pile_taken)}")
    if state.untouched_extra_pile != (None, None):
        event("an extra pile untouched at the end (R19)")
    if any(state.extra_piles[t] is None and not state.extra_pile_taken[t] for t in (0, 1)):
        event("an extra pile became the stock (R15)")
    yield state, br.legal_actions(state), None


def all_cards_of(state: br.GameState) -> tuple[br.Card, ...]:
    cards = [c for hand in state.hands for c in hand]
    cards += state.stock
    cards += state.discard_pile
    cards += [c for team in state.melds for m in team for c in m.cards]
    cards += [c for pile in state.extra_piles if pile is not None for c in pile]
    return tuple(sorted(cards))


def snapshot(state: br.GameState) -> br.GameState:
    """A deep copy (the rule set, immutable and shared by every state, is kept)."""
    return copy.deepcopy(state, {id(state.rules): state.rules})


def refused(state: br.GameState, action: object) -> br.IllegalAction:
    """Assert that ``apply`` refuses ``action`` with IllegalAction (and nothing else)."""
    with pytest.raises(br.IllegalAction) as info:
        br.apply(state, action)
    assert isinstance(info.value.code, br.ErrorCode)
    return info.value


# --- an independent check of melds (R5-R9) --------------------------------------------------------


def fewest_wildcards_in_run(cards: tuple[br.Card, ...], max_aces: int) -> int | None:
    """The fewest wildcards with which ``cards`` lie as one run (R5-R8), or None if they can't
    with at most one. Brute force over the role of every ace and 2 of the suit."""
    naturals = [c for c in cards if not c.is_wild]
    suits = {c.suit for c in naturals}
    if len(suits) != 1 or len(cards) < MIN_MELD:
        return None
    (suit,) = suits
    roles: list[tuple[int | None, ...]] = []  # a card's possible positions; None = wildcard
    for c in cards:
        if c.is_joker or (c.is_two and c.suit != suit):
            roles.append((None,))
        elif c.is_two:
            roles.append((2, None))
        elif c.rank == br.Rank.ACE:
            roles.append((1, 14))
        else:
            roles.append((c % 13 + 1,))
    aces = sum(1 for c in naturals if c.rank == br.Rank.ACE)
    if aces > max_aces:
        return None
    best = None
    for choice in product(*roles):
        wild = choice.count(None)
        placed = sorted(p for p in choice if p is not None)
        if wild > 1 or len(set(placed)) != len(placed) or not placed:
            continue
        gaps = placed[-1] - placed[0] + 1 - len(placed)
        if gaps > wild:
            continue
        if wild and not gaps and placed[0] == 1 and placed[-1] == 14:
            continue  # no room for a floating wildcard beyond A-to-A
        best = wild if best is None else min(best, wild)
    return best


def check_meld(meld: br.Meld, rules: br.RuleSet) -> None:
    assert br.Meld.from_cards(meld.cards, rules) == meld
    assert len(meld.cards) >= MIN_MELD
    wilds = [c for c in meld.cards if c.is_wild]
    if meld.wildcard is not None:
        assert meld.wildcard.is_wild and meld.wildcard in meld.cards
    if meld.kind is br.MeldKind.RUN:
        assert meld.rank is None and meld.suit is not None
        assert {c.suit for c in meld.cards if not c.is_wild} == {meld.suit}
        # The only wild cards besides the wildcard: 2s of the run's suit standing as 2 (R7).
        natural_twos = [c for c in wilds if c.suit == meld.suit]
        assert len(wilds) - (meld.wildcard is not None) <= min(len(natural_twos), 1)
        need = fewest_wildcards_in_run(meld.cards, rules.max_natural_aces_in_run)
        assert need is not None, f"{meld} is not a run (R5, R6)"
        # Clean exactly when the cards can lie with no wildcard (R7: a 2 is natural if it can be).
        assert (meld.wildcard is None) == (need == 0)
    else:
        assert rules.sets_allowed, "sets only in Italian Buraco (R5)"
        assert meld.suit is None and meld.rank is not None
        assert {c.rank for c in meld.cards if not c.is_wild} == {meld.rank}
        assert meld.rank != br.Rank.TWO
        assert len(meld.cards) <= rules.max_set_size
        assert len(wilds) <= 1 and (meld.wildcard is None) == (not wilds)


def set_is_valid(cards: tuple[br.Card, ...], rules: br.RuleSet) -> bool:
    """Whether ``cards`` form a set (R5, R7): Italian only, 3-9 cards of one rank, at most one
    wildcard; a 2 is always wild in a set, so there are no sets of 2s or jokers."""
    naturals = [c for c in cards if not c.is_wild]
    return (
        rules.sets_allowed
        and MIN_MELD <= len(cards) <= rules.max_set_size
        and len({c.rank for c in naturals}) == 1
        and len(cards) - len(naturals) <= 1
    )


@st.composite
def meld_like(draw: st.DrawFn) -> tuple[br.Card, ...]:
    """Cards that may or may not form a meld: a stretch of a suit, or any cards of one suit (a
    run?) or of one rank (a set?), with some wild cards, sometimes a stray card."""
    shape = draw(st.sampled_from(["stretch", "suit", "rank"]))
    suit = draw(st.integers(0, 3))
    if shape == "stretch":  # positions lo..hi of one suit (1 and 14 are the ace), a few dropped
        lo = draw(st.integers(1, 14))
        hi = draw(st.integers(lo, min(14, lo + 13)))
        pool = [CARDS[suit * 13 + (p - 1) % 13] for p in range(lo, hi + 1)]
        size = (max(0, len(pool) - 2), len(pool))
    elif shape == "suit":
        pool = [CARDS[suit * 13 + r] for r in range(13)] * 2
        size = (2, 15)
    else:
        rank = draw(st.integers(0, 12))
        pool = [CARDS[s * 13 + rank] for s in range(4)] * 2
        size = (1, 9)
    picks = draw(
        st.lists(st.integers(0, len(pool) - 1), unique=True, min_size=size[0], max_size=size[1])
    )
    wilds = draw(
        st.lists(st.sampled_from([br.JOKER, *(CARDS[s * 13 + 1] for s in range(4))]), max_size=2)
    )
    stray = draw(st.lists(st.sampled_from(CARDS), max_size=1 if draw(st.booleans()) else 0))
    return tuple(sorted([pool[i] for i in picks] + wilds + stray))


@examples(600)
@given(cards=meld_like(), rules=st.sampled_from(VARIANTS))
def test_meld_classifier_agrees_with_brute_force(
    cards: tuple[br.Card, ...], rules: br.RuleSet
) -> None:
    if any(cards.count(c) > DECK_COUNTS[c] for c in cards):  # no game holds them (R2)
        with pytest.raises(ValueError, match="times: the two decks hold"):
            br.Meld.from_cards(cards, rules)
        return
    meld = br.Meld.from_cards(cards, rules)
    need = fewest_wildcards_in_run(cards, rules.max_natural_aces_in_run)
    if need is not None:
        assert meld is not None and meld.kind is br.MeldKind.RUN, (cards, need)
        assert (meld.wildcard is None) == (need == 0), (cards, meld)
    elif set_is_valid(cards, rules):
        assert meld is not None and meld.kind is br.MeldKind.SET, cards
    else:
        assert meld is None, (cards, meld)
        return
    assert sorted(meld.cards) == list(cards)
    check_meld(meld, rules)


# --- random play ----------------------------------------------------------------------------------


@configs
@examples(8)
@given(data=st.data())
def test_cards_are_conserved(rules: br.RuleSet, players: int, data: st.DataObject) -> None:
    for state, _, _ in walk(data, rules, players):
        assert all_cards_of(state) == br.DECK
        assert all(list(hand) == sorted(hand) for hand in state.hands)
        for team in (0, 1):
            if state.extra_piles[team] is not None:
                assert len(state.extra_piles[team] or ()) == rules.extra_pile_size
                assert not state.extra_pile_taken[team]


@configs
@examples(5)
@given(data=st.data())
def test_every_listed_action_applies(rules: br.RuleSet, players: int, data: st.DataObject) -> None:
    for state, actions, _ in walk(data, rules, players):
        assert len(set(actions)) == len(actions), "legal_actions lists an action twice"
        before = snapshot(state)
        for action in actions:
            assert br.is_legal(state, action)
            after = br.apply(state, action)
            assert isinstance(after, br.GameState)
            assert br.apply(state, action, player=state.current_player) == after
        assert state == before


@configs
@examples(5)
@given(data=st.data())
def test_apply_never_changes_its_input(
    rules: br.RuleSet, players: int, data: st.DataObject
) -> None:
    for state, actions, index in walk(data, rules, players):
        if index is None:
            continue
        before = snapshot(state)
        # Meld equality leaves out its derived fields: compare them too.
        derived = [(m.naturals, m.multiset) for team in state.melds for m in team]
        after = br.apply(state, actions[index])
        # A refusal leaves the state as it was too: the wrong phase is always refused.
        wrong = br.DrawFromStock() if state.phase is br.Phase.PLAY else br.Discard(CARDS[0])
        refused(state, wrong)
        assert after != state
        assert state == before
        assert [(m.naturals, m.multiset) for team in state.melds for m in team] == derived
        # The actions kept with the state still match a generation from its value alone.
        assert br.legal_actions(state) == br.legal_actions(before)


def action_order_key(state: br.GameState, action: br.Action) -> tuple[object, ...]:
    """The documented order of legal_actions (movegen): the draw, then the ways to take the pile;
    or the melds, then the discards by card id. Melds and takes go suit by suit (new runs, then
    additions by meld index), then rank by rank (a new set, or additions to that rank's set);
    within each, by the cards' ids."""
    if isinstance(action, br.DrawFromStock):
        return (0,)
    if isinstance(action, br.TakeDiscardPile):
        return (1,) if action.meld is None else (1, *action_order_key(state, action.meld))
    if isinstance(action, br.Discard):
        return (3, int(action.card))
    place: tuple[int, ...]
    if isinstance(action, br.NewMeld):
        meld, place = br.Meld.from_cards(action.cards, state.rules), (0,)
    else:
        assert isinstance(action, br.AddToMeld)
        meld, place = state.melds[state.current_team][action.meld], (1, action.meld)
    assert meld is not None
    if meld.suit is not None:
        return (2, 0, int(meld.suit), *place, action.cards)
    assert meld.rank is not None
    return (2, 1, int(meld.rank), *place, action.cards)


@configs
@examples(5)
@given(data=st.data())
def test_play_is_deterministic(rules: br.RuleSet, players: int, data: st.DataObject) -> None:
    seed = data.draw(SEEDS, label="seed")
    game = list(walk(data, rules, players, seed=seed))
    br.legal_actions(br.new_game(rules, players, seed=seed ^ 1))  # other states fill the caches
    replay = br.new_game(rules, players, seed=seed)
    for state, actions, index in game:
        assert replay == state and replay is not state
        assert br.legal_actions(replay) == actions
        assert br.legal_actions(state) == br.legal_actions(state)
        fresh = attrs.evolve(state)  # equal, built independently, nothing cached
        assert fresh == state
        assert br.legal_actions(fresh) == actions
        assert br.legal_actions(snapshot(state)) == actions
        keys = [action_order_key(state, a) for a in actions]
        assert keys == sorted(keys), "legal_actions is not in the documented order"
        if index is not None:
            replay = br.apply(replay, br.legal_actions(replay)[index])


@configs
@examples(8)
@given(data=st.data())
def test_melds_on_the_table_are_valid(rules: br.RuleSet, players: int, data: st.DataObject) -> None:
    checked: set[br.Meld] = set()  # melds are immutable: check each one once
    for state, _, _ in walk(data, rules, players):
        for team in (0, 1):
            melds = state.melds[team]
            for meld in melds:
                if meld not in checked:
                    check_meld(meld, rules)
                    checked.add(meld)
            set_ranks = [m.rank for m in melds if m.kind is br.MeldKind.SET]
            assert len(set_ranks) == len(set(set_ranks)), "two sets of one rank (R5)"


def card_value(card: br.Card, values: br.CardValues) -> int:
    if card.is_joker:
        return values.joker
    if card.rank == br.Rank.ACE:
        return values.ace
    if card.rank == br.Rank.TWO:
        return values.two
    return values.eight_to_king if card % 13 + 1 >= br.Rank.EIGHT else values.three_to_seven


def _no_gap_for_the_wildcard(meld: br.Meld) -> bool:
    """From the cards alone: a set, or a run whose cards but one wildcard are consecutive ranks
    (the ace low or high). Not where the wildcard is printed: a natural 2 of the run's suit at its
    own place may stand at an end while the wildcard, an equal card, fills a gap inside."""
    if meld.kind is br.MeldKind.SET:
        return True
    cards = list(meld.cards)
    for i, card in enumerate(cards):
        rest = cards[:i] + cards[i + 1 :]
        if not card.is_wild or any(c.is_joker for c in rest):
            continue
        ranks = [c.rank.value for c in rest]
        for ace in (1, 14):
            placed = sorted(ace if r == 1 else r for r in ranks)
            if placed == list(range(placed[0], placed[0] + len(placed))):
                return True
    return False


def canasta_value(meld: br.Meld, bonuses: br.CanastaBonuses) -> int:
    size = len(meld.cards)
    if size < CANASTA:
        return 0
    if meld.wildcard is not None:
        # R22: semi-clean when the wildcard fills no gap among 7+ naturals
        if bonuses.semi_clean is not None and size > CANASTA and _no_gap_for_the_wildcard(meld):
            return bonuses.semi_clean
        return bonuses.mixed
    kinds = [bonuses.clean]  # R18: the highest that applies
    if meld.kind is br.MeldKind.RUN and size == 13:
        kinds.append(bonuses.all_ranks)
    if meld.kind is br.MeldKind.RUN and size == 14:
        kinds.append(bonuses.ace_to_ace)
    return max(kinds)


def check_scores(state: br.GameState) -> None:
    rules = state.rules
    scores = br.score(state)
    assert len(scores) == 2
    for team, ts in enumerate(scores):
        assert isinstance(ts, br.TeamScore)
        for field in attrs.fields(br.TeamScore):
            value = getattr(ts, field.name)
            assert type(value) is int and value >= 0, (field.name, value)
        assert type(ts.total) is int
        assert ts.total == ts.table + ts.canastas + ts.going_out - ts.hands - ts.extra_pile
        assert ts.going_out == (rules.going_out_bonus if state.went_out == team else 0)
        if state.went_out is None:
            assert ts.going_out == 0
        melds = state.melds[team]
        assert ts.table == sum(card_value(c, rules.card_values) for m in melds for c in m.cards)
        assert ts.canastas == sum(canasta_value(m, rules.canasta_bonuses) for m in melds)
        untouched = state.untouched_extra_pile[team]
        void = (  # R19, unless R23 counts the pile as taken
            untouched is not None and state.went_out != team and rules.untouched_extra_pile_is_void
        )
        taken = state.extra_pile_taken[team] and not void
        assert ts.extra_pile == (0 if taken else rules.extra_pile_penalty)  # R16
        seats = [s for s in range(team, state.players, 2) if not (void and s == untouched)]
        hand_cards = [c for s in seats for c in state.hands[s]]
        assert ts.hands == sum(card_value(c, rules.card_values) for c in hand_cards)


@configs
@examples(6)
@given(data=st.data())
def test_score_identity(rules: br.RuleSet, players: int, data: st.DataObject) -> None:
    for state, _, _ in walk(data, rules, players):
        check_scores(state)
    assert state.is_over
    if state.went_out is None:
        assert all(ts.going_out == 0 for ts in br.score(state))


@configs
@examples(10)
@given(data=st.data())
def test_live_states_have_moves_and_finished_ones_none(
    rules: br.RuleSet, players: int, data: st.DataObject
) -> None:
    last: br.Action | None = None
    for state, actions, index in walk(data, rules, players):
        if index is not None:
            assert actions and not state.is_over
            if state.phase is br.Phase.DRAW:
                assert len(state.stock) > rules.stock_reserve, "nothing to draw (R15, R21)"
                assert actions[0] == br.DrawFromStock()
            else:
                assert state.phase is br.Phase.PLAY and state.hands[state.current_player]
            last = actions[index]
            continue
        assert state.is_over and state.phase is br.Phase.OVER
        assert br.legal_actions(state) == ()
        assert last is not None
        hand = state.hands[state.current_player]
        for action in (
            last,
            br.DrawFromStock(),
            br.TakeDiscardPile(),
            br.Discard(CARDS[0]),
            br.NewMeld(hand[:3] or CARDS[:3]),
            None,
        ):
            assert refused(state, action).code is br.ErrorCode.GAME_OVER
            assert not br.is_legal(state, action)
        if state.outcome == br.Outcome(br.Termination.STALEMATE):  # R24: idle turns in a row
            assert state.idle_turns == rules.stalemate_turns
            assert not rules.closed_discard_pile
        elif state.went_out is None:  # R15: the hand ended because no card could be drawn
            assert len(state.stock) == rules.stock_reserve  # R21
            if rules.extra_pile_becomes_stock:
                assert state.extra_piles == (None, None)
        else:  # R13
            team = state.went_out
            assert state.current_player % 2 == team and not hand
            assert state.extra_piles[team] is None
            canastas = [m for m in state.melds[team] if len(m.cards) >= CANASTA]
            if rules.going_out_needs_clean_canasta:
                canastas = [m for m in canastas if m.wildcard is None]
            assert canastas
            if not rules.may_go_out_by_melding:
                assert isinstance(last, br.Discard)
            if isinstance(last, br.Discard) and not rules.may_go_out_discarding_wildcard:
                assert not last.card.is_wild


@configs
@examples(20)
@given(data=st.data())
def test_random_games_end(rules: br.RuleSet, players: int, data: st.DataObject) -> None:
    steps = sum(1 for _ in walk(data, rules, players, seeded_choices=True)) - 1
    assert 0 < steps < MAX_STEPS


# --- illegal actions ------------------------------------------------------------------------------


def candidates(state: br.GameState, rng: random.Random) -> list[br.Action]:
    """Random actions, mostly illegal: sub-multisets of the hand melded or added anywhere,
    discards of cards not held, actions of the other phase, odd ways to take the pile."""
    hand = state.hands[state.current_player]
    melds = state.melds[state.current_player % 2]
    pile = state.discard_pile

    def some() -> tuple[br.Card, ...]:
        return tuple(rng.sample(hand, rng.randint(1, min(len(hand), 7)))) if hand else ()

    def index() -> int:
        return rng.randint(0, len(melds) + 1)  # -1 and 10**9 are forged in the junk

    out: list[br.Action] = [br.NewMeld(some()), br.NewMeld(some())]
    out += [br.AddToMeld(index(), some()), br.AddToMeld(index(), some())]
    missing = [c for c in CARDS if c not in hand]
    if missing:
        out.append(br.Discard(rng.choice(missing)))
    if hand:
        out.append(br.Discard(rng.choice(hand)))
    out += [br.DrawFromStock(), br.TakeDiscardPile(), br.TakeDiscardPile(br.NewMeld(some()))]
    if pile:
        top = pile[-1]
        out.append(br.TakeDiscardPile(br.NewMeld((*some(), top))))
        out.append(br.TakeDiscardPile(br.AddToMeld(index(), (*some(), top))))
        if len(pile) > 1:  # R10: no other card of the pile may go into the meld
            out.append(br.TakeDiscardPile(br.NewMeld((*some(), rng.choice(pile[:-1]), top))))
    return out


@configs
@examples(6)
@given(data=st.data())
def test_illegal_candidates_are_refused(
    rules: br.RuleSet, players: int, data: st.DataObject
) -> None:
    rng = random.Random(data.draw(SEEDS, label="candidate seed"))
    for state, actions, index in walk(data, rules, players):
        if index is None or rng.random() > 0.3:
            continue
        before = snapshot(state)
        seat = state.current_player
        other = (seat + 1) % players
        hand = state.hands[seat]
        for player in (other, str(seat), -1):
            with pytest.raises(br.IllegalAction) as info:
                br.apply(state, actions[index], player=player)  # type: ignore[arg-type]
            assert info.value.code is br.ErrorCode.NOT_YOUR_TURN
        for action in candidates(state, rng):
            listed = action in actions
            assert br.is_legal(state, action) == listed, action
            if listed:
                assert isinstance(br.apply(state, action), br.GameState)
                continue
            error = refused(state, action)
            drawing = isinstance(action, br.DrawFromStock | br.TakeDiscardPile)
            if drawing != (state.phase is br.Phase.DRAW):
                assert error.code is br.ErrorCode.WRONG_PHASE, (action, error)
            elif isinstance(action, br.Discard) and action.card not in hand:
                assert error.code is br.ErrorCode.NOT_IN_HAND, (action, error)
            elif isinstance(action, br.AddToMeld) and not 0 <= action.meld < len(
                state.melds[seat % 2]
            ):
                assert error.code is br.ErrorCode.NO_SUCH_MELD, (action, error)
        assert state == before


def junk(state: br.GameState) -> list[object]:
    """Objects that are not actions, or actions holding things that are not cards or meld
    indexes; none of them equals a real action."""
    hand = state.hands[state.current_player]
    some = hand[:3] or CARDS[:3]

    class Impostor:
        cards = some
        meld = 0
        card = some[0]

    return [
        None,
        "draw",
        42,
        object(),
        1.5,
        (),
        some,
        some[0],
        br.DrawFromStock,
        Impostor(),
        forged(br.NewMeld, ()),
        forged(br.NewMeld, None),
        forged(br.NewMeld, (*some, None)),
        forged(br.NewMeld, (0.5, 1.5, 2.5)),
        forged(br.AddToMeld, -1, some),
        br.AddToMeld(br.MAX_MELD_INDEX, some),
        forged(br.AddToMeld, 10**9, some),
        forged(br.AddToMeld, "0", some),
        forged(br.AddToMeld, None, some),
        forged(br.AddToMeld, 0, None),
        forged(br.AddToMeld, 0, ()),
        forged(br.Discard, None),
        forged(br.Discard, 10**9),
        forged(br.Discard, -1),
        forged(br.Discard, some),
        forged(br.Discard, b"JK"),
        forged(br.TakeDiscardPile, 42),
        br.TakeDiscardPile(forged(br.NewMeld, (60, 61, 62))),
        br.TakeDiscardPile(forged(br.AddToMeld, -1, some)),
        forged(br.TakeDiscardPile, br.DrawFromStock()),
        forged(br.TakeDiscardPile, br.TakeDiscardPile()),
    ]


def lookalikes(state: br.GameState) -> list[br.Action]:
    """Actions spelt with plain ints (or floats) for cards and bools for meld indexes. They
    compare equal to the actions with real cards, so apply must agree with membership."""
    hand = [int(c) for c in state.hands[state.current_player]]
    return [
        forged(br.NewMeld, (1, 2, 3)),
        forged(br.NewMeld, tuple(hand[:3])),
        forged(br.NewMeld, tuple(float(c) for c in hand[:3])),
        forged(br.AddToMeld, 0, tuple(hand[:1])),
        forged(br.AddToMeld, True, tuple(hand[:2])),
        *(forged(br.Discard, c) for c in hand),
        br.TakeDiscardPile(forged(br.NewMeld, (1, 2, 3))),
    ]


@configs
@examples(5)
@given(data=st.data())
def test_junk_is_an_illegal_action(rules: br.RuleSet, players: int, data: st.DataObject) -> None:
    rng = random.Random(data.draw(SEEDS, label="sample seed"))
    for state, actions, index in walk(data, rules, players):
        if index is not None and rng.random() > 0.25:
            continue
        before = snapshot(state)
        for thing in junk(state):
            assert thing not in actions
            assert not br.is_legal(state, thing)
            error = refused(state, thing)
            if state.is_over:
                assert error.code is br.ErrorCode.GAME_OVER
        for thing in lookalikes(state):  # equal to legal actions, perhaps, but not made of cards
            assert not br.is_legal(state, thing), thing
            refused(state, thing)
        assert state == before


def _lookalike_state() -> br.GameState:
    deck = br.arrange_deck(variants.CANASTA_STBL, hands=["3C 4C 5C 9H 9D"])
    return br.apply(br.new_game(variants.CANASTA_STBL, deck=deck), br.DrawFromStock())


@pytest.mark.parametrize(
    ("real", "lookalike"),
    [
        (br.Discard(br.Card("9D")), forged(br.Discard, 21)),
        (br.NewMeld("3C 4C 5C"), forged(br.NewMeld, (2, 3, 4))),
    ],
    ids=["discard", "new-meld"],
)
def test_int_lookalikes_are_refused_by_constructors_and_apply(
    real: br.Action, lookalike: br.Action
) -> None:
    """Regression: Discard(21) once equalled Discard(Card('9D')) and so was in legal_actions, but
    apply refused it as malformed-action. Now the constructor refuses an int where a card goes,
    and a look-alike forged past it is not legal and is refused as malformed-action."""
    state = _lookalike_state()
    with pytest.raises(br.MalformedAction, match=r"Card\.from_id"):
        type(real)(*attrs.astuple(lookalike, recurse=False))
    assert real in br.legal_actions(state) and br.is_legal(state, real)
    assert lookalike == real and not br.is_legal(state, lookalike)
    assert refused(state, lookalike).code is br.ErrorCode.MALFORMED_ACTION
    assert br.apply(state, real).melds == br.apply(state, real).melds


@pytest.mark.parametrize(
    ("field", "forced"),
    [("cards", br.NewMeld("4C 5C 6C").cards), ("cards", br.NewMeld("3C 4C").cards)],
    ids=["other-valid-meld", "no-meld"],
)
def test_a_listed_action_forced_to_change_is_refused(field: str, forced: object) -> None:
    """Frozen actions can still be changed with object.__setattr__. apply builds the next state
    from what the generator listed, so it must refuse a listed object whose content was forced
    to change afterwards, and leave the state as it was."""
    state = _lookalike_state()
    listed = next(a for a in br.legal_actions(state) if a == br.NewMeld("3C 4C 5C"))
    before = snapshot(state)
    original = getattr(listed, field)
    object.__setattr__(listed, field, forced)
    try:
        with pytest.raises(br.IllegalAction):
            br.apply(state, listed)
    finally:
        object.__setattr__(listed, field, original)  # the object is shared with later states
    assert snapshot(state) == before
    assert br.apply(state, listed).melds[0][0].multiset == br.NewMeld("3C 4C 5C").cards


# --- card notation --------------------------------------------------------------------------------


def test_every_card_notation_round_trips() -> None:
    assert len(CARDS) == 53 and len(br.DECK) == 108
    assert Counter(br.DECK) == Counter({**dict.fromkeys(CARDS[:52], 2), br.JOKER: 4})
    for card in CARDS:
        assert br.Card.parse(str(card)) is card
        assert br.Card.parse(card.pretty) is card
        assert br.Card(str(card)) is card and br.Card.from_id(card.id) is card


@examples(200)
@given(card=st.sampled_from(CARDS), lower=st.booleans(), pad=st.sampled_from(["", " ", "\t"]))
def test_card_notation_round_trips(card: br.Card, lower: bool, pad: str) -> None:
    text = str(card).lower() if lower else str(card)
    assert br.Card.parse(pad + text + pad) is card
    assert br.Card.parse(card.pretty.lower() if lower else card.pretty) is card


@examples(200)
@given(cards=st.lists(st.sampled_from(br.DECK), max_size=40), sep=st.sampled_from([" ", ", "]))
def test_card_lists_round_trip(cards: list[br.Card], sep: str) -> None:
    expected = tuple(cards)
    assert br.parse_cards(" ".join(map(str, cards))) == expected
    assert br.parse_cards(sep.join(c.pretty for c in cards)) == expected
    assert br.parse_cards([str(c) for c in cards]) == expected
    parsed = br.parse_cards(sep.join(map(str, cards)))
    assert all(a is b for a, b in zip(parsed, cards, strict=True))


# --- the one-off survey of game lengths -----------------------------------------------------------


def survey(games: int = 200) -> None:
    """Play ``games`` seeded games per variant and player count and per policy (uniformly random
    choices, or every other choice among melds and takes, as the greedy games of ``walk``)."""
    for rules, players in CONFIGS:
        for greedy in (False, True):
            started = time.perf_counter()
            lengths, out = [], 0
            for seed in range(games):
                state = br.new_game(rules, players, seed=seed)
                rng = random.Random(seed)
                steps = 0
                while not state.is_over and steps < MAX_STEPS:
                    actions = br.legal_actions(state)
                    melds = [a for a in actions if not isinstance(a, PASSIVE)]
                    pick = melds if greedy and melds and rng.random() < 0.5 else actions
                    state = br.apply(state, rng.choice(pick))
                    steps += 1
                assert state.is_over, (rules.name, players, seed)
                lengths.append(steps)
                out += state.went_out is not None
            print(
                f"{rules.name:15} {players}p {'greedy ' if greedy else 'uniform'}: "
                f"max {max(lengths)} mean {sum(lengths) / games:.0f} min {min(lengths)} steps; "
                f"went out {out}/{games}; {time.perf_counter() - started:.1f}s"
            )


if __name__ == "__main__":
    survey(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
