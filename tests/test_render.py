"""``br.render``: the public drawing of the table from one seat's view (issue 16), and
``escape``, which keeps every control character of outside text from reaching a terminal."""

from __future__ import annotations

import random
import subprocess
import sys

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.play.rendering import ending_text, escape, render_score
from buraco_rules.testing import game_states

CONTROLS = (
    [chr(c) for c in range(0x20)]  # C0, with ESC, BEL, NUL, CR, LF
    + ["\x7f"]  # DEL
    + [chr(c) for c in range(0x80, 0xA0)]  # C1, with CSI (U+009B)
    + [chr(c) for c in range(0x202A, 0x202F)]  # bidi embeddings and overrides
    + [chr(c) for c in range(0x2066, 0x206A)]  # bidi isolates
    + ["\u200e", "\u200f", "\u061c", "\u2028", "\u2029", "\ufeff", "\u200b"]
)


@settings(max_examples=60, deadline=None)
@given(game_states(max_steps=80), st.data())
def test_the_drawing_is_the_same_under_every_re_deal_of_the_hidden_cards(
    state: br.GameState, data: st.DataObject
) -> None:
    seat = data.draw(st.integers(0, state.players - 1))
    seen = br.view(state, seat)
    drawn = br.render(seen)
    ascii_drawn = br.render(seen, ascii_only=True)
    for _ in range(3):
        other = br.determinize(seen, random.Random(data.draw(st.integers(0, 2**32))))
        assert br.render(br.view(other, seat)) == drawn
        assert br.render(br.view(other, seat), ascii_only=True) == ascii_drawn


def test_the_drawing_shows_the_seat_its_own_hand_and_only_the_sizes_of_the_others() -> None:
    state = br.new_game(variants.CANASTA_STBL, 2, seed=4)
    drawn = br.render(br.view(state, 1), ascii_only=True)
    assert drawn.splitlines()[0] == (
        "Canasta STBL, 2 players. Seat 1 (team 1) sees the table; seat 0 to draw."
    )
    assert "Cards in other hands: seat 0: 11" in drawn
    for card in set(state.hands[1]):
        assert str(card) in drawn
    assert "Your hand (11 cards):" in drawn and "Stock: 64 cards" in drawn


def test_a_state_is_refused_only_a_view_is_drawn() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    with pytest.raises(TypeError, match="one seat's view"):
        br.render(state)  # type: ignore[arg-type]


def test_one_card_is_singular() -> None:
    # Fails on the previous drawing (cli/render.py), which said "Your hand (1 cards)".
    rules = attrs.evolve(variants.ITALIAN, name="one", title="One card", hand_size=1)
    state = br.new_game(rules, 2, seed=2)
    drawn = br.render(br.view(state, 0), ascii_only=True)
    assert "Your hand (1 card):" in drawn and " 1 cards" not in drawn
    assert "Discard pile: 1 card," in drawn


def test_a_custom_title_is_escaped_in_the_drawing() -> None:
    hostile = "\x1b]0;owned\x07\x1b[2J\u202eFake"
    rules = attrs.evolve(variants.ITALIAN, name="house", title=hostile)
    drawn = br.render(br.view(br.new_game(rules, 2, seed=1), 0))
    assert not any(c in drawn for c in CONTROLS if c != "\n")
    assert drawn.startswith("\\x1b]0;owned\\x07\\x1b[2J\\u202eFake, 2 players.")


@pytest.mark.parametrize("char", CONTROLS)
def test_every_control_character_is_escaped(char: str) -> None:
    text = escape(f"a{char}b")
    assert char not in text and text.isprintable() and text.startswith("a\\")


@given(st.text())
def test_escaped_text_is_printable_and_printable_text_is_kept(text: str) -> None:
    out = escape(text)
    assert out.isprintable()
    if text.isprintable():
        assert out == text


def test_escape_bounds_the_text() -> None:
    assert escape("x" * 500, 10) == "x" * 10 + "…"
    assert escape("short", 10) == "short"


def test_penalties_have_the_sign_of_team_score() -> None:
    us, them = br.score(br.new_game(variants.ITALIAN, 2, seed=1))
    assert us.hands > 0 and us.extra_pile > 0
    rows = dict(
        (line[:22].strip(), line[22:].split()) for line in render_score((us, them)).splitlines()[1:]
    )
    assert rows["less cards in hand"] == [str(us.hands), str(them.hands)]
    assert rows["less extra pile"] == [str(us.extra_pile), str(them.extra_pile)]
    assert rows["total"] == [str(us.total), str(them.total)]


def test_the_drawing_needs_attrs_only() -> None:
    code = "import sys, buraco_rules as br; print(sorted({'rich'} & set(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_R24_a_stalemate_is_named_as_such_not_as_an_exhausted_stock() -> None:
    state = br.new_game(variants.ITALIAN, 4, seed=3)
    while not state.is_over:  # take the one-card pile and discard, until R24 stops the hand
        state = br.apply(state, br.TakeDiscardPile())
        state = br.apply(state, next(a for a in br.legal_actions(state) if type(a) is br.Discard))
    assert state.outcome is not None and state.outcome.termination is br.Termination.STALEMATE
    drawing = br.render(br.view(state, 0))
    assert "stalemate" in drawing and "stock ran out" not in drawing
    assert ending_text(state.outcome).startswith("stalemate")
