"""Example tests of the rulings R1-R19 (docs/rules/rulings.md), one behaviour per test.

Every scenario is built from an explicit deck (``br.arrange_deck``) and driven with ``br.apply``.
Each legal move is also checked against ``br.is_legal`` and ``br.legal_actions``; each refused one
is checked to be absent from ``legal_actions``, to carry the right ``br.ErrorCode`` and to leave the
state unchanged.
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest

import buraco_rules as br
from buraco_rules import variants
from forging import forged

F = variants.BURACO_FECHADO
CS = variants.CANASTA_STBL
IT = variants.ITALIAN
C = br.parse_cards
E = br.ErrorCode
Kind = br.CanastaKind

# Eleven cards that form three runs: melding them all empties a hand.
RUNS = "3S 4S 5S 6S 6H 7H 8H 9H 9D 10D JD"
MELD_RUNS = (br.NewMeld("3S 4S 5S 6S"), br.NewMeld("6H 7H 8H 9H"), br.NewMeld("9D 10D JD"))


# --- helpers -------------------------------------------------------------------------------------


def deal(rules, hands, players=2, first_player=0, **kw):
    """A new hand from an explicit deck: ``hands`` per seat, then arrange_deck's keywords."""
    deck = br.arrange_deck(rules, players, hands=hands, **kw)
    return br.new_game(rules, players, deck=deck, first_player=first_player)


def play(state, *actions):
    """Apply legal actions one by one, checking that each one is legal and generated."""
    for action in actions:
        assert br.is_legal(state, action), action
        assert action in br.legal_actions(state), action
        state = br.apply(state, action)
    return state


def refuse(state, action, code, player=None):
    """Check that ``action`` is refused with ``code`` and leaves ``state`` unchanged."""
    before = copy.deepcopy(state)
    if player is None:
        assert not br.is_legal(state, action)
        assert action not in br.legal_actions(state)
    with pytest.raises(br.IllegalAction) as err:
        br.apply(state, action, player=player)
    assert err.value.code == code, str(err.value)
    assert state == before
    return err.value


def pass_turn(state):
    """Draw from the stock and discard the card drawn."""
    card = state.stock[0]
    return play(state, br.DrawFromStock(), br.Discard(card))


def meld(cards, rules=F):
    return br.Meld.from_cards(C(cards), rules)


def top_meld(state, team=0, index=-1):
    return state.melds[team][index]


def after_direct_pickup(extra_pile, rules=F, seat1=""):
    """Seat 0 draws QD, melds all twelve cards and takes its extra pile directly (R12).

    Team 0's melds are then 0: 3S-6S, 1: 6H-9H, 2: 9D-QD."""
    state = deal(rules, [RUNS, seat1], stock="QD", extra_piles=[extra_pile])
    state = play(state, br.DrawFromStock(), *MELD_RUNS[:2], br.NewMeld("9D 10D JD QD"))
    assert state.extra_pile_taken[0]
    return state


# --- R1 players ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "counts", "default"), [(F, (2, 4), 4), (CS, (2,), 2), (IT, (2, 4), 4)]
)
def test_R1_player_counts_per_variant(rules, counts, default):
    assert br.new_game(rules, seed=1).players == default
    for n in counts:
        state = br.new_game(rules, n, seed=1)
        assert state.players == n
        assert len(state.hands) == n


@pytest.mark.parametrize(("rules", "players"), [(F, 3), (F, 1), (CS, 4), (CS, 3), (IT, 3), (IT, 6)])
def test_R1_wrong_player_count_is_value_error(rules, players):
    with pytest.raises(ValueError):
        br.new_game(rules, players, seed=1)
    with pytest.raises(ValueError):
        br.arrange_deck(rules, players)


