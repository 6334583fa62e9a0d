"""The hidden-information boundary: what a seat receives depends on its view alone.

The main property: take a state reached by random play (under a variant or random house rules),
deal everything a seat cannot see anew into another consistent state (``determinize``), and
compare the two — the views, the legal actions, and the refusal (code and message) of many probe
actions, among them takes built with the cards below a closed pile's top and cards from nowhere.
The view itself must answer the same: ``legal_actions(view)``, ``is_legal(view, a)`` and
``why_illegal(view, a)`` equal what the state answers for that seat.

Run ``BURACO_SURVEY=20 python -m pytest -s tests/test_boundary.py`` for a one-off survey with 20
times the examples; the counts of states, probes and house rules tried are printed at the end.
"""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from collections.abc import Iterator

import attrs
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.cards import DECK, all_cards
from buraco_rules.engine.going_out import may_discard_last
from buraco_rules.hidden.determinize import canonical_state
from forging import forged

VARIANTS = tuple(variants.get(name) for name in variants.NAMES)
CONFIGS = [(rules, n) for rules in VARIANTS for n in rules.player_counts]
CONFIG_IDS = [f"{rules.name}-{n}p" for rules, n in CONFIGS]
CARDS = all_cards()
SEEDS = st.integers(0, 2**32 - 1)
E = br.ErrorCode
F = variants.BURACO_FECHADO

COUNTS: Counter[str] = Counter()
"""What the property tests tried in this run (printed by ``python tests/test_boundary.py``)."""


SURVEY = int(os.environ.get("BURACO_SURVEY", "1"))
"""Multiplies every example count: ``BURACO_SURVEY=20 pytest -s tests/...`` for a one-off survey
(the counts are printed at the end of the module with ``-s``)."""


@pytest.fixture(scope="module", autouse=True)
def _report_counts() -> Iterator[None]:
    yield
    COUNTS["distinct house-rule variations"] = len(HOUSE_RULES)
    if COUNTS:
        print("\n" + ", ".join(f"{k}: {v}" for k, v in sorted(COUNTS.items())))


