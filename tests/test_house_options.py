"""The catalogue of house rules (R26 on): each a ``RuleSet`` field that every preset leaves off,
with one home in the code that the generator, the checker and the builders all call.

Each option has the same tests as R25 (``tests/test_house_rules.py``): example tests named for
its ruling, each refusal's code and player's message, the generator's list equal to the checker's
brute-force enumeration under the option, random play in every variant and player count with the
option on (no dead end, every hand within ``longest_hand``), ``validate`` and the JSON codec, and
the re-deal property (a refusal depends on nothing the seat cannot see). Kept cheap: a few
seconds an option."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import GreedyBot
from buraco_rules.core.cards import all_cards
from buraco_rules.engine.checks import check
from buraco_rules.engine.recipes import result_of
from test_movegen import accepted

PRESETS = (variants.BURACO_FECHADO, variants.CANASTA_STBL, variants.ITALIAN, variants.ITALIAN_FIBUR)
CLOSED = tuple(rules for rules in PRESETS if rules.closed_discard_pile)
CONFIGS = [(rules, n) for rules in PRESETS for n in rules.player_counts]


def play_randomly(state: br.GameState, rng: random.Random) -> Iterator[br.GameState]:
    """Every state of a random game from ``state``, biased towards melding and taking the pile;
    no live state is without a legal action, and the hand ends within ``longest_hand``."""
    bound = br.longest_hand(state.rules, state.players)
    steps = 0
    while not state.is_over:
        yield state
        actions = br.legal_actions(state)
        assert actions, "a live state with no legal action"
        melds = [a for a in actions if not isinstance(a, br.Discard | br.DrawFromStock)]
        state = br.apply(state, rng.choice(melds if melds and rng.random() < 0.7 else actions))
        steps += 1
        assert steps <= bound


def brute_force(state: br.GameState) -> int:
    """The generator lists exactly what the checker accepts, and each listed meld is the one the
    checker builds; returns how many melds were compared."""
    actions = br.legal_actions(state)
    assert set(actions) == accepted(state)
    _, recipes = state._legal or ((), ())
    compared = 0
    for action, recipe in zip(actions, recipes, strict=True):
        if type(recipe) is tuple:
            assert result_of(state, recipe) == check(state, action)
            compared += 1
    return compared


def random_play_holds(rules: br.RuleSet, players: int, seed: int) -> None:
    """One random hand under ``rules``: no dead end, within the bound, every state valid."""
    rng = random.Random(seed)
    for state in play_randomly(br.new_game(rules, players, seed=seed), rng):
        if rng.random() < 0.1:
            assert br.validate(state) is state


def codec_round_trip(rules: br.RuleSet) -> None:
    assert not rules.is_preset
    assert br.from_json(br.to_json(rules)) == rules
    state = br.new_game(rules, seed=3)
    assert br.from_json(br.to_json(state)) == state


def same_refusal_on_every_redeal(state: br.GameState, action: br.Action, code: br.ErrorCode) -> str:
    """The refusal seat ``current_player`` receives is the same on the state, its view and every
    re-deal of what it cannot see; returns its message."""
    seat = state.current_player
    expected = br.why_illegal(state, action, seat)
    assert expected is not None and expected.code is code, expected
    assert "RuleSet" not in str(expected) and "None" not in str(expected)  # a player's words
    seen = br.view(state, seat)
    on_view = br.why_illegal(seen, action)
    assert on_view is not None and (on_view.code, str(on_view)) == (code, str(expected))
    rng = random.Random(26)
    for _ in range(6):
        other = br.determinize(seen, rng)
        refusal = br.why_illegal(other, action, seat)
        assert refusal is not None and (refusal.code, str(refusal)) == (code, str(expected))
        assert br.legal_actions(other) == br.legal_actions(state)
    return str(expected)


def sampled_brute_force(
    rules: br.RuleSet, players: int, seed: int, keep: Any, states: int = 6
) -> int:
    """Random hands under ``rules``: the generator against the checker on up to ``states`` states
    that ``keep`` picks (hands of ten cards at most: the brute force tries every subset);
    returns how many melds were compared."""
    rng = random.Random(seed)
    compared = 0
    for _ in range(4):
        for state in play_randomly(br.new_game(rules, players, seed=rng.getrandbits(32)), rng):
            if len(state.hands[state.current_player]) > 10 or not keep(state):
                continue
            compared += brute_force(state)
            states -= 1
            if states <= 0:
                return compared
    return compared


# R26: no wildcard from the hand when taking a closed pile (closed_take_naturals_only).

NATURALS = [attrs.evolve(rules, closed_take_naturals_only=True) for rules in CLOSED]


def take_state(rules: br.RuleSet, hand: str, top: str) -> br.GameState:
    """Seat 0 discards ``top``; seat 1, to draw, holds ``hand`` (R10: a closed pile)."""
    deck = br.arrange_deck(
        rules, 2, hands=[f"{top} 3C 5C 7C 9D JD KD 4S 6S 8S QS", hand], stock="KH"
    )
    state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
    return br.apply(state, br.Discard(top))


def test_R26_house_closed_take_naturals_only_is_off_in_every_preset() -> None:
    assert not any(rules.closed_take_naturals_only for rules in PRESETS)
    with pytest.raises(br.InvalidRules, match="closed_take_naturals_only must be True or False"):
        attrs.evolve(variants.BURACO_FECHADO, closed_take_naturals_only=1)
    with pytest.raises(br.InvalidRules, match="needs a closed discard pile"):
        attrs.evolve(variants.ITALIAN, closed_take_naturals_only=True)
    for rules in NATURALS:
        codec_round_trip(rules)


@pytest.mark.parametrize("rules", NATURALS, ids=lambda r: r.name)
def test_R26_house_closed_take_naturals_only_refuses_a_wildcard_from_the_hand(
    rules: br.RuleSet,
) -> None:
    hand = "8H 9H JK 2C 2H AH 3D 5D 7D 9S JS"
    state = take_state(rules, hand, "10H")
    preset = take_state(attrs.evolve(rules, closed_take_naturals_only=False), hand, "10H")
    for wild in ("8H 9H 10H JK", "8H 10H JK", "8H 10H 2C", "9H 10H 2H"):
        take = br.TakeDiscardPile(br.NewMeld(wild))
        assert br.is_legal(preset, take), wild
        assert not br.is_legal(state, take), wild
        message = same_refusal_on_every_redeal(state, take, br.ErrorCode.TAKE_WITH_WILDCARD)
        assert "would stand in for another card" in message
        assert "natural cards of your hand only" in message
    assert br.is_legal(state, br.TakeDiscardPile(br.NewMeld("8H 9H 10H")))
    # The generator lists exactly the preset's takes without a wildcard from the hand.
    takes = [a for a in br.legal_actions(preset) if isinstance(a, br.TakeDiscardPile)]
    natural = [a for a in takes if not any(c.rank == 2 or c == br.JOKER for c in a.meld.cards)]
    assert [a for a in br.legal_actions(state) if isinstance(a, br.TakeDiscardPile)] == natural
    # A refusal for another ruling keeps its code.
    other = br.why_illegal(state, br.TakeDiscardPile(br.NewMeld("8H 10H 3D")))
    assert other is not None and other.code is br.ErrorCode.INVALID_MELD


@pytest.mark.parametrize("rules", NATURALS, ids=lambda r: r.name)
def test_R26_house_closed_take_naturals_only_a_natural_two_may_turn_wild_later_that_turn(
    rules: br.RuleSet,
) -> None:
    """The 2♥ takes the pile in its own place (2-3-4, natural); the 6♥ added later in the same
    turn makes it the wildcard that stands for the 5 (R7): allowed, the rule is about the take."""
    state = take_state(rules, "2H 3H 6H 8C 10C QC 3S 5S 7S 9S JS", "4H")
    take = br.TakeDiscardPile(br.NewMeld("2H 3H 4H"))
    assert br.is_legal(state, take)
    state = br.apply(state, take)
    assert state.melds[1][0].wildcard is None
    assert br.is_legal(state, br.AddToMeld(0, "6H"))
    state = br.apply(state, br.AddToMeld(0, "6H"))
    assert state.melds[1][0].wildcard == br.Card.parse("2H")


@pytest.mark.parametrize("rules", NATURALS, ids=lambda r: r.name)
def test_R26_house_closed_take_naturals_only_a_two_in_its_own_place_is_natural(
    rules: br.RuleSet,
) -> None:
    """R7: a 2 of the run's suit in its own place is a natural card, and so may come from the
    hand; the pile's top card may itself be a wildcard."""
    state = take_state(rules, "AH 2H 4H 8C 9C 3D 5D 7D 9S JS QS", "3H")
    assert br.is_legal(state, br.TakeDiscardPile(br.NewMeld("AH 2H 3H")))
    assert br.is_legal(state, br.TakeDiscardPile(br.NewMeld("AH 2H 3H 4H")))
    top_wild = take_state(rules, "8H 9H 4H 8C 9C 3D 5D 7D 9S JS QS", "JK")
    assert br.is_legal(top_wild, br.TakeDiscardPile(br.NewMeld("8H 9H JK")))