def test_R1_four_players_two_teams_play_passes_to_next_seat():
    state = br.new_game(F, 4, seed=5)
    seats = []
    for _ in range(5):
        seats.append((state.current_player, state.current_team))
        state = pass_turn(state)
    assert seats == [(0, 0), (1, 1), (2, 0), (3, 1), (0, 0)]
    assert [state.team_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_R1_partners_share_melds():
    seat0 = "3S 4S 5S 9H QH 4D 7D 10D KD 3C 6C"
    seat2 = "6S 9H QH 4D 7D 10D KD 3C 6C 9C QC"
    state = deal(F, [seat0, "", seat2], players=4, stock="8H 8D 8C")
    state = play(state, br.DrawFromStock(), br.NewMeld("3S 4S 5S"), br.Discard("8H"))
    state = pass_turn(state)  # seat 1
    refuse(state, br.AddToMeld(0, "6S"), E.WRONG_PHASE)
    state = play(state, br.DrawFromStock(), br.AddToMeld(0, "6S"))  # seat 2, on seat 0's meld
    assert str(state.melds[0][0]) == "3S 4S 5S 6S"
    assert state.melds[1] == ()


def test_R1_opponents_melds_are_not_yours():
    seat0 = "3S 4S 5S 9H QH 4D 7D 10D KD 3C 6C"
    state = deal(F, [seat0, "6S 9H QH 4D 7D 10D KD 3C 6C 9C QC"], stock="8H 8D")
    state = play(state, br.DrawFromStock(), br.NewMeld("3S 4S 5S"), br.Discard("8H"))
    state = play(state, br.DrawFromStock())  # seat 1 holds 6S but has no meld 0
    refuse(state, br.AddToMeld(0, "6S"), E.NO_SUCH_MELD)


# --- R2 deck and deal ----------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "players"), [(F, 2), (F, 4), (CS, 2), (IT, 2), (IT, 4)])
def test_R2_deal_uses_all_108_cards(rules, players):
    assert len(br.DECK) == 108
    assert Counter(br.DECK)[br.JOKER] == 4
    assert Counter(br.DECK)[br.Card("5S")] == 2
    state = br.new_game(rules, players, seed=11)
    assert [len(h) for h in state.hands] == [11] * players
    assert [len(p) for p in state.extra_piles] == [11, 11]
    everything = [c for h in state.hands for c in h]
    everything += [c for p in state.extra_piles for c in p]
    everything += [*state.discard_pile, *state.stock]
    assert Counter(everything) == Counter(br.DECK)


def test_R2_explicit_deck_is_dealt_in_order():
    deck = br.arrange_deck(F, 2, hands=[RUNS], extra_piles=["KS AS"], stock="QS")
    assert len(deck) == 108
    state = br.new_game(F, 2, deck=deck)
    assert state.hands[0] == tuple(sorted(C(RUNS)))
    assert state.extra_piles[0][:2] == C("KS AS")
    assert state.stock[0] == br.Card("QS")


def test_R2_bad_explicit_deck_is_value_error_naming_the_problem():
    deck = list(br.DECK)
    with pytest.raises(ValueError, match="107"):
        br.new_game(F, 2, deck=deck[:-1])
    deck[deck.index(br.Card("5S"))] = br.JOKER  # one 5♠ too few, one joker too many
    with pytest.raises(ValueError) as err:
        br.new_game(F, 2, deck=deck)
    assert "5♠" in str(err.value)
    assert "Joker" in str(err.value)
    with pytest.raises(ValueError):
        br.new_game(F, 2, deck=[*br.DECK[:-1], "1X"])


def test_R2_arrange_deck_refuses_impossible_scenarios():
    with pytest.raises(ValueError):
        br.arrange_deck(F, 2, hands=["5S 5S"], stock="5S")  # three 5♠
    with pytest.raises(ValueError):
        br.arrange_deck(F, 2, hands=[RUNS + " QS"])  # twelve cards in a hand


# --- R3 discard pile start -----------------------------------------------------------------------


@pytest.mark.parametrize("rules", [F, CS])
def test_R3_closed_pile_variants_start_with_empty_discard_pile(rules):
    state = br.new_game(rules, 2, seed=3)
    assert state.discard_pile == ()
    assert br.legal_actions(state) == (br.DrawFromStock(),)
    with pytest.raises(ValueError):
        br.arrange_deck(rules, 2, face_up="KH")


def test_R3_italian_turns_one_card_face_up_and_first_player_may_take_it():
    state = deal(IT, [], face_up="KH", stock="4D")
    assert state.discard_pile == (br.Card("KH"),)
    assert len(state.stock) == 108 - 4 * 11 - 1
    assert br.legal_actions(state) == (br.DrawFromStock(), br.TakeDiscardPile())
    taken = play(state, br.TakeDiscardPile())
    assert br.Card("KH") in taken.hands[0]


# --- R4 turn -------------------------------------------------------------------------------------


def test_R4_turn_is_draw_then_melds_then_discard():
    state = deal(F, ["3S 4S 5S 9H QH 4D 7D 10D KD 3C 6C"], stock="6S 8H")
    state = play(state, br.DrawFromStock())
    assert state.phase is br.Phase.PLAY
    assert br.Card("6S") in state.hands[0]
    state = play(state, br.NewMeld("3S 4S 5S"), br.AddToMeld(0, "6S"))
    assert str(state.melds[0][0]) == "3S 4S 5S 6S"
    state = play(state, br.Discard("KD"))
    assert (state.current_player, state.phase) == (1, br.Phase.DRAW)
    assert state.discard_pile == (br.Card("KD"),)
    assert len(state.hands[0]) == 11 + 1 - 4 - 1


def test_R4_wrong_phase():
    state = deal(F, ["3S 4S 5S 9H QH 4D 7D 10D KD 3C 6C"], stock="8H")
    refuse(state, br.NewMeld("3S 4S 5S"), E.WRONG_PHASE)
    refuse(state, br.Discard("KD"), E.WRONG_PHASE)
    state = play(state, br.DrawFromStock())
    refuse(state, br.DrawFromStock(), E.WRONG_PHASE)
    state = play(state, br.NewMeld("3S 4S 5S"))
    refuse(state, br.DrawFromStock(), E.WRONG_PHASE)  # no going back on a step
    refuse(state, br.TakeDiscardPile(br.NewMeld("9H 10H JH")), E.WRONG_PHASE)


# --- R5 meld kinds -------------------------------------------------------------------------------


def test_R5_runs_need_one_suit_in_consecutive_order():
    for rules in (F, CS, IT):
        assert meld("5S 6S 7S", rules).kind is br.MeldKind.RUN
        assert meld("5S 6H 7S", rules) is None
        assert meld("5S 7S 8S", rules) is None
        assert meld("5S 5S 6S 7S", rules) is None
        assert meld("5S 6S", rules) is None


@pytest.mark.parametrize("rules", [F, CS])
def test_R5_no_sets_in_fechado_and_canasta(rules):
    assert meld("5S 5H 5D", rules) is None
    state = deal(rules, ["5S 5H 5D 9H QH 4D 7D 10D KD 3C 6C"], stock="8H")
    state = play(state, br.DrawFromStock())
    refuse(state, br.NewMeld("5S 5H 5D"), E.INVALID_MELD)


def test_R5_italian_sets_one_set_per_rank():
    state = deal(IT, ["5S 5H 5D 5C 5C 9H QH 7D 10D KD 3C"], stock="5D")
    state = play(state, br.DrawFromStock(), br.NewMeld("5S 5H 5D"))
    assert top_meld(state).kind is br.MeldKind.SET
    assert top_meld(state).rank is br.Rank.FIVE
    refuse(state, br.NewMeld("5C 5C 5D"), E.DUPLICATE_SET)
    state = play(state, br.AddToMeld(0, "5C 5C 5D"))
    assert len(state.melds[0]) == 1
    assert len(top_meld(state).cards) == 6


def test_R5_italian_set_contents():
    assert meld("5S 5S 5H", IT).kind is br.MeldKind.SET  # duplicates allowed
    assert meld("5S 5H 2D", IT).wildcard == br.Card("2D")
    assert meld("2S 2H 2D", IT) is None  # no set of 2s
    assert meld("2S 2H JK", IT) is None
    assert meld("JK JK JK", IT) is None  # no set of jokers
    nine = meld("5C 5C 5D 5D 5H 5H 5S 5S JK", IT)
    assert nine.kind is br.MeldKind.SET
    assert len(nine.cards) == 9
    assert meld("5C 5C 5D 5D 5H 5H 5S 5S JK 2D", IT) is None  # ten cards


# --- R6 the ace ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [F, CS, IT])
def test_R6_ace_low_or_high_never_round_the_corner(rules):
    assert meld("AS 2S 3S", rules).is_clean
    assert meld("QS KS AS", rules).is_clean
    assert meld("KS AS 2S 3S", rules) is None
    assert meld("QS KS AS 2S", rules).wildcard == br.Card("2S")  # the 2 is not natural after A
    q_k_a = meld("KS AS 2S", rules)  # only as Q-K-A, the 2 a wildcard standing for the queen
    assert q_k_a.wildcard == br.Card("2S")
    assert not q_k_a.is_clean


@pytest.mark.parametrize("rules", [F, CS])
def test_R6_run_may_span_ace_to_ace_in_fechado_and_canasta(rules):
    hand = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS"
    state = deal(rules, [hand], stock="QS", extra_piles=["KS AS 3H 6H 9H QH 4D 7D 10D KD 5C"])
    state = play(state, br.DrawFromStock(), br.NewMeld(hand + " QS"), br.AddToMeld(0, "KS AS"))
    run = top_meld(state)
    assert len(run.cards) == 14
    assert run.cards[0] == run.cards[-1] == br.Card("AS")
    assert run.is_clean
    assert run.canasta_kind is Kind.ACE_TO_ACE


def test_R6_italian_run_holds_one_natural_ace():
    assert meld("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", IT) is None
    full = meld("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS JK", IT)
    assert len(full.cards) == 14
    assert full.wildcard == br.JOKER
    hand = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS"
    state = deal(IT, [hand], stock="QS", extra_piles=["KS AS JK 3H 6H 9H QH 4D 7D 10D 5C"])
    state = play(state, br.DrawFromStock(), br.NewMeld(hand + " QS"))
    refuse(state, br.AddToMeld(0, "KS AS"), E.INVALID_MELD)
    state = play(state, br.AddToMeld(0, "KS"))
    refuse(state, br.AddToMeld(0, "AS"), E.INVALID_MELD)
    state = play(state, br.AddToMeld(0, "JK"))  # 13 natural cards + 1 wildcard
    assert len(top_meld(state).cards) == 14


# --- R7 wildcards --------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [F, CS, IT])
def test_R7_natural_and_wild_twos(rules):
    assert meld("AS 2S 3S", rules).is_clean
    mixed = meld("AS 2S 3S 2H", rules)
    assert mixed.wildcard == br.Card("2H")
    assert meld("3S 4S 2S", rules).is_clean  # 2♠ natural below the 3
    assert meld("3S 4S 2H", rules).wildcard == br.Card("2H")
    assert meld("2S 4S JK", rules).wildcard == br.JOKER  # the 2 is natural when it can be
    two_twos = meld("2S 2S 3S 4S", rules)  # one 2♠ natural, the other wild
    assert two_twos.wildcard == br.Card("2S")
    assert len(two_twos.cards) == 4
    assert meld("3S 4S JK 2H", rules) is None
    assert meld("AS 2S 3S 2H JK", rules) is None


def test_R7_two_wildcards_refused():
    state = deal(F, ["AS 2S 3S 2H 5D 6D JK 9C QC 4H 8H"], stock="KH")
    state = play(state, br.DrawFromStock())
    refuse(state, br.NewMeld("5D 6D 2H JK"), E.TOO_MANY_WILDCARDS)
    refuse(state, br.NewMeld("AS 2S 3S 2H JK"), E.TOO_MANY_WILDCARDS)
    state = play(state, br.NewMeld("AS 2S 3S 2H"))
    assert top_meld(state).wildcard == br.Card("2H")
    refuse(state, br.AddToMeld(0, "JK"), E.TOO_MANY_WILDCARDS)
    state = play(state, br.NewMeld("5D 6D JK"))
    assert top_meld(state).wildcard == br.JOKER


def test_R7_wild_suit_two_turns_natural_when_a_joker_fills_the_gap():
    state = deal(F, ["2S 4S 5S 6S JK 9C QC 3D 7D 10H KH"], stock="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("2S 4S 5S 6S"))
    assert top_meld(state).wildcard == br.Card("2S")
    state = play(state, br.AddToMeld(0, "JK"))  # 2♠ can now be natural: still one wildcard
    assert top_meld(state).cards == C("2S JK 4S 5S 6S")
    assert top_meld(state).wildcard == br.JOKER


def test_R7_second_wildcard_on_a_set_is_too_many_wildcards():
    state = deal(IT, ["5S 5H 5D 2S 2H 9C QC 3D 7D 10C KD"], stock="KH")
    state = play(state, br.DrawFromStock(), br.NewMeld("5S 5H 5D 2S"))
    refuse(state, br.AddToMeld(0, "2H"), E.TOO_MANY_WILDCARDS)


# --- R8 where a wildcard sits --------------------------------------------------------------------


def test_R8_wildcard_displaced_by_its_natural_card_floats():
    state = deal(F, ["4S 6S JK 5S 8S 9C QC 3D 7D 10H KH"], stock="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("4S 6S JK"))
    assert top_meld(state).cards == C("4S JK 6S")
    state = play(state, br.AddToMeld(0, "5S"))
    assert top_meld(state).cards == C("4S 5S 6S JK")  # the joker floats at the end
    assert br.JOKER not in state.hands[0]  # a wildcard never returns to a hand
    assert br.AddToMeld(0, "8S") in br.legal_actions(state)  # the joker can now be the 7
    state = play(state, br.AddToMeld(0, "8S"))
    assert top_meld(state).cards == C("4S 5S 6S JK 8S")


def test_R8_floating_wildcard_extends_either_end():
    state = deal(F, ["5S 6S JK 3S 8S 9C QC 3D 7D 10H KH"], stock="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("5S 6S JK"))
    assert top_meld(state).cards == C("5S 6S JK")
    below = play(state, br.AddToMeld(0, "3S"))
    assert top_meld(below).cards == C("3S JK 5S 6S")
    above = play(state, br.AddToMeld(0, "8S"))
    assert top_meld(above).cards == C("5S 6S JK 8S")


def test_R8_suit_two_takes_the_place_a_wildcard_filled():
    state = deal(F, ["AS 3S 2H 2S 9C QC 3D 7D 10H KH 5C"], stock="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("AS 2H 3S"))
    assert top_meld(state).cards == C("AS 2H 3S")
    state = play(state, br.AddToMeld(0, "2S"))
    assert top_meld(state).cards == C("AS 2S 3S 2H")  # 2♥ floats, 2♠ is natural
    assert top_meld(state).wildcard == br.Card("2H")


def test_R8_suit_two_takes_its_own_place_and_cleans_the_canasta():
    state = deal(F, ["2S 4S 5S 6S 7S 8S 9S 3S QH 6D 10C"], stock="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("2S 4S 5S 6S 7S 8S 9S"))
    before = top_meld(state)
    assert before.canasta_kind is Kind.MIXED
    assert before.wildcard == br.Card("2S")
    state = play(state, br.AddToMeld(0, "3S"))
    after = top_meld(state)
    assert after.is_clean
    assert after.canasta_kind is Kind.CLEAN
    assert after.cards == C("2S 3S 4S 5S 6S 7S 8S 9S")


def test_R8_meld_depends_only_on_the_multiset():
    state = deal(F, ["4S 6S JK 5S 8S 9C QC 3D 7D 10H KH"], stock="KD")
    state = play(state, br.DrawFromStock())
    one_go = play(state, br.NewMeld("4S 5S 6S JK"))
    wild_first = play(state, br.NewMeld("4S 6S JK"), br.AddToMeld(0, "5S"))
    wild_last = play(state, br.NewMeld("4S 5S 6S"), br.AddToMeld(0, "JK"))
    assert top_meld(one_go) == top_meld(wild_first) == top_meld(wild_last)
    assert top_meld(one_go) == meld("JK 6S 5S 4S")


def test_R8_addition_may_move_the_ace_from_low_to_high():
    hand = "AD JK 3D 4D 5D 6D 7D 8D 9D 10D JD"
    state = deal(F, [hand], stock="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld(hand))
    assert top_meld(state).cards == C(hand)  # the joker stands for the 2
    state = play(state, br.AddToMeld(0, "KD"))  # now for the queen, the ace high
    assert top_meld(state).cards == C("3D 4D 5D 6D 7D 8D 9D 10D JD JK KD AD")


def test_R8_adding_a_king_turns_a_natural_2_into_the_wildcard():
    hand = "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD"
    state = deal(F, [hand], stock="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld(hand))
    assert top_meld(state).is_clean
    state = play(state, br.AddToMeld(0, "KD"))  # the 2 stands for the queen, the ace goes high
    assert top_meld(state).cards == C("3D 4D 5D 6D 7D 8D 9D 10D JD 2D KD AD")
    assert top_meld(state).wildcard == br.Card("2D")


# --- R9 canasta ----------------------------------------------------------------------------------


def test_R9_canasta_is_seven_cards_or_more():
    six = meld("3S 4S 5S 6S 7S 8S")
    assert not six.is_canasta
    assert six.canasta_kind is None
    assert br.canasta_bonus(six, F) == 0
    assert meld("3S 4S 5S 6S 7S 8S 9S").canasta_kind is Kind.CLEAN
    assert meld("3S 4S 5S 6S 7S 8S JK").canasta_kind is Kind.MIXED


def test_R9_wildcard_on_a_clean_canasta_makes_it_mixed():
    state = deal(F, ["3S 4S 5S 6S 7S 8S 9S JK QH 6D 10C"], stock="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("3S 4S 5S 6S 7S 8S 9S"))
    assert top_meld(state).canasta_kind is Kind.CLEAN
    state = play(state, br.AddToMeld(0, "JK"))
    assert top_meld(state).canasta_kind is Kind.MIXED
    assert len(top_meld(state).cards) == 8


# --- R10 closed discard pile ---------------------------------------------------------------------

SEAT0_R10 = "7S 8S 9S 10H QH 3D 6D 9D QD 3C 6C"


def closed_pile(stock, seat0=SEAT0_R10, rules=F):
    """Both players draw and throw away the card drawn: the pile is stock[0], stock[1] (top)."""
    state = deal(rules, [seat0], stock=stock)
    return pass_turn(pass_turn(state))


@pytest.mark.parametrize("rules", [F, CS])
def test_R10_closed_pile_needs_top_card_in_meld(rules):
    state = closed_pile("KH 6S", rules=rules)
    assert state.discard_pile == C("KH 6S")
    refuse(state, br.TakeDiscardPile(), E.MUST_USE_TOP_CARD)
    refuse(state, br.TakeDiscardPile(br.NewMeld("7S 8S 9S")), E.MUST_USE_TOP_CARD)
    takes = [a for a in br.legal_actions(state) if isinstance(a, br.TakeDiscardPile)]
    assert takes
    assert all(br.Card("6S") in a.meld.cards for a in takes)


def test_R10_closed_pile_take_needing_a_second_pile_card_is_illegal():
    # not-in-hand, as for any card the taker lacks: the pile below the top is hidden (R10)
    state = closed_pile("5S 6S", seat0="7S 10H QH 3D 6D 9D QD 3C 6C 9C QC")
    refuse(state, br.TakeDiscardPile(br.NewMeld("5S 6S 7S")), E.NOT_IN_HAND)
    assert not any(isinstance(a, br.TakeDiscardPile) for a in br.legal_actions(state))


def test_R10_take_with_a_new_meld_rest_of_pile_joins_hand():
    state = closed_pile("KH 6S")
    hand = state.hands[0]
    state = play(state, br.TakeDiscardPile(br.NewMeld("6S 7S 8S")))
    assert state.phase is br.Phase.PLAY
    assert state.discard_pile == ()
    assert top_meld(state).cards == C("6S 7S 8S")
    expected = Counter(hand) - Counter(C("7S 8S")) + Counter(C("KH"))
    assert Counter(state.hands[0]) == expected


def test_R10_take_with_addition_to_team_meld():
    state = deal(F, ["3S 4S 5S 10H QH 3D 6D 9D QD 3C 6C"], stock="KH 6S")
    state = play(state, br.DrawFromStock(), br.NewMeld("3S 4S 5S"), br.Discard("KH"))
    state = pass_turn(state)  # seat 1 throws away 6S
    assert state.discard_pile == C("KH 6S")
    state = play(state, br.TakeDiscardPile(br.AddToMeld(0, "6S")))
    assert top_meld(state).cards == C("3S 4S 5S 6S")
    assert state.hands[0] == tuple(sorted(C("10H QH 3D 6D 9D QD 3C 6C KH")))


# --- R11 open discard pile -----------------------------------------------------------------------

SEAT0_R11 = "JH QH 3D 6D 9D QD 3C 6C 9C 4S 7S"


def test_R11_italian_pile_taken_without_a_meld():
    state = deal(IT, [SEAT0_R11], face_up="8C")
    state = play(state, br.TakeDiscardPile())
    assert state.phase is br.Phase.PLAY
    assert state.discard_pile == ()
    assert br.Card("8C") in state.hands[0]


def test_R11_single_taken_card_cannot_be_discarded_this_turn():
    state = deal(IT, [SEAT0_R11], face_up="KH")
    state = play(state, br.TakeDiscardPile())
    refuse(state, br.Discard("KH"), E.CANNOT_DISCARD_TAKEN_CARD)
    state = play(state, br.NewMeld("JH QH KH"), br.Discard("3C"))
    assert state.discard_pile == C("3C")


def test_R11_cards_of_a_larger_open_pile_may_be_discarded():
    state = deal(IT, [SEAT0_R11], face_up="KH", stock="5D")
    state = pass_turn(state)  # seat 0 throws away 5D: the pile is KH 5D
    state = play(state, br.TakeDiscardPile())
    assert br.Discard("5D") in br.legal_actions(state)
    assert br.Discard("KH") in br.legal_actions(state)


def test_R11_italian_take_with_a_meld_is_refused():
    state = deal(IT, [SEAT0_R11], face_up="KH")
    # docs/errors.md documents malformed-action for a meld given with an open pile
    refuse(state, br.TakeDiscardPile(br.NewMeld("JH QH KH")), E.MALFORMED_ACTION)


# --- R12 extra pile ------------------------------------------------------------------------------

MORTO = "KC KC QC QC JC JC 10C 10C 9C 9C 8C"


@pytest.mark.parametrize("rules", [F, CS, IT])
def test_R12_direct_pickup_by_melding_the_last_card(rules):
    state = deal(rules, [RUNS], stock="QD", extra_piles=[MORTO])
    state = play(state, br.DrawFromStock(), *MELD_RUNS[:2])
    assert not any(m.is_canasta for m in state.melds[0])  # no canasta needed
    state = play(state, br.NewMeld("9D 10D JD QD"))
    assert state.hands[0] == tuple(sorted(C(MORTO)))
    assert (state.current_player, state.phase) == (0, br.Phase.PLAY)  # same turn goes on
    assert state.extra_piles[0] is None
    assert state.extra_pile_taken == (True, False)
    assert state.extra_piles[1] is not None
    assert state.untouched_extra_pile == (None, None)


def test_R12_direct_pickup_when_a_pile_take_uses_the_last_cards():
    seat0 = "3S 4S 5S 6H 7H 8H 9D 10D JD 7C 8C"
    seat1 = "JH QH 9C 3D 6D 9D QD 4S 7S 10S KS"
    morto = "5D 5D 4H 4H 3H 3H 10H 10H 8S 8S 2D"
    state = deal(F, [seat0, seat1], stock="KH", extra_piles=[morto])
    state = play(
        state,
        br.DrawFromStock(),
        br.NewMeld("3S 4S 5S"),
        br.NewMeld("6H 7H 8H"),
        br.NewMeld("9D 10D JD"),
        br.Discard("KH"),
    )
    state = play(state, br.TakeDiscardPile(br.NewMeld("JH QH KH")), br.Discard("9C"))
    assert (state.hands[0], state.discard_pile) == (C("7C 8C"), C("9C"))
    state = play(state, br.TakeDiscardPile(br.NewMeld("7C 8C 9C")))
    assert state.hands[0] == tuple(sorted(C(morto)))
    assert (state.current_player, state.phase) == (0, br.Phase.PLAY)
    assert state.extra_pile_taken == (True, False)


@pytest.mark.parametrize("rules", [F, CS, IT])
def test_R12_indirect_pickup_by_discarding_the_last_card(rules):
    state = deal(rules, [RUNS], stock="KH", extra_piles=[MORTO])
    state = play(state, br.DrawFromStock(), *MELD_RUNS)
    assert state.hands[0] == C("KH")
    state = play(state, br.Discard("KH"))
    assert state.hands[0] == tuple(sorted(C(MORTO)))
    assert (state.current_player, state.phase) == (1, br.Phase.DRAW)  # the turn passes
    assert state.discard_pile[-1] == br.Card("KH")
    assert state.extra_piles[0] is None
    assert state.extra_pile_taken == (True, False)
    assert state.untouched_extra_pile == (0, None)


# --- R13 going out -------------------------------------------------------------------------------

MORTO_CLEAN = "7S 8S 9S JK 4C 5C 6C 7C 8C 9C 10C"  # gives a clean canasta 3S-9S


def fechado_one_card_left(rules=F):
    """Team 0 holds clean canastas 3S-9S and 4C-10C; seat 0 holds only the joker."""
    state = after_direct_pickup(MORTO_CLEAN, rules=rules)
    state = play(state, br.AddToMeld(0, "7S 8S 9S"), br.NewMeld("4C 5C 6C 7C 8C 9C 10C"))
    assert state.hands[0] == (br.JOKER,)
    return state


@pytest.mark.parametrize("rules", [F, CS])
def test_R13_fechado_goes_out_by_melding_with_a_clean_canasta(rules):
    state = play(fechado_one_card_left(rules), br.AddToMeld(1, "JK"))
    assert state.is_over
    assert state.went_out == 0
    assert br.legal_actions(state) == ()


@pytest.mark.parametrize("rules", [F, CS])
def test_R13_fechado_goes_out_by_discarding_even_a_wildcard(rules):
    state = play(fechado_one_card_left(rules), br.Discard("JK"))
    assert state.is_over
    assert state.went_out == 0
    assert state.discard_pile[-1] == br.JOKER


def test_R13_canasta_made_by_the_going_out_meld_counts():
    state = after_direct_pickup("4C 5C 6C 7C 8C 10C JC QC 7S 8S 9S")
    state = play(state, br.NewMeld("4C 5C 6C 7C 8C"), br.NewMeld("10C JC QC"))
    assert not any(m.is_canasta for m in state.melds[0])
    state = play(state, br.AddToMeld(0, "7S 8S 9S"))
    assert state.is_over
    assert state.went_out == 0


@pytest.mark.parametrize("rules", [F, CS])
def test_R13_fechado_mixed_canasta_is_not_enough(rules):
    state = after_direct_pickup("7S 8S JK 4C 5C 6C 8D KD JC QC KC", rules=rules)
    state = play(state, br.AddToMeld(0, "7S 8S JK"), br.NewMeld("4C 5C 6C"))
    state = play(state, br.AddToMeld(2, "8D KD"))
    assert top_meld(state, index=0).canasta_kind is Kind.MIXED
    assert state.hands[0] == C("JC QC KC")
    refuse(state, br.NewMeld("JC QC KC"), E.CANNOT_GO_OUT)


def test_R13_italian_goes_out_by_discarding_with_a_mixed_canasta():
    state = after_direct_pickup("7S 8S JK 4C 5C 6C 8C 9C 10C JC 2D", rules=IT)
    state = play(state, br.AddToMeld(0, "7S 8S JK"), br.NewMeld("4C 5C 6C"))
    assert top_meld(state, index=0).canasta_kind is Kind.MIXED
    state = play(state, br.AddToMeld(3, "2D"), br.NewMeld("8C 9C 10C"))
    assert state.hands[0] == C("JC")
    state = play(state, br.Discard("JC"))
    assert state.is_over
    assert state.went_out == 0


def test_R13_italian_last_card_must_be_a_discard_and_not_a_wildcard():
    state = after_direct_pickup("7S 8S JK 4C 5C 6C 8C 9C 10C JC 2D", rules=IT)
    state = play(state, br.AddToMeld(0, "7S 8S JK"), br.NewMeld("4C 5C 6C"))
    assert state.hands[0] == C("8C 9C 10C JC 2D")
    refuse(state, br.NewMeld("8C 9C 10C JC 2D"), E.CANNOT_GO_OUT)  # going out by melding
    refuse(state, br.NewMeld("8C 9C 10C JC"), E.CANNOT_GO_OUT)  # leaves only a wildcard
    state = play(state, br.NewMeld("8C 9C 10C"))  # leaving JC 2D is fine
    assert state.hands[0] == C("JC 2D")


# --- R14 no move into a dead end -----------------------------------------------------------------


def test_R14_meld_leaving_one_or_no_card_refused_while_team_cannot_go_out():
    state = after_direct_pickup("4C 5C 6C 8C 9C 10C JC QC 5H 10H KD")
    state = play(state, br.NewMeld("4C 5C 6C"), br.AddToMeld(1, "5H 10H"), br.AddToMeld(2, "KD"))
    assert state.hands[0] == C("8C 9C 10C JC QC")
    assert not any(m.is_canasta for m in state.melds[0])
    refuse(state, br.NewMeld("8C 9C 10C JC QC"), E.CANNOT_GO_OUT)  # leaves no card
    refuse(state, br.NewMeld("8C 9C 10C JC"), E.CANNOT_GO_OUT)  # leaves QC
    refuse(state, br.NewMeld("9C 10C JC QC"), E.CANNOT_GO_OUT)  # leaves 8C
    state = play(state, br.NewMeld("8C 9C 10C"))  # leaves two cards
    assert state.hands[0] == C("JC QC")


def test_R14_may_not_keep_only_the_single_card_just_taken():
    state = deal(IT, [RUNS], face_up="KH")
    state = play(state, br.TakeDiscardPile(), *MELD_RUNS[:2])
    assert state.hands[0] == C("9D 10D JD KH")
    refuse(state, MELD_RUNS[2], E.CANNOT_GO_OUT)  # KH could not be discarded (R11)


def test_R14_meld_leaving_one_card_is_fine_while_the_extra_pile_waits():
    state = deal(F, [RUNS], stock="KH")
    state = play(state, br.DrawFromStock(), *MELD_RUNS)
    assert state.hands[0] == C("KH")


# --- R15 empty stock -----------------------------------------------------------------------------


def finish_by_stock(state):
    """Every player draws and throws the card away until the hand ends (R15)."""
    while not state.is_over:
        state = pass_turn(state)
    return state


@pytest.mark.parametrize("first", [0, 1])
def test_R15_extra_pile_becomes_stock_current_team_first(first):
    state = deal(F, [RUNS, RUNS], first_player=first)
    piles = state.extra_piles
    while state.extra_piles == piles:
        state = pass_turn(state)
    team = state.current_team
    assert team == first  # 64 cards: the first player draws again when the stock is empty
    assert state.stock == piles[team]
    assert state.extra_piles[team] is None
    assert state.extra_piles[1 - team] == piles[1 - team]
    assert state.extra_pile_taken == (False, False)
    assert not state.is_over


def test_R15_extra_pile_in_the_stock_can_no_longer_be_taken():
    state = deal(F, [RUNS, RUNS], first_player=1, extra_piles=["", "KC 3H"])
    while state.extra_piles[1] is not None:
        state = pass_turn(state)
    assert state.current_player == 1
    state = play(state, br.DrawFromStock(), *MELD_RUNS[:2])
    assert state.hands[1] == C("KC 9D 10D JD")
    refuse(state, MELD_RUNS[2], E.CANNOT_GO_OUT)
    assert br.score(state)[1].extra_pile == 100


def test_R15_fechado_hand_ends_when_stock_and_extra_piles_are_used_up():
    state = deal(F, [RUNS, RUNS])
    turns = 0
    while not state.is_over:
        state = pass_turn(state)
        turns += 1
    assert turns == 64 + 11 + 11
    assert state.went_out is None
    assert state.extra_pile_taken == (False, False)
    for team_score in br.score(state):
        assert team_score.going_out == 0
        assert team_score.extra_pile == 100


def test_R15_italian_hand_ends_when_stock_runs_out():
    state = deal(IT, [RUNS, RUNS])
    piles = state.extra_piles
    turns = 0
    while not state.is_over:
        state = pass_turn(state)
        turns += 1
    assert turns == 63
    assert state.stock == ()
    assert state.extra_piles == piles  # never stock in Italian
    assert state.went_out is None
    assert br.legal_actions(state) == ()
    for team_score in br.score(state):
        assert team_score.going_out == 0
        assert team_score.extra_pile == 100


# --- R16, R17 scoring ----------------------------------------------------------------------------


def test_R16_score_items_after_going_out():
    seat1 = "JK 2D AH KH 8H 3C 7C 4D 5D 6D QS"
    state = after_direct_pickup(MORTO_CLEAN, seat1=seat1)
    state = play(state, br.AddToMeld(0, "7S 8S 9S"), br.NewMeld("4C 5C 6C 7C 8C 9C 10C"))
    state = play(state, br.Discard("JK"))
    assert state.is_over
    ours, theirs = br.score(state)
    # 3S-9S: 5*5 + 10*2; 6H-9H: 5+5+10+10; 9D-QD: 4*10; 4C-10C: 5*4 + 10*3
    assert ours == br.TeamScore(
        table=45 + 30 + 40 + 50, canastas=200 + 200, going_out=100, hands=0, extra_pile=0
    )
    assert ours.total == 165 + 400 + 100
    # JK 50, 2D 10, AH 15, KH 10, 8H 10, 3C 7C 4D 5D 6D 5 each, QS 10
    assert theirs == br.TeamScore(
        table=0, canastas=0, going_out=0, hands=50 + 10 + 15 + 10 + 10 + 5 * 5 + 10, extra_pile=100
    )
    assert theirs.total == -130 - 100  # team 1's untaken pile counts for no one
    for s in (ours, theirs):
        assert s.total == s.table + s.canastas + s.going_out - s.hands - s.extra_pile


@pytest.mark.parametrize(("rules", "wild", "other"), [(F, 285, 85), (CS, 285, 85), (IT, 245, 85)])
def test_R17_card_values(rules, wild, other):
    # jokers 4 * (50 | 30), twos 4 * (10 | 20), aces 3 * 15
    seat0 = "JK JK JK JK 2S 2H 2D 2C AD AC AH"
    # 8 to K: 6 * 10, 3 to 7: 5 * 5
    seat1 = "8C 9D 10H JS QC KD 3D 4H 5S 6C 7D"
    state = finish_by_stock(deal(rules, [seat0, seat1]))
    assert state.went_out is None
    assert [s.hands for s in br.score(state)] == [wild, other]


@pytest.mark.parametrize(("rules", "two"), [(F, 10), (IT, 20)])
def test_R17_a_natural_two_counts_like_a_wild_one(rules, two):
    state = deal(rules, ["AS 2S 3S 4H 5H 2D 9C QC 6D 10D KD"], stock="KS")
    state = play(state, br.DrawFromStock(), br.NewMeld("AS 2S 3S"), br.NewMeld("4H 5H 2D"))
    assert br.score(state)[0].table == (15 + two + 5) + (5 + 5 + two)


# --- R18 canasta bonuses -------------------------------------------------------------------------

MIXED = "3S 4S 5S 6S 7S 8S JK"
CLEAN = "3S 4S 5S 6S 7S 8S 9S"
ALL_RANKS = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
ACE_TO_ACE = ALL_RANKS + " AS"


@pytest.mark.parametrize(
    ("rules", "cards", "bonus"),
    [
        (F, MIXED, 100),
        (F, CLEAN, 200),
        (F, ALL_RANKS, 500),
        (F, ACE_TO_ACE, 1000),
        (CS, MIXED, 100),
        (CS, CLEAN, 200),
        (CS, ALL_RANKS, 200),
        (CS, ACE_TO_ACE, 1000),
        (IT, MIXED, 100),
        (IT, CLEAN, 200),
        (IT, ALL_RANKS, 200),
        (IT, "5C 5C 5D 5D 5H 5H 5S", 200),
        (IT, "5C 5C 5D 5D 5H 5H JK", 100),
        (F, ALL_RANKS[3:] + " JK", 100),
        (F, ACE_TO_ACE[3:] + " 2H", 100),
    ],
)
def test_R18_canasta_bonus_tiers(rules, cards, bonus):
    assert br.canasta_bonus(meld(cards, rules), rules) == bonus


@pytest.mark.parametrize(("rules", "bonus"), [(F, 1000), (CS, 1000)])
def test_R18_one_bonus_per_canasta_in_play(rules, bonus):
    hand = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS"
    state = deal(rules, [hand], stock="QS", extra_piles=["KS AS 3H 6H 9H QH 4D 7D 10D KD 5C"])
    state = play(state, br.DrawFromStock(), br.NewMeld(hand + " QS"), br.AddToMeld(0, "KS"))
    assert br.score(state)[0].canastas == (500 if rules is F else 200)
    state = play(state, br.AddToMeld(0, "AS"))
    assert br.score(state)[0].canastas == bonus


# --- R19 the untouched extra pile ----------------------------------------------------------------

MORTO_HIGH = "JK JK AH AH KH KH QH QH JH JH 10H"  # 50*2 + 15*2 + 10*7 = 200 in Fechado


def indirect_pickup(players=2, others=(), stock="KC"):
    """Seat 0 draws KC, melds eleven cards, discards KC and takes its pile indirectly (R12)."""
    state = deal(F, [RUNS, *others], players=players, stock=stock, extra_piles=[MORTO_HIGH])
    state = play(state, br.DrawFromStock(), *MELD_RUNS, br.Discard("KC"))
    assert state.untouched_extra_pile[0] == 0
    return state


def test_R19_untouched_pile_when_opponent_goes_out():
    seat1 = "3C 4C 5C 6C 7C 8C 9C 10S JS QS KS"
    morto1 = "10C JC QC 5D 6D 7D 8D 9D 10D 4H KD"
    state = deal(F, [RUNS, seat1], stock="KS AS KC JD", extra_piles=[MORTO_HIGH, morto1])
    state = play(state, br.DrawFromStock(), br.Discard("KS"))
    # seat 1: a clean canasta, the pile taken directly, then one card kept
    state = play(
        state, br.DrawFromStock(), br.NewMeld("3C 4C 5C 6C 7C 8C 9C"), br.NewMeld("10S JS QS KS AS")
    )
    assert state.extra_pile_taken == (False, True)
    state = play(
        state, br.AddToMeld(0, "10C JC QC"), br.NewMeld("5D 6D 7D 8D 9D 10D"), br.Discard("KD")
    )
    # seat 0: takes its pile indirectly
    state = play(state, br.DrawFromStock(), *MELD_RUNS, br.Discard("KC"))
    assert state.untouched_extra_pile == (0, None)
    # seat 1 goes out before seat 0's next turn
    state = play(state, br.DrawFromStock(), br.AddToMeld(2, "JD"), br.Discard("4H"))
    assert state.is_over
    assert state.went_out == 1
    ours, theirs = br.score(state)
    assert state.hands[0] == tuple(sorted(C(MORTO_HIGH)))
    assert ours.hands == 0  # the pile's cards count for no one
    assert ours.extra_pile == 100
    assert ours.table == 20 + 30 + 30
    assert theirs.going_out == 100
    assert theirs.extra_pile == 0


def test_R19_untouched_pile_when_stock_runs_out():
    state = deal(IT, [RUNS], extra_piles=[MORTO_HIGH])
    while len(state.stock) > 1:
        state = pass_turn(state)
    assert state.current_player == 0
    last = state.stock[0]
    state = play(state, br.DrawFromStock(), *MELD_RUNS, br.Discard(last))
    assert state.is_over
    assert state.went_out is None
    assert state.hands[0] == tuple(sorted(C(MORTO_HIGH)))
    ours, _ = br.score(state)
    assert ours.hands == 0
    assert ours.extra_pile == 100
    assert ours.going_out == 0


def test_R19_pile_counts_once_the_takers_next_turn_comes():
    state = indirect_pickup()
    assert br.score(state)[0].extra_pile == 100
    state = pass_turn(state)  # seat 1
    assert state.current_player == 0
    assert state.untouched_extra_pile == (None, None)
    ours = br.score(state)[0]
    assert ours.extra_pile == 0
    assert ours.hands == 200


def test_R19_pile_counts_when_own_team_goes_out():
    seat2 = "3H 4H 5H 6H 7H 8H 9H 5D 6D 7D 8D"
    state = indirect_pickup(players=4, others=["", seat2], stock="KC QC 9D")
    state = pass_turn(state)  # seat 1
    state = play(
        state, br.DrawFromStock(), br.NewMeld("3H 4H 5H 6H 7H 8H 9H"), br.NewMeld("5D 6D 7D 8D 9D")
    )
    assert state.is_over
    assert state.went_out == 0
    ours = br.score(state)[0]
    assert ours.extra_pile == 0
    assert ours.hands == 200
    assert ours.going_out == 100


# --- error codes ---------------------------------------------------------------------------------


def test_error_game_over():
    state = play(fechado_one_card_left(), br.Discard("JK"))
    for action in (br.DrawFromStock(), br.Discard("JK"), br.NewMeld("3S 4S 5S")):
        refuse(state, action, E.GAME_OVER)


def test_error_not_your_turn():
    state = br.new_game(F, 2, seed=1)
    refuse(state, br.DrawFromStock(), E.NOT_YOUR_TURN, player=1)
    refuse(state, br.DrawFromStock(), E.NOT_YOUR_TURN, player="0")
    assert br.apply(state, br.DrawFromStock(), player=0).phase is br.Phase.PLAY


def test_error_not_in_hand_names_the_card():
    state = play(deal(F, ["6S 7S 10H QH 3D 6D 9D QD 3C 6C 9C"], stock="KH"), br.DrawFromStock())
    err = refuse(state, br.NewMeld("5S 6S 7S"), E.NOT_IN_HAND)
    assert "5♠" in str(err)
    err = refuse(state, br.Discard("5S"), E.NOT_IN_HAND)
    assert "5♠" in str(err)
    refuse(state, br.NewMeld("6S 6S 7S"), E.NOT_IN_HAND)  # one 6♠ held, two used


def test_error_no_such_meld():
    state = deal(F, ["3S 4S 5S 6S 10H QH 3D 6D 9D QD 3C"], stock="KH")
    state = play(state, br.DrawFromStock())
    refuse(state, br.AddToMeld(0, "6S"), E.NO_SUCH_MELD)
    state = play(state, br.NewMeld("3S 4S 5S"))
    refuse(state, br.AddToMeld(1, "6S"), E.NO_SUCH_MELD)
    refuse(state, br.AddToMeld(br.MAX_MELD_INDEX, "6S"), E.NO_SUCH_MELD)
    # The constructor refuses -1 and 10**9; forged past it, apply refuses them all the same.
    refuse(state, forged(br.AddToMeld, -1, (br.Card("6S"),)), E.NO_SUCH_MELD)
    refuse(state, forged(br.AddToMeld, 10**9, (br.Card("6S"),)), E.NO_SUCH_MELD)
    play(state, br.AddToMeld(0, "6S"))


def test_error_empty_discard_pile():
    state = deal(F, ["6S 7S 10H QH 3D 6D 9D QD 3C 6C 9C"])
    refuse(state, br.TakeDiscardPile(br.NewMeld("5S 6S 7S")), E.EMPTY_DISCARD_PILE)
    refuse(state, br.TakeDiscardPile(), E.EMPTY_DISCARD_PILE)


@pytest.mark.parametrize(
    "action",
    [
        None,
        "draw",
        object(),
        42,
        forged(br.NewMeld, (53, 54, 55)),
        forged(br.Discard, 99),
        forged(br.AddToMeld, "0", br.parse_cards("6S")),
        forged(br.NewMeld, ()),
        br.DrawFromStock,
    ],
    ids=[
        "none",
        "str",
        "object",
        "int",
        "newmeld-ints",
        "discard-int",
        "addtomeld-str",
        "newmeld-empty",
        "class",
    ],
)
def test_error_malformed_action(action):
    state = deal(F, ["3S 4S 5S 6S 10H QH 3D 6D 9D QD 3C"], stock="KH")
    state = play(state, br.DrawFromStock(), br.NewMeld("3S 4S 5S"))
    refuse(state, action, E.MALFORMED_ACTION)


def test_refused_action_leaves_state_unchanged():
    state = deal(F, ["3S 4S 5S 6S 10H QH 3D 6D 9D QD 3C"], stock="KH")
    state = play(state, br.DrawFromStock())
    before = copy.deepcopy(state)
    hand = state.hands[0]
    for action in (br.NewMeld("3S 5S 6S"), br.Discard("AS"), br.DrawFromStock(), None):
        with pytest.raises(br.IllegalAction):
            br.apply(state, action)
    assert state == before
    assert state.hands[0] is hand
    assert br.apply(state, br.Discard("KH")).current_player == 1