def examples(n: int) -> settings:
    return settings(
        max_examples=n * SURVEY,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- house rules and random play ---------------------------------------------------------------


@st.composite
def house_rules(draw: st.DrawFn, rules: br.RuleSet) -> br.RuleSet:
    """``rules`` as it is, or (most of the time) with random rulings changed: the pile closed or
    open, the ways of going out, sets, aces, the stock's reserve, smaller deals (so that the end
    game comes sooner)."""
    if draw(st.integers(0, 3)) == 0:
        return rules
    changes: dict[str, object] = {}
    for name in (
        "closed_discard_pile",
        "single_taken_card_discard_banned",
        "going_out_needs_clean_canasta",
        "may_go_out_by_melding",
        "may_go_out_discarding_wildcard",
        "extra_pile_becomes_stock",
        "sets_allowed",
        "discard_pile_starts_face_up",
        "untouched_extra_pile_is_void",
    ):
        if draw(st.booleans()):
            changes[name] = not getattr(rules, name)
    if draw(st.booleans()):
        changes["max_natural_aces_in_run"] = draw(st.sampled_from((1, 2)))
    if draw(st.booleans()):
        changes["stock_reserve"] = draw(st.integers(0, 3))
    if draw(st.booleans()):
        changes["hand_size"] = draw(st.integers(3, 13))
        changes["extra_pile_size"] = draw(st.integers(2, 11))
    house = attrs.evolve(rules, **changes)
    event(f"house rules: {len(changes)} changes")
    return house


def play(rules: br.RuleSet, players: int, rng: random.Random) -> Iterator[br.GameState]:
    """Every state of one random game; half the time, melds and takes are preferred so that the
    end game (extra piles, going out, R12-R14) comes up often."""
    state = br.new_game(rules, players, seed=rng.getrandbits(64))
    greedy = rng.random() < 0.5
    while True:
        yield state
        if state.is_over:
            return
        actions = br.legal_actions(state)
        assert actions, "a hand in progress must have a legal action"
        melds = [a for a in actions if not isinstance(a, br.DrawFromStock | br.Discard)]
        pool = melds if greedy and melds and rng.random() < 0.6 else actions
        state = br.apply(state, rng.choice(pool))


# --- probes ------------------------------------------------------------------------------------


def probes(state: br.GameState, seat: int, rng: random.Random) -> list[object]:
    """Actions to try, legal and (mostly) not, built from what ``state`` holds: the seat's hand,
    the cards it cannot see (below the pile's top, other hands, the stock), cards from nowhere,
    melds of every index, legal actions of the seat to act and of nobody."""
    hand = state.hands[seat]
    team = seat % 2
    melds = state.melds[team]
    pile = state.discard_pile
    hidden = [c for s in range(state.players) if s != seat for c in state.hands[s]]
    hidden += state.stock[:8]
    below = list(pile[:-1]) if state.rules.closed_discard_pile else []
    for extra in state.extra_piles:
        hidden += (extra or ())[:4]

    def some(cards: list[br.Card] | tuple[br.Card, ...], most: int = 4) -> list[br.Card]:
        if not cards:  # an empty hand (the hand is over): a card from nowhere
            return [rng.choice(CARDS)]
        return rng.sample(list(cards), rng.randint(1, min(len(cards), most)))

    def index() -> int:
        return rng.randint(0, len(melds) + 1)

    out: list[object] = [br.DrawFromStock(), br.TakeDiscardPile()]
    out += [br.Discard(c) for c in some(hand, 3)]
    out += [br.Discard(rng.choice(CARDS)), br.NewMeld(some(CARDS, 5))]
    out += [
        br.NewMeld(some(hand)),
        br.NewMeld(some(hand, 7)),
        br.NewMeld(some(hand) + some(hidden)),
    ]
    out += [br.AddToMeld(index(), some(hand)), br.AddToMeld(index(), some(hand) + some(hidden))]
    if pile:
        top = pile[-1]
        for pool in (list(hand), below, hidden, list(CARDS)):
            if pool:
                out.append(br.TakeDiscardPile(br.NewMeld([*some(hand, 3), *some(pool, 2), top])))
                out.append(br.TakeDiscardPile(br.NewMeld([*some(pool, 3), top])))
                out.append(br.TakeDiscardPile(br.AddToMeld(index(), [*some(pool, 2), top])))
        if below:  # runs through the top card, with cards from below it (R10)
            for card in below[-3:]:
                out.append(br.TakeDiscardPile(br.NewMeld([card, top, *some(hand, 2)])))
        out.append(br.TakeDiscardPile(br.NewMeld(some(hand, 3))))
        for i in range(len(melds)):  # the top card onto each meld, with or without hand cards
            out.append(br.TakeDiscardPile(br.AddToMeld(i, [top])))
            out.append(br.TakeDiscardPile(br.AddToMeld(i, [top, *some(hand, 2)])))
    for i in range(len(melds)):
        out.append(br.AddToMeld(i, some(hand, 2)))
    if state.phase is not br.Phase.OVER and state.current_player == seat:
        actions = br.legal_actions(state)
        out += rng.sample(actions, min(len(actions), 6))
    out += ["draw", None, forged(br.Discard, None), forged(br.AddToMeld, "x", hand[:1])]
    out += [forged(br.TakeDiscardPile, 5), forged(br.NewMeld, tuple(hidden[:3]) + (0.5,))]
    return out


def refusal(where: br.GameState | br.PlayerView, action: object, player: int) -> object:
    """The refusal a seat receives (code and message), or "ok"."""
    if isinstance(where, br.PlayerView):
        error = br.why_illegal(where, action)
    else:
        error = br.why_illegal(where, action, player=player)
    return "ok" if error is None else (error.code, str(error))


def unseen_multiset(state: br.GameState, seat: int) -> Counter[br.Card]:
    """The cards ``seat`` cannot see in ``state``, counted directly from the state."""
    cards = Counter(c for s in range(state.players) if s != seat for c in state.hands[s])
    cards.update(state.stock)
    if state.rules.closed_discard_pile:
        cards.update(state.discard_pile[:-1])
    for extra in state.extra_piles:
        cards.update(extra or ())
    return cards


def scramble(state: br.GameState, seat: int, rng: random.Random) -> br.GameState:
    """``state`` with the cards hidden from ``seat`` shuffled among their hidden places (each
    keeping its size), independently of ``determinize``; the seat to act keeps a copy of a card
    just taken from an open pile (R11), and a hand of one card that it may discard (R14), as it
    must."""
    closed = state.rules.closed_discard_pile
    others = [s for s in range(state.players) if s != seat]
    below = state.discard_pile[:-1] if closed else ()
    hidden = [c for s in others for c in state.hands[s]] + list(state.stock) + list(below)
    hidden += [c for p in state.extra_piles if p is not None for c in p]
    single = state.taken_single_card
    kept = single if single is not None and state.current_player != seat else None
    actor = state.current_player
    if (
        kept is None
        and actor != seat
        and state.phase is br.Phase.PLAY
        and len(state.hands[actor]) == 1
    ):
        team = actor % 2  # R14: the one card must be one the seat may discard
        fitting = [c for c in hidden if may_discard_last(state, team, c, state.melds[team], None)]
        kept = rng.choice(fitting)
    if kept is not None:
        hidden.remove(kept)
    rng.shuffle(hidden)
    cards = iter(hidden)

    def deal(n: int) -> tuple[br.Card, ...]:
        return tuple(next(cards) for _ in range(n))

    hands = list(state.hands)
    for s in others:
        if s == state.current_player and kept is not None:
            hands[s] = tuple(sorted((kept, *deal(len(state.hands[s]) - 1))))
        else:
            hands[s] = tuple(sorted(deal(len(state.hands[s]))))
    stock = deal(len(state.stock))
    pile = deal(len(below)) + state.discard_pile[-1:] if closed else state.discard_pile
    piles = tuple(None if p is None else deal(len(p)) for p in state.extra_piles)
    return br.validate(
        attrs.evolve(state, hands=tuple(hands), stock=stock, discard_pile=pile, extra_piles=piles)
    )


# --- the property ------------------------------------------------------------------------------


def check_boundary(state: br.GameState, seat: int, rng: random.Random) -> None:
    seen = br.view(state, seat)
    dealt = br.determinize(seen, rng)
    shuffled = scramble(state, seat, rng)
    assert br.validate(dealt) is dealt
    assert br.validate(canonical_state(seen)) is canonical_state(seen)
    assert br.view(dealt, seat) == seen == br.view(shuffled, seat)
    assert unseen_multiset(dealt, seat) == unseen_multiset(state, seat)
    assert Counter(br.unseen_cards(seen)) == unseen_multiset(state, seat)
    assert seen.public_points == tuple(s.table + s.canastas for s in br.score(state))
    assert seen.extra_pile_became_stock == tuple(
        state.extra_piles[t] is None and not state.extra_pile_taken[t] for t in (0, 1)
    )
    assert seen.top_of_discard_pile == state.top_of_discard_pile
    assert seen.outcome == state.outcome
    assert br.legal_actions(seen) == (br.legal_actions(state) if seen.is_my_turn else ())
    if seen.is_my_turn:
        assert br.legal_actions(dealt) == br.legal_actions(state)
        assert br.legal_actions(shuffled) == br.legal_actions(state)
        COUNTS["legal actions compared"] += len(br.legal_actions(state))
    for action in probes(state, seat, rng):
        expected = refusal(state, action, seat)
        assert refusal(dealt, action, seat) == expected, action
        assert refusal(shuffled, action, seat) == expected, action
        assert refusal(seen, action, seat) == expected, action
        assert br.is_legal(seen, action) == (expected == "ok"), action
        COUNTS["probe actions"] += 1
        if expected == "ok":
            COUNTS["probes legal"] += 1
        elif isinstance(expected, tuple):
            COUNTS[f"probes refused {expected[0]}"] += 1
    COUNTS["states"] += 1
    if seen.is_my_turn:
        COUNTS["states (the seat to act)"] += 1


HOUSE_RULES: set[br.RuleSet] = set()
"""The distinct house-rule variations the property test played."""


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=CONFIG_IDS)
@examples(5)
@given(data=st.data())
def test_refusals_and_legal_actions_depend_on_the_view_alone(
    rules: br.RuleSet, players: int, data: st.DataObject
) -> None:
    house = data.draw(house_rules(rules), label="rules")
    COUNTS["games"] += 1
    if house != rules:
        COUNTS["games under house rules"] += 1
        HOUSE_RULES.add(house)
    rng = random.Random(data.draw(SEEDS, label="seed"))
    for state in play(house, players, rng):
        if rng.random() < 0.12 or state.is_over:
            check_boundary(state, state.current_player, rng)
            check_boundary(state, rng.randrange(players), rng)