@pytest.mark.parametrize(("rules", "players"), [(NATURALS[0], 4), (NATURALS[1], 2)])
def test_R26_house_closed_take_naturals_only_generator_lists_what_the_checker_accepts(
    rules: br.RuleSet, players: int
) -> None:
    def keep(state: br.GameState) -> bool:
        hand = state.hands[state.current_player]
        return (
            state.phase is br.Phase.DRAW
            and bool(state.discard_pile)
            and any(c.rank == 2 or c == br.JOKER for c in hand)
        )

    assert sampled_brute_force(rules, players, 26 + players, keep) > 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from([(r, n) for r in NATURALS for n in r.player_counts]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_R26_house_closed_take_naturals_only_random_play_never_sticks(
    config: tuple[br.RuleSet, int], seed: int
) -> None:
    random_play_holds(*config, seed)


# R27: sets of chosen ranks only (set_ranks).

CHOSEN = [attrs.evolve(rules, sets_allowed=True, set_ranks="AK") for rules in PRESETS]


def test_R27_house_set_ranks_is_off_in_every_preset() -> None:
    assert all(rules.set_ranks is None for rules in PRESETS)
    # True and False are the extremes: every rank but the 2s, or none.
    assert variants.ITALIAN.set_rank_mask == sum(1 << r for r in range(13) if r != 1)
    assert variants.BURACO_FECHADO.set_rank_mask == 0
    for wrong in ("KA", "A2", "", "AAK", "T", "ak", 1, ("A", "K")):
        with pytest.raises(br.InvalidRules, match="set_ranks must be None or the labels"):
            attrs.evolve(variants.ITALIAN, set_ranks=wrong)
    with pytest.raises(br.InvalidRules, match="set_ranks needs sets"):
        attrs.evolve(variants.BURACO_FECHADO, set_ranks="AK")
    assert attrs.evolve(variants.ITALIAN, set_ranks="A10JQK").set_rank_mask == (
        1 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 12
    )
    for rules in CHOSEN:
        codec_round_trip(rules)


def test_R27_house_set_ranks_option_writes_the_10_as_card_notation_does() -> None:
    """Card notation writes the 10 as 10 or T, so the option does too; the rule set keeps 10."""
    assert br.parse_cards("TH") == br.parse_cards("10H")
    rules = variants.with_options("italian", set_ranks="ATK")
    assert rules == variants.with_options("italian", set_ranks="A10K")
    assert rules.set_ranks == "A10K"
    assert variants.parse_option("set_ranks=TJQK") == ("set_ranks", "10JQK")
    assert variants.options_of(rules) == {"set_ranks": "A10K"}
    for wrong in ("T10", "KT", "t"):
        with pytest.raises(br.InvalidRules, match=f"option set_ranks takes .* not '{wrong}'"):
            variants.with_options("italian", set_ranks=wrong)


@pytest.mark.parametrize("rules", CHOSEN, ids=lambda r: r.name)
def test_R27_house_set_ranks_lays_sets_of_the_chosen_ranks_only(rules: br.RuleSet) -> None:
    everything = attrs.evolve(rules, set_ranks=None)
    for text in ("AH AS AD", "KH KS JK", "KC KD KH KS KC KD KH KS 2C"):
        meld = br.Meld.from_cards(br.parse_cards(text), rules)
        assert meld is not None and meld.kind is br.MeldKind.SET, text
    for text in ("5H 5S 5D", "QH QS JK", "3C 3D 3H"):
        assert br.Meld.from_cards(br.parse_cards(text), everything) is not None
        assert br.Meld.from_cards(br.parse_cards(text), rules) is None, text
    # Runs are untouched.
    assert br.Meld.from_cards(br.parse_cards("5H 6H 7H"), rules) is not None


@pytest.mark.parametrize("rules", CHOSEN, ids=lambda r: r.name)
def test_R27_house_set_ranks_refuses_a_set_of_another_rank_with_its_code(
    rules: br.RuleSet,
) -> None:
    hand = "5C 5D 5H AC AD AH KC KD 9S JS QS"
    deck = br.arrange_deck(rules, 2, hands=[hand], stock="3H")
    state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
    assert br.is_legal(state, br.NewMeld("AC AD AH"))
    message = same_refusal_on_every_redeal(state, br.NewMeld("5C 5D 5H"), br.ErrorCode.SET_RANK)
    assert "sets are of A, K only" in message and "(R27, a house rule)" in message
    sets = [a for a in br.legal_actions(state) if isinstance(a, br.NewMeld) and len(a.cards) >= 3]
    assert {a.cards[0].rank for a in sets if a.cards[0].rank == a.cards[-1].rank} <= {1, 13}
    # Not a meld at all keeps its code.
    wrong = br.why_illegal(state, br.NewMeld("5C 9S QS"))
    assert wrong is not None and wrong.code is br.ErrorCode.INVALID_MELD
    if rules.closed_discard_pile:
        taker = take_state(rules, "5C 5D AC AD 9S JS 3D 7D 8C 4H 6H", "5H")
        take = br.TakeDiscardPile(br.NewMeld("5C 5D 5H"))
        same_refusal_on_every_redeal(taker, take, br.ErrorCode.SET_RANK)
        assert not br.is_legal(taker, take)


@pytest.mark.parametrize(("rules", "players"), [(CHOSEN[0], 4), (CHOSEN[2], 2), (CHOSEN[3], 4)])
def test_R27_house_set_ranks_generator_lists_what_the_checker_accepts(
    rules: br.RuleSet, players: int
) -> None:
    def keep(state: br.GameState) -> bool:
        hand = state.hands[state.current_player]
        ranks = [c.rank for c in hand if c.rank != 2 and c != br.JOKER]
        return any(ranks.count(r) >= 2 for r in ranks)  # a set could be laid or taken

    assert sampled_brute_force(rules, players, 27 + players, keep) > 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from([(r, n) for r in CHOSEN for n in r.player_counts]),
    ranks=st.sampled_from(["AK", "A", "3", "10JQK", "A345678910JQK"]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_R27_house_set_ranks_random_play_never_sticks(
    config: tuple[br.RuleSet, int], ranks: str, seed: int
) -> None:
    rules, players = config
    random_play_holds(attrs.evolve(rules, set_ranks=ranks), players, seed)


# The catalogue offered: variants.with_options, and --option NAME=VALUE on the command line.


def test_with_options_names_a_table_as_a_preset_plus_options() -> None:
    rules = variants.with_options(
        "buraco-fechado", closed_take_naturals_only=True, set_ranks="AK", minimum_opening=50
    )
    assert rules == attrs.evolve(
        variants.BURACO_FECHADO,
        closed_take_naturals_only=True,
        sets_allowed=True,
        set_ranks="AK",
        minimum_opening=50,
    )
    assert not rules.is_preset and rules.name == "buraco-fechado"
    assert variants.with_options(variants.ITALIAN) is variants.ITALIAN
    assert set(variants.OPTIONS) <= {f.name for f in attrs.fields(br.RuleSet)}
    for preset, options, named in (
        ("italian", {"closed_take_naturals_only": True}, "closed_take_naturals_only"),
        ("italian", {"no_such_rule": 1}, "no_such_rule"),
        ("italian", {"name": "x"}, "'name'"),  # a field, but no house rule
        ("italian", {"minimum_opening": 14}, "minimum_opening"),
        ("italian", {"set_ranks": "2"}, "set_ranks"),
        ("nowhere", {}, "nowhere"),
        (attrs.evolve(variants.ITALIAN, minimum_opening=50), {}, "not a preset"),
        ("italian", {"locked_wildcards": None}, "locked_wildcards takes true or false, not null"),
        (
            "italian",
            {"set_ranks": None, "minimum_opening": "x"},
            "minimum_opening takes 0 .off. or",
        ),
        ("italian", {"long_meld_size": 9}, "long_meld_size and long_meld_bonus go together"),
        ("italian", {"opening_thresholds": "x"}, "opening_thresholds takes a list of"),
    ):
        with pytest.raises(br.InvalidRules, match=named) as error:
            variants.with_options(preset, **options)  # type: ignore[arg-type]
        assert "RuleSet." not in str(error.value) and "None" not in str(error.value)


def test_options_of_names_the_house_rules_in_force_as_the_command_line_writes_them() -> None:
    rules = variants.with_options(
        "italian", locked_wildcards=True, opening_thresholds=[[1500, 50]], set_ranks="AK"
    )
    found = variants.options_of(rules)
    assert found == {
        "set_ranks": "AK",
        "locked_wildcards": True,
        "opening_thresholds": [[1500, 50]],
    }
    assert variants.with_options("italian", **found) == rules
    for name, value in found.items():
        assert variants.parse_option(variants.option_text(name, value)) == (
            name,
            tuple(map(tuple, value)) if type(value) is list else value,
        )
    assert all(variants.options_of(preset) == {} for preset in PRESETS)


def test_options_for_lists_the_options_each_preset_may_take() -> None:
    for preset in PRESETS:
        listed = variants.options_for(preset.name)
        assert set(listed) <= set(variants.OPTIONS)
        for name in variants.OPTIONS:
            value = {"set_ranks": "AK", "opening_thresholds": ((1500, 50),)}.get(name, True)
            if name in ("minimum_opening", "long_meld_size", "long_meld_bonus"):
                value = {"minimum_opening": 50, "long_meld_size": 10}.get(name, 50)
            extra = {"long_meld_bonus": 50} if name == "long_meld_size" else {}
            extra = {"long_meld_size": 10} if name == "long_meld_bonus" else extra
            try:
                variants.with_options(preset, **{name: value}, **extra)
            except br.InvalidRules:
                assert name not in listed, (preset.name, name)
            else:
                assert name in listed, (preset.name, name)
        assert ("turns sets on" in listed["set_ranks"]) is not preset.sets_allowed
    assert "closed_take_naturals_only" not in variants.options_for("italian")


def test_parse_option_reads_the_command_line_form() -> None:
    assert variants.parse_option("closed_take_naturals_only=true") == (
        "closed_take_naturals_only",
        True,
    )
    assert variants.parse_option("minimum_opening=50") == ("minimum_opening", 50)
    assert variants.parse_option("set_ranks=AK") == ("set_ranks", "AK")
    for wrong in ("ace_low_only", "ace_low_only=yes", "minimum_opening=-5", "x=1", "=1"):
        with pytest.raises(br.InvalidRules):
            variants.parse_option(wrong)


def test_cli_option_plays_simulate_match_and_refuses_a_contradiction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from buraco_rules.cli import main

    options = ["--option", "closed_take_naturals_only=true", "--option", "set_ranks=AK"]
    capsys.readouterr()
    assert main(["simulate", "--games", "2", "--json", *options]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["options"] == {"closed_take_naturals_only": True, "set_ranks": "AK"}
    assert main(["simulate", "--games", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"] == {}
    assert main(["simulate", "--games", "1", *options]) == 0
    header = capsys.readouterr().out.splitlines()[1]
    assert header == "house rules: closed_take_naturals_only=true, set_ranks=AK"
    thresholds = ["--option", "opening_thresholds=1000:50,2000:90"]
    assert main(["match", "--seed", "3", "--max-hands", "1", *thresholds]) == 0
    assert "house rules: opening_thresholds=1000:50,2000:90" in capsys.readouterr().out
    for wrong, said in (
        (["--variant", "italian", "--option", "closed_take_naturals_only=true"], "closed"),
        (["--option", "bogus=1"], "bogus"),
        (["--option", "set_ranks=AK", "--option", "set_ranks=K"], "set_ranks is given 2 times"),
        (["--option", "opening_thresholds=1500:50"], "a single hand has none"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(["simulate", "--games", "1", *wrong])
        assert stop.value.code == 2
        errors = capsys.readouterr().err.splitlines()
        assert said in errors[-1] and not [e for e in errors if "error" in e][1:]


# R28: a bonus per long meld (long_meld_size, long_meld_bonus); and the 2 worth 20 (card_values).

LONG = [attrs.evolve(rules, long_meld_size=10, long_meld_bonus=50) for rules in PRESETS]


def test_R28_house_long_meld_bonus_is_off_in_every_preset() -> None:
    assert all(r.long_meld_size == 0 and r.long_meld_bonus == 0 for r in PRESETS)
    for size, bonus in ((7, 50), (15, 50), (True, 50)):
        with pytest.raises(br.InvalidRules, match="long_meld_size must be 0 or an int from 8"):
            attrs.evolve(variants.ITALIAN, long_meld_size=size, long_meld_bonus=bonus)
    for size, bonus in ((10, 0), (0, 50)):
        with pytest.raises(br.InvalidRules, match=r"both 0 \(off\) or both set"):
            attrs.evolve(variants.ITALIAN, long_meld_size=size, long_meld_bonus=bonus)
    for rules in LONG:
        codec_round_trip(rules)


@pytest.mark.parametrize("rules", LONG, ids=lambda r: r.name)
def test_R28_house_long_meld_bonus_adds_to_the_canasta_bonus(rules: br.RuleSet) -> None:
    preset = attrs.evolve(rules, long_meld_size=0, long_meld_bonus=0)
    for text, extra in (
        ("3H 4H 5H 6H 7H 8H 9H 10H JH", 0),  # nine cards: a canasta, not long
        ("3H 4H 5H 6H 7H 8H 9H 10H JH QH", 50),  # ten: long
        ("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK", 50),  # mixed and long
        ("3H 4H 5H", 0),  # no canasta, no bonus at all
    ):
        meld = br.Meld.from_cards(br.parse_cards(text), rules)
        assert meld is not None
        assert br.canasta_bonus(meld, rules) == br.canasta_bonus(meld, preset) + extra, text


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.sampled_from(CONFIGS), seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_R28_house_long_meld_bonus_changes_scores_only(
    config: tuple[br.RuleSet, int], seed: int
) -> None:
    """The same moves are legal with and without it (the generator and the checker are those of
    the preset), and the score differs by the bonus of each long meld."""
    preset, players = config
    rules = attrs.evolve(preset, long_meld_size=8, long_meld_bonus=75)
    rng = random.Random(seed)
    last = None
    for state in play_randomly(br.new_game(rules, players, seed=seed), rng):
        if rng.random() < 0.2:
            assert br.legal_actions(state) == br.legal_actions(attrs.evolve(state, rules=preset))
        last = state
    assert last is not None
    for team in (0, 1):
        long = sum(1 for m in last.melds[team] if len(m.cards) >= 8)
        with_it = br.score(last)[team].canastas
        assert with_it == br.score(attrs.evolve(last, rules=preset))[team].canastas + 75 * long
        seen = br.view(last, team)
        assert seen.public_points[team] == br.score(last)[team].table + with_it
        assert br.determinize(seen, rng).rules == rules


def test_R28_the_two_worth_20_is_card_values() -> None:
    """The Brazilian apps that price the 2 at 20 (wild or natural, on the table or in the hand):
    ``attrs.evolve(rules, card_values=...)``, no new field."""
    rules = attrs.evolve(
        variants.BURACO_FECHADO,
        card_values=attrs.evolve(variants.BURACO_FECHADO.card_values, two=20),
    )
    assert rules.value_by_id[br.Card.parse("2H")] == 20 and not rules.is_preset
    deck = br.arrange_deck(rules, 2, hands=["AH 2H 3H 4H 5H 2S 9C 9D 9S 10C JD"])
    state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
    state = br.apply(state, br.NewMeld("AH 2H 3H 4H 5H"))  # a natural 2
    state = br.apply(state, br.AddToMeld(0, "2S"))  # a wildcard 2
    points = br.score(state)[0]
    assert points.table == 15 + 20 + 5 * 3 + 20
    assert points.hands == sum(rules.value_by_id[c] for c in state.hands[0])
    assert (
        br.score(attrs.evolve(state, rules=variants.BURACO_FECHADO))[0].table == 15 + 10 + 15 + 10
    )


# R29: locked wildcards (locked_wildcards).

LOCKED = [attrs.evolve(rules, locked_wildcards=True) for rules in PRESETS]


def test_R29_house_locked_wildcards_is_off_in_every_preset() -> None:
    assert not any(rules.locked_wildcards for rules in PRESETS)
    with pytest.raises(br.InvalidRules, match="locked_wildcards must be True or False"):
        attrs.evolve(variants.ITALIAN, locked_wildcards="yes")
    for rules in LOCKED:
        codec_round_trip(rules)


def laid(rules: br.RuleSet, hand: str, meld: str) -> br.GameState:
    deck = br.arrange_deck(rules, 2, hands=[hand], stock="9C")
    state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
    return br.apply(state, br.NewMeld(meld))


@pytest.mark.parametrize("rules", LOCKED, ids=lambda r: r.name)
def test_R29_house_locked_wildcards_refuses_to_move_a_wildcard_between_naturals(
    rules: br.RuleSet,
) -> None:
    preset = attrs.evolve(rules, locked_wildcards=False)
    hand = "3H 4H JK 6H 7H 5H 8H 4S 2S 6S 5S"
    state = laid(rules, hand, "3H 4H JK 6H 7H")
    assert br.is_legal(laid(preset, hand, "3H 4H JK 6H 7H"), br.AddToMeld(0, "5H"))
    message = same_refusal_on_every_redeal(
        state, br.AddToMeld(0, "5H"), br.ErrorCode.LOCKED_WILDCARD
    )
    assert "from between two natural cards" in message and "Joker" in message
    assert br.is_legal(state, br.AddToMeld(0, "8H"))  # it stays where it stands
    assert not any(
        isinstance(a, br.AddToMeld) and br.Card.parse("5H") in a.cards
        for a in br.legal_actions(state)
    )
    # A 2 standing for the 5 is locked as well; a wildcard at an end floats (R8) as before.
    twos = laid(rules, hand, "4S 2S 6S")
    assert br.why_illegal(twos, br.AddToMeld(0, "5S")).code is br.ErrorCode.LOCKED_WILDCARD
    floating = laid(rules, hand, "3H 4H 5H JK")
    assert br.is_legal(floating, br.AddToMeld(0, "6H 7H"))
    # Another refusal keeps its code.
    wrong = br.why_illegal(state, br.AddToMeld(0, "4S"))
    assert wrong is not None and wrong.code is br.ErrorCode.INVALID_MELD


def test_R29_house_locked_wildcards_refuses_a_take_that_would_move_one() -> None:
    rules = LOCKED[0]
    deck = br.arrange_deck(
        rules,
        2,
        hands=["3H 4H 6H 7H JK 9C JC QC 3S 5S 7S", "5H 3D 5D 7D 9D JD KD 4C 6C 8C 10C"],
        stock="KS QD",
    )
    state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
    state = br.apply(state, br.NewMeld("3H 4H JK 6H 7H"))
    state = br.apply(state, br.Discard("KS"))
    state = br.apply(state, br.DrawFromStock())
    state = br.apply(state, br.Discard("5H"))  # seat 0 may not take it onto its run
    same_refusal_on_every_redeal(
        state, br.TakeDiscardPile(br.AddToMeld(0, "5H")), br.ErrorCode.LOCKED_WILDCARD
    )


@pytest.mark.parametrize(("rules", "players"), [(LOCKED[0], 2), (LOCKED[2], 4)])
def test_R29_house_locked_wildcards_generator_lists_what_the_checker_accepts(
    rules: br.RuleSet, players: int
) -> None:
    from buraco_rules.melds.meld import gap_place

    def keep(state: br.GameState) -> bool:
        return any(gap_place(m) for m in state.melds[state.current_player % 2])

    assert sampled_brute_force(rules, players, 29 + players, keep) > 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from([(r, n) for r in LOCKED for n in r.player_counts]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_R29_house_locked_wildcards_random_play_never_sticks(
    config: tuple[br.RuleSet, int], seed: int
) -> None:
    random_play_holds(*config, seed)


# Two clarifications: the semi-clean layout (R22) and a meld built outside a game (R2).


def test_R22_the_wildcard_is_laid_at_the_end_where_the_cards_allow_it() -> None:
    """A, 3-K and a wildcard: W-3...K-A (semi-clean, 150 under the federation's code), not
    A-W-3...K; the meld, the score and a seat's view agree."""
    fibur = variants.ITALIAN_FIBUR
    cards = br.parse_cards("AH JK 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")
    meld = br.Meld.from_cards(cards, fibur)
    assert meld is not None and meld.is_semi_clean
    assert str(meld) == "JK 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"  # W-3...K-A, as R22 says
    assert br.canasta_bonus(meld, fibur) == 150
    assert br.canasta_bonus(meld, variants.ITALIAN) == 100  # no semi-clean price: mixed
    # Without the king the ace cannot stand high: the wildcard fills the 2's gap, mixed.
    short = br.Meld.from_cards(br.parse_cards("AH JK 3H 4H 5H 6H 7H 8H 9H 10H JH QH"), fibur)
    assert short is not None and not short.is_semi_clean and str(short).startswith("AH JK 3H")
    # Where the ace is low only there is no K-A: A-W-3...K stays, mixed.
    low = attrs.evolve(fibur, ace_low_only=True)
    kept = br.Meld.from_cards(cards, low)
    assert kept is not None and not kept.is_semi_clean and br.canasta_bonus(kept, low) == 100
    # Laid in a game, the table, the score and the view read the one layout.
    deck = br.arrange_deck(fibur, 2, hands=["AH 3H 4H 5H 6H 7H 8H 9H 10H JH QH"], stock="KH JK")
    state = br.apply(br.new_game(fibur, 2, deck=deck), br.DrawFromStock())
    state = br.apply(state, br.NewMeld("AH 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"))
    assert br.score(state)[0].canastas == 200  # clean so far
    later = attrs.evolve(state, hands=(state.hands[0] + state.stock[:1], state.hands[1]))
    later = attrs.evolve(later, stock=state.stock[1:])
    after = br.apply(later, br.AddToMeld(0, "JK"))
    assert after.melds[0][0] == meld and after.melds[0][0].is_semi_clean
    assert br.score(after)[0].canastas == 150
    assert br.view(after, 1).melds[0][0] == meld
    assert "Joker 3♥ 4♥" in br.render(br.view(after, 1))  # printed where it stands


def test_R29_a_locked_wildcard_between_the_ace_and_the_3_is_not_laid_out_again() -> None:
    """R22 lays A, 3...K and a wildcard as W-3...K-A: to a run A-W-3...8 whose wildcard is locked
    at the 2's place, the 9-K that would lay it out again at the end is refused, in four-player
    Buraco Fechado (the partner's addition) as in the federation's code, where it would have
    turned a mixed canasta (100) into a semi-clean one (150); so the 2 never joins."""
    for preset in (variants.BURACO_FECHADO, variants.ITALIAN_FIBUR):
        rules = attrs.evolve(preset, locked_wildcards=True)
        deck = br.arrange_deck(
            rules,
            4,
            hands=[
                "AH JK 3H 4H 5H 6H 7H 8H 5C 5D 7D",
                "4D 6D 8D 10D QD 4S 6S 8S 10S QS 3D",
                "9H 10H JH QH KH 2H 9C 9D JC JD KC",
                "4C 6C 8C 10C QC 3S 5S 7S 9S JS KS",
            ],
        )
        state = br.apply(br.new_game(rules, 4, deck=deck), br.DrawFromStock())
        state = br.apply(state, br.NewMeld("AH JK 3H 4H 5H 6H 7H 8H"))
        state = br.apply(state, br.Discard("5C"))
        while state.current_player != 2:
            state = br.apply(state, br.DrawFromStock())
            state = br.apply(state, br.Discard(state.hands[state.current_player][-1]))
        state = br.apply(state, br.DrawFromStock())
        assert state.melds[0][0].cards[:2] == br.parse_cards("AH JK")  # locked at the 2's place
        message = same_refusal_on_every_redeal(
            state, br.AddToMeld(0, "9H 10H JH QH KH"), br.ErrorCode.LOCKED_WILDCARD
        )
        assert "A♥ Joker 3♥" in message
        assert br.is_legal(state, br.AddToMeld(0, "9H 10H JH QH"))  # the ace stays low
        assert not br.is_legal(state, br.AddToMeld(0, "2H"))
        grown = br.apply(state, br.AddToMeld(0, "9H 10H JH QH"))
        assert not grown.melds[0][0].is_semi_clean
        assert br.canasta_bonus(grown.melds[0][0], rules) == 100
        assert not br.is_legal(grown, br.AddToMeld(0, "KH"))
        preset_state = attrs.evolve(state, rules=preset)  # without the option it may, as before
        assert br.is_legal(preset_state, br.AddToMeld(0, "9H 10H JH QH KH"))


def test_R29_an_accepted_addition_keeps_the_locked_wildcard_between_the_same_cards() -> None:
    """Every run of hearts with a joker in a gap and an ace at either end (Buraco Fechado: two
    aces may make an ace-to-ace run), and every addition of hearts that makes a run: the
    checker accepts it (``moves_locked`` false) exactly when the new layout still lays the
    joker between the two cards it stood between. The layout is read from ``Meld.cards``, not
    from the bitmasks ``moves_locked`` reads."""
    from itertools import combinations

    from buraco_rules.melds.geometry import card_at
    from buraco_rules.melds.meld import classify, gap_place, moves_locked

    rules = variants.BURACO_FECHADO
    hearts = [br.Card.from_id(card_at(2, p)) for p in range(1, 15)]  # A(1) .. K, A(14)

    def neighbours(meld: br.Meld) -> tuple[br.Card, br.Card] | None:
        at = meld.cards.index(br.JOKER)
        if 0 < at < len(meld.cards) - 1:
            return meld.cards[at - 1], meld.cards[at + 1]
        return None

    checked = refused = 0
    for lo in range(1, 14):
        for hi in range(lo + 2, 15):
            if lo != 1 and hi != 14:
                continue  # no ace to turn round: the test above covers those
            for place in range(lo + 1, hi):
                naturals = [hearts[p - 1] for p in range(lo, hi + 1) if p != place]
                old = classify(tuple(sorted((*naturals, br.JOKER))), rules)
                if old is None or gap_place(old) != place:
                    continue
                between = neighbours(old)
                others = [c for c in hearts[1:] if c not in naturals]  # one ace card for both
                if br.Card.parse("AH") not in naturals:
                    others.append(br.Card.parse("AH"))
                for n in range(1, len(others) + 1):
                    for added in combinations(others, n):
                        new = classify(tuple(sorted((*old.multiset, *added))), rules)
                        if new is None:
                            continue
                        kept = new.wildcard is not None and neighbours(new) == between
                        assert moves_locked(old, new) is not kept, (str(old), added, str(new))
                        checked += 1
                        refused += not kept
    assert checked > 1000 and refused > 100


def test_R2_a_meld_built_outside_a_game_is_checked_against_the_decks() -> None:
    """``Meld.from_cards`` refuses more copies of a card than the two decks hold, naming it."""
    for cards, named in ((["AS"] * 7, "A♠ 7 times"), (["JK"] * 5 + ["5S"], "Joker 5 times")):
        with pytest.raises(ValueError, match=named) as error:
            br.Meld.from_cards(cards, variants.ITALIAN)
        assert "the two decks hold" in str(error.value)
    assert br.Meld.from_cards(["AS", "AS", "AH"], variants.ITALIAN) is not None
    assert br.Meld.from_cards(["JK"] * 4, variants.ITALIAN) is None  # four jokers, no meld


# R30: an opening minimum that rises with the team's match total (opening_thresholds).

RISING = ((1000, 50), (2000, 90))


def test_R30_house_opening_thresholds_is_off_in_every_preset() -> None:
    assert all(r.opening_thresholds == () and r.team_minimum_openings is None for r in PRESETS)
    assert variants.ITALIAN.opening_minimums == (0, 0)
    for wrong in (((3000, 90), (1500, 50)), ((0, 50),), ((1500, 14),), ((1500,),), [(1500, 50)]):
        with pytest.raises(br.InvalidRules, match="opening_thresholds must be"):
            attrs.evolve(variants.ITALIAN, opening_thresholds=wrong)
    with pytest.raises(br.InvalidRules, match="team_minimum_openings must be None or a pair"):
        attrs.evolve(variants.ITALIAN, team_minimum_openings=(50, 151))
    rules = attrs.evolve(variants.ITALIAN, opening_thresholds=RISING)
    codec_round_trip(rules)
    codec_round_trip(attrs.evolve(rules, team_minimum_openings=(0, 50)))
    assert variants.with_options("italian", opening_thresholds=[[1000, 50], [2000, 90]]) == rules
    assert variants.parse_option("opening_thresholds=1000:50,2000:90") == (
        "opening_thresholds",
        RISING,
    )


def test_R30_house_a_step_that_can_never_take_effect_is_refused() -> None:
    """A step at or above the match target (the match is over there, R20) and a table that does
    not rise (a minimum not above the one below it, or below ``minimum_opening``) are refused;
    so is the option on a single hand, where there is no match total (the server's match:false,
    the command line's simulate and play), in a player's words."""
    for options, said in (
        ({"opening_thresholds": [[3000, 50]]}, "has reached the match target of 3000"),
        ({"opening_thresholds": [[1500, 90], [2000, 50]]}, "must rise"),
        ({"opening_thresholds": [[1500, 50], [2000, 50]]}, "must rise"),
        ({"opening_thresholds": [[1500, 50]], "minimum_opening": 90}, "must rise"),
        ({"opening_thresholds": [[1500, 0]]}, "must rise"),
    ):
        with pytest.raises(br.InvalidRules, match=said) as error:
            variants.with_options("buraco-fechado", **options)
        assert "RuleSet" not in str(error.value)
    rising = variants.with_options("buraco-fechado", opening_thresholds=[[2999, 50]])
    with pytest.raises(br.InvalidRules, match="a single hand has none: play a match"):
        variants.for_single_hand(rising)
    assert variants.for_single_hand(variants.ITALIAN) is variants.ITALIAN


def test_R28_long_meld_size_is_reachable_in_every_variant() -> None:
    """``long_meld_size`` goes up to 14 (``core.rules.FULL_RUN``), and every preset, with the ace
    low only or not, lays a meld of 14 cards: A-K with a wildcard at the end, or ace to ace; so no
    size the field accepts is out of reach."""
    from itertools import combinations

    from buraco_rules.core.rules import FULL_RUN

    cards = br.parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH JK")
    for preset in PRESETS:
        for low in (False, True):
            rules = attrs.evolve(preset, ace_low_only=low)
            longest = max(
                n
                for n in range(FULL_RUN, FULL_RUN + 2)
                for subset in combinations(cards, n)
                if br.Meld.from_cards(subset, rules) is not None
            )
            assert longest == FULL_RUN, (preset.name, low)
    with pytest.raises(br.InvalidRules, match="long_meld_size"):
        variants.with_options("italian", long_meld_size=15, long_meld_bonus=50)


def test_R30_house_opening_thresholds_give_each_team_its_minimum() -> None:
    from buraco_rules.play.match import hand_rules

    rules = attrs.evolve(variants.BURACO_FECHADO, opening_thresholds=RISING)
    assert hand_rules(rules, (0, 999)).opening_minimums == (0, 0)
    assert hand_rules(rules, (1000, 1999)).opening_minimums == (50, 50)
    assert hand_rules(rules, (-200, 2000)).opening_minimums == (0, 90)
    base = attrs.evolve(rules, minimum_opening=15)
    assert hand_rules(base, (10, 1100)).opening_minimums == (15, 50)
    assert hand_rules(variants.ITALIAN, (5000, 5000)) is variants.ITALIAN


@pytest.mark.parametrize("preset", PRESETS, ids=lambda r: r.name)
def test_R30_house_opening_thresholds_team_minimum_is_refused_with_its_code(
    preset: br.RuleSet,
) -> None:
    """Team 0 (seat 0) opens freely; team 1 must reach 50 (R25's checks, per team)."""
    rules = attrs.evolve(preset, team_minimum_openings=(0, 50))
    deck = br.arrange_deck(
        rules,
        2,
        hands=["3S 4S 5S 8H 9H 10H 4D 6D 9C KC QD", "3C 4C 5C 8D 9D 10D 4H 6H 9S KS QH"],
        stock="7C 7H",
    )
    state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
    assert br.is_legal(state, br.NewMeld("3S 4S 5S"))
    state = br.apply(br.apply(state, br.NewMeld("3S 4S 5S")), br.Discard("KC"))
    state = br.apply(state, br.DrawFromStock())  # seat 1, team 1: 15 + 30 = 45 at most
    message = same_refusal_on_every_redeal(
        state, br.NewMeld("3C 4C 5C"), br.ErrorCode.MINIMUM_OPENING
    )
    assert "minimum opening of 50" in message
    assert br.validate(state) is state


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(CONFIGS),
    needs=st.sampled_from([(0, 50), (90, 15), (150, 0)]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_R30_house_team_minimums_random_play_never_sticks(
    config: tuple[br.RuleSet, int], needs: tuple[int, int], seed: int
) -> None:
    rules, players = config
    random_play_holds(attrs.evolve(rules, team_minimum_openings=needs), players, seed)


@pytest.mark.parametrize(("rules", "players"), [(PRESETS[0], 4), (PRESETS[2], 2)])
def test_R30_house_team_minimums_generator_lists_what_the_checker_accepts(
    rules: br.RuleSet, players: int
) -> None:
    ruled = attrs.evolve(rules, team_minimum_openings=(50, 15))

    def keep(state: br.GameState) -> bool:
        return state.phase is br.Phase.PLAY

    assert sampled_brute_force(ruled, players, 30 + players, keep) > 0


def test_R30_house_a_match_deals_each_hand_with_the_minimums_of_its_totals() -> None:
    from buraco_rules.play.match import check_match, hand_rules

    rules = attrs.evolve(
        variants.CANASTA_STBL, opening_thresholds=((300, 50), (1200, 90)), match_target=2000
    )
    match = br.new_match(rules, 2, seed=30)
    rng = random.Random(30)
    needs = set()
    while not match.is_over:
        hand = match.hand
        assert hand.rules == hand_rules(rules, match.totals)
        needs.add(hand.rules.opening_minimums)
        match = br.apply(match, GreedyBot().choose(br.view(hand, hand.current_player), rng))
    check_match(match)
    assert len(needs) > 1  # the minimums rose during the match
    assert br.from_json(br.to_json(match)) == match


def test_R29_only_the_natural_card_of_its_place_moves_a_locked_wildcard() -> None:
    """The generator's quick filter (engine.movegen._keeps_locked): to a run without an ace, an
    addition without the natural card of the locked wildcard's place never moves it (with an
    ace it may: 4-Q W A and the 2 lay A-2-W-4...Q). Every run of hearts with a joker in a gap,
    and every addition of one or two hearts."""
    from itertools import combinations

    from buraco_rules.melds.geometry import card_at
    from buraco_rules.melds.meld import classify, gap_place, moves_locked

    rules = variants.BURACO_FECHADO  # two aces may make an ace-to-ace run (R6)
    hearts = [br.Card.from_id(card_at(2, p)) for p in range(1, 15)]  # A(1) .. K, A(14)
    checked = moved = 0
    for lo in range(1, 12):
        for hi in range(lo + 2, 15):
            for place in range(lo + 1, hi):
                naturals = [hearts[p - 1] for p in range(lo, hi + 1) if p != place]
                old = classify(tuple(sorted((*naturals, br.JOKER))), rules)
                if old is None or gap_place(old) != place:
                    continue
                others = [c for c in hearts if c not in naturals]
                for n in (1, 2):
                    for added in combinations(others, n):
                        new = classify(tuple(sorted((*old.multiset, *added))), rules)
                        if new is None or card_at(2, place) in added:
                            continue
                        if old.naturals & (1 << 1 | 1 << 14):
                            moved += moves_locked(old, new)
                            continue
                        assert not moves_locked(old, new), (old, added)
                        checked += 1
    assert checked > 100 and moved > 0


# R31: a team may take both extra piles (take_both_extra_piles).

BOTH = [attrs.evolve(rules, take_both_extra_piles=True) for rules in PRESETS]


def own_pile_taken(
    rules: br.RuleSet,
    players: int,
    hand: str,
    table: tuple[str, ...] = (),
    *,
    theirs: str = "",
    lost: bool = False,
) -> br.GameState:
    """Seat 0 to play, holding ``hand``, its team having laid ``table``. Its team has taken its
    own extra pile and the other team's is set aside (headed by ``theirs``); or, ``lost``, the
    other team has taken both (R31), seat 1 holding them. Every other card is dealt at random."""
    state = br.apply(br.new_game(rules, players, seed=31), br.DrawFromStock())
    mine = br.parse_cards(hand)
    melds = tuple(br.Meld.from_cards(br.parse_cards(m), rules) for m in table)
    head = br.parse_cards(theirs)
    left = Counter(all_cards() * 2) + Counter(br.parse_cards("JK JK"))  # two decks (R2)
    left -= Counter(mine) + Counter(head)
    left -= Counter(c for m in melds if m is not None for c in m.cards)
    rest = list(left.elements())
    random.Random(31).shuffle(rest)
    cut = rules.extra_pile_size - len(head)
    pile, rest = head + tuple(rest[:cut]), rest[cut:]
    hands = [mine] + [tuple(rest[11 * i : 11 * i + 11]) for i in range(players - 1)]
    rest = rest[11 * (players - 1) :]
    if lost:
        hands[1] += pile
    return br.validate(
        attrs.evolve(
            state,
            hands=tuple(tuple(sorted(h)) for h in hands),
            stock=tuple(rest[1:]),
            discard_pile=tuple(rest[:1]),
            melds=(melds, ()),
            extra_piles=(None, None) if lost else (None, pile),
            extra_pile_taken=(False, True) if lost else (True, False),
            extra_pile_lost=0 if lost else None,
        )
    )


def test_R31_house_take_both_extra_piles_is_off_in_every_preset() -> None:
    assert not any(rules.take_both_extra_piles for rules in PRESETS)
    with pytest.raises(br.InvalidRules, match="take_both_extra_piles must be True or False"):
        attrs.evolve(variants.ITALIAN, take_both_extra_piles=1)
    for rules in BOTH:
        codec_round_trip(rules)
        assert variants.with_options(rules.name, take_both_extra_piles=True) == rules
        assert "take_both_extra_piles" in variants.options_for(rules.name)
    assert variants.parse_option("take_both_extra_piles=true") == ("take_both_extra_piles", True)


@pytest.mark.parametrize("rules", BOTH, ids=lambda r: r.name)
def test_R31_house_take_both_extra_piles_melding_the_last_cards_takes_the_other_pile(
    rules: br.RuleSet,
) -> None:
    state = own_pile_taken(rules, 2, "5H 6H 7H", theirs="9S")
    # Without the option the team may not empty its hand without a canasta (R13, R14).
    preset = attrs.evolve(state, rules=attrs.evolve(rules, take_both_extra_piles=False))
    refusal = br.why_illegal(preset, br.NewMeld("5H 6H 7H"))
    assert refusal is not None and refusal.code is br.ErrorCode.CANNOT_GO_OUT
    after = br.apply(state, br.NewMeld("5H 6H 7H"))  # directly, playing on (R12)
    assert not after.is_over and after.current_player == 0 and after.phase is br.Phase.PLAY
    assert after.hands[0] == tuple(sorted(state.extra_piles[1] or ()))
    assert after.extra_piles == (None, None) and after.extra_pile_lost == 1
    assert after.extra_pile_taken == (True, False)  # team 1 never took one
    assert br.validate(after) is after
    seen = br.view(after, 1)
    assert seen.extra_pile_lost == 1 and seen.extra_pile_became_stock == (False, False)
    assert br.from_json(br.to_json(after)) == after and br.from_json(br.to_json(seen)) == seen
    # Team 1 is scored as a team that never took one: its 100 lost (R16).
    mine, theirs = br.score(after)
    assert (mine.extra_pile, theirs.extra_pile) == (0, rules.extra_pile_penalty)


@pytest.mark.parametrize("rules", BOTH, ids=lambda r: r.name)
def test_R31_house_take_both_extra_piles_discarding_the_last_card_takes_it_indirectly(
    rules: br.RuleSet,
) -> None:
    state = own_pile_taken(rules, 2, "9C")
    after = br.apply(state, br.Discard("9C"))
    assert after.current_player == 1 and after.extra_pile_lost == 1
    assert after.hands[0] == tuple(sorted(state.extra_piles[1] or ()))
    # R19 and R23 are about a team's own pile: the other's is cards held from now on.
    assert after.untouched_extra_pile == (None, None)
    assert br.validate(after) is after
    assert br.score(after)[0].hands == sum(rules.value_by_id[c] for c in after.hands[0])


@pytest.mark.parametrize("rules", BOTH, ids=lambda r: r.name)
def test_R31_house_take_both_extra_piles_the_team_that_lost_its_pile_may_not_go_out(
    rules: br.RuleSet,
) -> None:
    state = own_pile_taken(rules, 2, "6C 7C 8C 9S", ("3D 4D 5D 6D 7D 8D 9D",), lost=True)
    preset = attrs.evolve(state, extra_pile_lost=None, extra_pile_taken=(True, True))
    assert br.is_legal(preset, br.NewMeld("6C 7C 8C"))  # 9S then goes out (R13)
    message = same_refusal_on_every_redeal(
        state, br.NewMeld("6C 7C 8C"), br.ErrorCode.CANNOT_GO_OUT
    )
    assert "took your team's extra pile" in message
    assert not any(len(a.cards) >= 3 for a in br.legal_actions(state) if isinstance(a, br.NewMeld))
    # The hand goes on: a card is discarded, and the other team may still go out.
    assert br.is_legal(state, br.Discard("9S"))


@pytest.mark.parametrize(("rules", "players"), [(BOTH[0], 4), (BOTH[2], 2), (BOTH[3], 4)])
def test_R31_house_take_both_extra_piles_generator_lists_what_the_checker_accepts(
    rules: br.RuleSet, players: int
) -> None:
    compared = 0
    for hand in ("5H 6H 7H", "5H 6H 7H 8H JK", "9C", "5H 6H 7H 9C 9D 9S"):
        compared += brute_force(own_pile_taken(rules, players, hand))
        if len(hand) > 2:  # one card a team that lost its pile may not discard: no state (R14)
            compared += brute_force(own_pile_taken(rules, players, hand, lost=True))
    assert compared > 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from([(r, n) for r in BOTH for n in r.player_counts]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    lost=st.booleans(),
)
def test_R31_house_take_both_extra_piles_random_play_never_sticks(
    config: tuple[br.RuleSet, int], seed: int, lost: bool
) -> None:
    rules, players = config
    random_play_holds(rules, players, seed)
    # From a team holding its own pile with the other's set aside, or with both taken.
    rng = random.Random(seed)
    start = own_pile_taken(rules, players, "5H 6H 7H 9C", lost=lost)
    for state in play_randomly(start, rng):
        if rng.random() < 0.1:
            assert br.validate(state) is state
            # The team that lost its pile never empties a hand, so never goes out (R31).
            if state.extra_pile_lost == state.current_team:
                for action in br.legal_actions(state):
                    after = br.apply(state, action)
                    assert after.hands[state.current_player] and after.went_out is None


# R32: the first player may refuse the first card drawn (first_draw_refusal).

REFUSE = [attrs.evolve(rules, first_draw_refusal=True) for rules in PRESETS]


def first_draw(rules: br.RuleSet, players: int = 2, drawn: str = "KH 4D") -> br.GameState:
    """Seat 0 has drawn the hand's first card, the first of ``drawn`` (the next follows it)."""
    hands = ["3C 5C 7C 9D JD 4S 5S 6S QS 5H 6H"]
    deck = br.arrange_deck(rules, players, hands=hands, stock=drawn)
    return br.apply(br.new_game(rules, players, deck=deck), br.DrawFromStock())


def test_R32_house_first_draw_refusal_is_off_in_every_preset() -> None:
    assert not any(rules.first_draw_refusal for rules in PRESETS)
    with pytest.raises(br.InvalidRules, match="first_draw_refusal must be True or False"):
        attrs.evolve(variants.ITALIAN, first_draw_refusal=1)
    for rules in REFUSE:
        codec_round_trip(rules)
        assert variants.with_options(rules.name, first_draw_refusal=True) == rules
        assert "first_draw_refusal" in variants.options_for(rules.name)
        assert variants.options_of(rules) == {"first_draw_refusal": True}
        assert br.new_game(rules, seed=1).first_turn
    assert variants.parse_option("first_draw_refusal=true") == ("first_draw_refusal", True)
    assert not br.new_game(variants.ITALIAN, seed=1).first_turn
    assert (
        br.parse_action("Refuse") == br.RefuseFirstDraw() and str(br.RefuseFirstDraw()) == "refuse"
    )
    assert br.from_json(br.to_json(br.RefuseFirstDraw())) == br.RefuseFirstDraw()


@pytest.mark.parametrize("rules", REFUSE, ids=lambda r: r.name)
def test_R32_house_first_draw_refusal_the_refused_card_starts_the_pile_and_the_next_is_drawn(
    rules: br.RuleSet,
) -> None:
    state = first_draw(rules)
    assert state.first_turn and state.first_draw == br.Card("KH")
    assert br.legal_actions(state)[0] == br.RefuseFirstDraw()  # listed first, then the melds
    pile = state.discard_pile
    after = br.apply(state, br.RefuseFirstDraw(), 0)
    assert after.discard_pile == (*pile, br.Card("KH"))  # face up, on top (R10, R11)
    assert br.Card("4D") in after.hands[0] and br.Card("KH") not in after.hands[0]
    assert len(after.hands[0]) == 12 and len(after.stock) == len(state.stock) - 1
    assert after.phase is br.Phase.PLAY and after.current_player == 0
    assert not after.first_turn and after.first_draw is None
    assert br.RefuseFirstDraw() not in br.legal_actions(after)  # the second card stays
    assert br.validate(after) is after
    for seat in range(2):  # the refused card is public
        assert br.view(after, seat).top_of_discard_pile == br.Card("KH")
    assert br.from_json(br.to_json(state)) == state
    assert br.from_json(br.to_json(br.view(state, 0))) == br.view(state, 0)
    # The turn then goes on as any other: a meld or a discard.
    assert len(br.apply(after, br.NewMeld("4S 5S 6S")).hands[0]) == 9
    assert br.apply(after, br.Discard("4D")).current_player == 1


@pytest.mark.parametrize("rules", REFUSE, ids=lambda r: r.name)
def test_R32_house_first_draw_refusal_is_refused_elsewhere_with_its_code(
    rules: br.RuleSet,
) -> None:
    code = br.ErrorCode.CANNOT_REFUSE
    start = br.new_game(rules, 2, seed=5)
    message = same_refusal_on_every_redeal(start, br.RefuseFirstDraw(), code)
    assert "draw from the stock first" in message
    state = first_draw(rules)
    refused = br.apply(state, br.RefuseFirstDraw())
    message = same_refusal_on_every_redeal(refused, br.RefuseFirstDraw(), code)
    assert "once" in message and "R32" in message
    melded = br.apply(state, br.NewMeld("4S 5S 6S"))
    same_refusal_on_every_redeal(melded, br.RefuseFirstDraw(), code)
    second = br.apply(refused, br.Discard("3C"))  # the second player's draw: no refusal
    second = br.apply(second, br.DrawFromStock())
    assert not second.first_turn and second.first_draw is None
    same_refusal_on_every_redeal(second, br.RefuseFirstDraw(), code)
    if rules.discard_pile_starts_face_up:  # a first player who takes the pile draws nothing
        taken = br.apply(br.new_game(rules, 2, seed=5), br.TakeDiscardPile())
        same_refusal_on_every_redeal(taken, br.RefuseFirstDraw(), code)
    plain = attrs.evolve(state, rules=attrs.evolve(rules, first_draw_refusal=False))
    plain = attrs.evolve(plain, first_turn=False, first_draw=None)
    message = same_refusal_on_every_redeal(plain, br.RefuseFirstDraw(), code)
    assert "does not" in message
    with pytest.raises(br.IllegalAction) as caught:
        br.apply(state, br.RefuseFirstDraw(), 1)
    assert caught.value.code is br.ErrorCode.NOT_YOUR_TURN


@pytest.mark.parametrize("rules", REFUSE, ids=lambda r: r.name)
def test_R32_house_first_draw_refusal_other_seats_never_learn_the_card_drawn(
    rules: br.RuleSet,
) -> None:
    # Two deals that differ only in which of two hidden cards is drawn first.
    players = max(rules.player_counts)
    one, two = first_draw(rules, players, "KH 4D"), first_draw(rules, players, "4D KH")
    for seat in range(1, players):
        seen = br.view(one, seat)
        assert seen.first_draw is None and seen.first_turn
        assert seen == br.view(two, seat)
        assert br.legal_actions(seen) == br.legal_actions(br.view(two, seat))
    rng = random.Random(32)
    for seat in range(players):
        seen = br.view(one, seat)
        for _ in range(5):
            other = br.determinize(seen, rng)
            assert br.validate(other) is other and br.view(other, seat) == seen
            assert other.first_draw in other.hands[0]
            assert br.legal_actions(other)[0] == br.RefuseFirstDraw()
            after = br.apply(other, br.RefuseFirstDraw())
            # Once refused, the card is the pile's top: public, as every other top card.
            assert after.discard_pile[-1] == other.first_draw
            if seat == 0:  # the drawer's own view keeps the card it drew, and its moves
                assert other.first_draw == br.Card("KH")
                assert br.legal_actions(other) == br.legal_actions(one)


@pytest.mark.parametrize(("rules", "players"), [(REFUSE[0], 4), (REFUSE[2], 2), (REFUSE[3], 4)])
def test_R32_house_first_draw_refusal_generator_lists_what_the_checker_accepts(
    rules: br.RuleSet, players: int
) -> None:
    small = attrs.evolve(rules, hand_size=9)  # the brute force tries every subset of the hand
    compared = 0
    for seed in range(3):
        state = br.new_game(small, players, seed=seed)
        for action in (br.DrawFromStock(), br.RefuseFirstDraw()):
            compared += brute_force(state)
            state = br.apply(state, action)
        compared += brute_force(state)
    assert compared >= 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from([(r, n) for r in REFUSE for n in r.player_counts]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_R32_house_first_draw_refusal_random_play_never_sticks(
    config: tuple[br.RuleSet, int], seed: int
) -> None:
    rules, players = config
    random_play_holds(rules, players, seed)
    # The re-deal property on the hand's first turn, the refusal listed or just made.
    rng = random.Random(seed)
    state = br.apply(br.new_game(rules, players, seed=seed), br.DrawFromStock())
    if rng.random() < 0.5:
        state = br.apply(state, br.RefuseFirstDraw())
    seat = rng.randrange(players)
    seen = br.view(state, seat)
    other = br.determinize(seen, rng)
    assert br.validate(other) is other and br.view(other, seat) == seen
    listed = br.legal_actions(other)
    assert (br.RefuseFirstDraw() in listed) == (br.RefuseFirstDraw() in br.legal_actions(state))
    if seat == state.current_player:
        assert listed == br.legal_actions(state)


def test_R32_house_first_draw_refusal_greedy_refuses_a_card_it_has_no_use_for() -> None:
    rules = REFUSE[0]
    # KH has no neighbour in the hand and fits no meld: refused. 4S joins 5S 6S: kept.
    useless = first_draw(rules, 2, "KH 4D")
    assert GreedyBot().choose(br.view(useless, 0), random.Random(0)) == br.RefuseFirstDraw()
    useful = first_draw(rules, 2, "4C 4D")
    assert GreedyBot().choose(br.view(useful, 0), random.Random(0)) != br.RefuseFirstDraw()


@pytest.mark.parametrize("rules", REFUSE, ids=lambda r: r.name)
def test_R32_house_first_draw_refusal_every_bot_plays_a_hand_with_it(rules: br.RuleSet) -> None:
    from buraco_rules.bots import ISMCTSBot, MonteCarloBot, RandomBot

    bots = [
        GreedyBot(),
        RandomBot(),
        MonteCarloBot(playouts=2, candidates=2, horizon=2),
        ISMCTSBot(playouts=3, horizon=1),
    ]
    rng = random.Random(32)
    for k, bot in enumerate(bots):
        state = br.apply(br.new_game(rules, seed=k), br.DrawFromStock())
        for _ in range(6):  # the first turns, where the refusal is offered and taken or not
            if state.is_over:
                break
            action = bot.choose(br.view(state, state.current_player), rng)
            state = br.apply(state, action)


def test_R32_house_first_draw_refusal_is_offered_and_played_by_the_server(tmp_path: Any) -> None:
    from starlette.testclient import TestClient

    from buraco_rules.server import create_app

    with TestClient(create_app(tmp_path / "r32.sqlite", bot_delay=0)) as client:
        listed = client.get("/api/variants").json()
        assert all("first_draw_refusal" in v["options"] for v in listed)
        request = {
            "variant": "buraco-fechado",
            "players": 2,
            "seats": ["human", "human"],
            "options": {"first_draw_refusal": True},
        }
        answer = client.post("/api/tables", json=request)
        assert answer.status_code == 201, answer.json()
        table = answer.json()
        me, you = table["seats"]
        with client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as other:
            ws.send_json({"type": "join", "token": me["token"], "table": table["table"]})
            assert ws.receive_json()["type"] == "welcome" and ws.receive_json()["type"] == "view"
            other.send_json({"type": "join", "token": you["token"], "table": table["table"]})
            assert other.receive_json()["type"] == "welcome"
            assert other.receive_json()["type"] == "view"
            ws.receive_json()  # seat 1's presence, shown to seat 0
            ws.send_json({"type": "move", "seq": 1, "action": "draw"})
            assert ws.receive_json()["type"] == "accepted"
            mine = ws.receive_json()
            assert mine["legal"][0] == "refuse" and mine["view"]["first_draw"] is not None
            theirs = other.receive_json()
            assert theirs["view"]["first_draw"] is None and theirs["view"]["first_turn"]
            drawn = mine["view"]["first_draw"]
            ws.send_json({"type": "move", "seq": 2, "action": "refuse"})
            assert ws.receive_json()["type"] == "accepted"
            mine = ws.receive_json()
            assert mine["view"]["discard_pile"] == drawn and "refuse" not in mine["legal"]
            assert other.receive_json()["view"]["discard_pile"] == drawn  # now public
            ws.send_json({"type": "move", "seq": 3, "action": "refuse"})
            refused = ws.receive_json()
            assert refused["type"] == "refused" and refused["code"] == "cannot-refuse"


def test_R28_house_the_2_worth_20_is_no_option_and_is_named_as_a_change_beyond_them() -> None:
    """The 2 worth 20 is ``card_values`` (R28): no option offers it, ``options_of`` names options
    only, and ``changes_beyond_options`` (and the command line's header) says it changed."""
    from buraco_rules.cli.house_options import house_rules_line
    from buraco_rules.play.match import hand_rules

    fechado = variants.BURACO_FECHADO
    twenty = attrs.evolve(fechado, card_values=attrs.evolve(fechado.card_values, two=20))
    with pytest.raises(br.InvalidRules, match="unknown option 'card_values'"):
        variants.with_options("buraco-fechado", card_values=twenty.card_values)
    assert not twenty.is_preset and variants.options_of(twenty) == {}
    assert variants.changes_beyond_options(twenty) == ("card_values",)
    assert house_rules_line(twenty) == "house rules: card_values changed"
    both = attrs.evolve(
        variants.with_options(fechado, locked_wildcards=True), card_values=twenty.card_values
    )
    assert house_rules_line(both) == "house rules: locked_wildcards=true, card_values changed"
    # What the options set with them is not counted: sets turned on by set_ranks (R27), each
    # team's minimum that a match sets from opening_thresholds (R30).
    for rules in (
        fechado,
        variants.with_options(fechado, set_ranks="AK"),
        hand_rules(variants.with_options(fechado, opening_thresholds=[[1000, 50]]), (1200, 0)),
        attrs.evolve(twenty, name="my-table"),  # named for no preset: nothing to compare with
    ):
        assert variants.changes_beyond_options(rules) == (), rules.name
    assert house_rules_line(fechado) == ""
    alone = attrs.evolve(fechado, team_minimum_openings=(50, 90))
    assert variants.changes_beyond_options(alone) == ("team_minimum_openings",)