@st.composite
def closed_take_leaving_one_hidden_card(draw: st.DrawFn) -> br.GameState:
    """A closed pile of two cards, X below T on top; seat 0 (to draw) holds exactly the cards that
    meld with T, so the take would leave X alone in the hand (R10, R14). The team's extra pile is
    taken, and it holds a clean canasta or not; the rules on going out vary."""
    rules = attrs.evolve(
        F,
        may_go_out_discarding_wildcard=draw(st.booleans()),
        may_go_out_by_melding=draw(st.booleans()),
        going_out_needs_clean_canasta=draw(st.booleans()),
    )
    suit = draw(st.integers(0, 3))
    low = draw(st.integers(2, 8))  # 3 to 9: a run of three natural cards
    run = [br.Card.from_id(13 * suit + r) for r in range(low, low + 3)]
    top = run.pop(draw(st.integers(0, 2)))
    below = draw(st.sampled_from(CARDS))
    other_suit = "D" if suit == 0 else "C"
    canasta_cards = br.parse_cards(" ".join(f"{r}{other_suit}" for r in range(3, 10)))
    canasta = br.Meld.from_cards(canasta_cards, rules)
    melds = (canasta,) if canasta is not None and draw(st.booleans()) else ()
    pool = Counter(DECK) - Counter([*run, top, below, *(c for m in melds for c in m.cards)])
    rest = sorted(pool.elements())
    draw(st.randoms(use_true_random=False)).shuffle(rest)
    state = br.new_game(rules, 2, seed=0)
    return br.validate(
        attrs.evolve(
            state,
            hands=(tuple(sorted(run)), tuple(sorted(rest[:8]))),
            discard_pile=(below, top),
            melds=(melds, ()),
            extra_piles=(None, tuple(rest[8:19])),
            extra_pile_taken=(True, False),
            stock=tuple(rest[19:]),
        )
    )


@examples(40)
@given(state=closed_take_leaving_one_hidden_card(), data=st.data())
def test_R14_a_take_leaving_one_hidden_card_is_decided_without_it(
    state: br.GameState, data: st.DataObject
) -> None:
    # The card below the top could be any unseen card: the legal actions and the refusal of the
    # take must be the same whichever it is.
    rng = random.Random(data.draw(SEEDS, label="seed"))
    take = br.TakeDiscardPile(br.NewMeld((*state.hands[0], state.discard_pile[-1])))
    expected = refusal(state, take, 0)
    event(f"the take: {expected if expected == 'ok' else expected[0]}")  # type: ignore[index]
    for _ in range(4):
        other = scramble(state, 0, rng)
        assert br.legal_actions(other) == br.legal_actions(state)
        assert refusal(other, take, 0) == expected
        assert refusal(br.view(other, 0), take, 0) == expected
    COUNTS["R14 hidden-card states"] += 1


# --- a view drives a client --------------------------------------------------------------------


def test_a_view_drives_a_client() -> None:
    state = br.new_game(F, 4, seed=3)
    for seat in range(4):
        seen = br.view(state, seat)
        if seat == state.current_player:
            assert br.legal_actions(seen) == br.legal_actions(state) == (br.DrawFromStock(),)
            assert br.is_legal(seen, br.DrawFromStock())
            assert br.why_illegal(seen, br.DrawFromStock()) is None
        else:
            assert br.legal_actions(seen) == ()
            assert not br.is_legal(seen, br.DrawFromStock())
            error = br.why_illegal(seen, br.DrawFromStock())
            assert error is not None and error.code is E.NOT_YOUR_TURN
    with pytest.raises(TypeError, match="PlayerView"):
        br.apply(br.view(state, 0), br.DrawFromStock())  # type: ignore[arg-type]


def test_view_carries_what_a_client_shows() -> None:
    state = br.new_game(variants.ITALIAN, 4, seed=5)
    rng = random.Random(5)
    while not state.melds[0] or not state.melds[1]:
        state = br.apply(state, rng.choice(br.legal_actions(state)))
    seen = br.view(state, 1)
    assert seen.top_of_discard_pile == state.top_of_discard_pile
    assert seen.current_team == state.current_team and seen.team == 1
    scores = br.score(state)
    assert seen.public_points == tuple(s.table + s.canastas for s in scores)
    assert seen.extra_pile_became_stock == (False, False)


def test_why_illegal_on_a_view_speaks_for_its_seat_only() -> None:
    seen = br.view(br.new_game(F, 2, seed=1), 0)
    with pytest.raises(ValueError, match="seat 0"):
        br.why_illegal(seen, br.DrawFromStock(), player=1)
    assert br.why_illegal(seen, br.DrawFromStock(), player=0) is None


def test_determinize_is_reproducible_and_varies() -> None:
    seen = br.view(br.new_game(F, 4, seed=9), 1)
    one = br.determinize(seen, random.Random(1))
    assert one == br.determinize(seen, random.Random(1))
    assert one != br.determinize(seen, random.Random(2))
    with pytest.raises(TypeError):
        br.determinize(seen, 1)  # type: ignore[arg-type]


def test_determinize_deals_each_unseen_card_uniformly() -> None:
    # Where one unseen card lands: in the other hand with the hypergeometric probability that
    # at least one of its unseen copies is among that hand's cards.
    seen = br.view(br.new_game(F, 2, seed=4), 0)
    unseen = br.unseen_cards(seen)
    card = unseen[0]
    copies, total, size = unseen.count(card), len(unseen), seen.hand_sizes[1]
    expected = 1 - math.comb(total - copies, size) / math.comb(total, size)
    rng = random.Random(0)
    hits = sum(card in br.determinize(seen, rng).hands[1] for _ in range(3000))
    assert abs(hits / 3000 - expected) < 0.03  # about 4 standard deviations


def test_determinize_keeps_the_single_taken_card_in_its_takers_hand() -> None:
    # R11: the card just taken from an open pile of one is known to be in the taker's hand.
    state = br.new_game(variants.ITALIAN, 2, seed=2)
    state = br.apply(state, br.TakeDiscardPile())
    assert state.taken_single_card is not None
    seen = br.view(state, 1)
    rng = random.Random(3)
    for _ in range(50):
        guess = br.determinize(seen, rng)
        assert state.taken_single_card in guess.hands[0]
        assert br.view(guess, 1) == seen


def test_unseen_cards_are_the_deck_less_what_the_seat_sees() -> None:
    state = br.new_game(F, 4, seed=11)
    seen = br.view(state, 3)
    assert len(br.unseen_cards(seen)) == len(DECK) - 11
    assert Counter(br.unseen_cards(seen)) + Counter(seen.hand) == Counter(DECK)


# --- the reproducers of the hidden-information issue (they failed on the code before it) -------


def closed_pile_state(below: str) -> br.GameState:
    """Buraco Fechado, 2 players, the closed pile ``below`` A♣ 8♥ (top 8♥), seat 1 to act holding
    6♥ 7♥ and neither 9♥ nor 10♥ (the issue's first reproducer)."""
    seat0 = f"{below} 8H 3C 4C 5C 9D QD KD 3S 4S 6S"
    deck = br.arrange_deck(
        F, 2, hands=[seat0, "6H 7H AC 3D 4D 5D JC QC KC 5S 7S"], stock="KH QH JD"
    )
    state = br.new_game(F, 2, deck=deck)
    for card in (below, "AC", "8H"):  # each draws from the stock and discards
        state = br.apply(state, br.DrawFromStock())
        state = br.apply(state, br.Discard(card))
    assert state.discard_pile == br.parse_cards(f"{below} AC 8H")
    return state


def test_R10_reproducer_a_take_naming_a_card_below_the_top_is_not_in_hand() -> None:
    take = br.TakeDiscardPile(br.NewMeld("6H 7H 8H 9H"))
    under = br.why_illegal(closed_pile_state("9H"), take, player=1)
    elsewhere = br.why_illegal(closed_pile_state("10H"), take, player=1)
    assert under is not None and elsewhere is not None
    assert under.code is elsewhere.code is E.NOT_IN_HAND
    assert str(under) == str(elsewhere)
    assert "9♥ is not in your hand" in str(under)


def test_reproducer_a_view_drives_legal_actions_is_legal_and_why_illegal() -> None:
    state = br.new_game(F, 4, seed=1)
    seen = br.view(state, 0)
    assert br.legal_actions(seen) == br.legal_actions(state)
    assert br.is_legal(seen, br.DrawFromStock())
    assert br.why_illegal(seen, br.Discard("5S")) is not None


def test_R14_a_closed_pile_take_leaving_one_unseen_card_is_decided_without_it() -> None:
    # House rules: a closed pile and no wildcard as the last discard. Seat 0's team has taken its
    # extra pile and holds a clean canasta; seat 0 holds 6♥ 7♥ and the pile is X, 8♥ (top). The
    # take 6♥ 7♥ 8♥ would leave X alone in the hand: whether X is a wildcard is hidden, so the
    # answer must be the same either way (refused: X might not be discardable).
    rules = attrs.evolve(F, may_go_out_discarding_wildcard=False)
    canasta = br.NewMeld("3S 4S 5S 6S 7S 8S 9S")
    answers = []
    for below in ("JK", "KD"):
        deck = br.arrange_deck(rules, 2, hands=["6H 7H", "3D 4D 5D JC QC KC"])
        state = br.new_game(rules, 2, deck=deck)
        pool = Counter(DECK) - Counter(br.parse_cards("6H 7H 3D 4D 5D JC QC KC 8H"))
        pool -= Counter(canasta.cards) + Counter([br.Card(below)])
        rest = sorted(pool.elements())
        state = attrs.evolve(
            state,
            hands=(br.parse_cards("6H 7H"), tuple(rest[:6])),
            discard_pile=(br.Card(below), br.Card("8H")),
            melds=((br.Meld.from_cards(canasta.cards, rules),), ()),
            extra_piles=(None, tuple(rest[6:17])),
            extra_pile_taken=(True, False),
            stock=tuple(rest[17:]),
        )
        take = br.TakeDiscardPile(br.NewMeld("6H 7H 8H"))
        answers.append((take in br.legal_actions(state), refusal(state, take, 0)))
    assert answers[0] == answers[1]
    assert answers[0][0] is False and answers[0][1][0] is E.CANNOT_GO_OUT


def test_a_view_pickles_and_copies_without_its_cached_state() -> None:
    import copy
    import pickle

    seen = br.view(br.new_game(F, 2, seed=8), 0)
    assert br.legal_actions(seen)  # fills the cache
    for twin in (pickle.loads(pickle.dumps(seen)), copy.deepcopy(seen), copy.copy(seen)):
        assert twin == seen and br.legal_actions(twin) == br.legal_actions(seen)
    assert pickle.loads(pickle.dumps(seen))._state is None


def test_a_move_out_of_turn_is_refused_before_the_legal_actions_are_generated() -> None:
    # A timing we can avoid: generating the legal actions of the seat to act costs what its hand
    # holds, so a probe out of turn must be answered without it (the cache stays empty).
    # The probe is a take with a meld, which only the generator decides (a draw, a discard or
    # an open take is checked without listing the legal actions, in turn or not).
    state = br.new_game(variants.BURACO_FECHADO, 4, seed=5)
    probe = br.TakeDiscardPile(br.NewMeld("5H 6H 7H"))
    for player in (1, 2, 3, 1.0, "0"):
        error = br.why_illegal(state, probe, player=player)
        assert error is not None and error.code is br.ErrorCode.NOT_YOUR_TURN
        assert state._legal is None
    assert br.why_illegal(state, br.DrawFromStock(), player=0) is None
    assert br.why_illegal(state, probe, player=0) is not None  # in turn: listed, then refused
    assert state._legal is not None
