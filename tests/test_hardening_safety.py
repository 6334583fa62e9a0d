"""In-process safety (issue 15, items 4-7): hostile objects get the documented error with a bounded
message; no object the caches keep can be forced to change another table's game; refusals out of
turn or of malformed objects are decided before any cache keyed by a hand; refusals that cross the
library's boundary carry no frames that hold the state.

Each test failed on the code before the change it comes with.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.quoting import describe

E = br.ErrorCode

BOUND = 400
"""No message of the library quoting a hostile object is longer than this."""


class Boom(Exception):
    """The hostile objects' own exception: it must never escape the library."""


class LyingStr(str):
    """A str whose length, slicing and concatenation raise."""

    def __len__(self) -> int:
        raise Boom("len")

    def __getitem__(self, index: object) -> str:
        raise Boom("getitem")

    def __add__(self, other: object) -> str:
        raise Boom("add")

    def __str__(self) -> str:
        raise Boom("str")

    def __format__(self, spec: str) -> str:
        raise Boom("format")


class ShortStr(str):
    """A long str that says it is short (so a bound checked with its ``len`` lets it through)."""

    def __len__(self) -> int:
        return 3


class ReprLying:
    def __repr__(self) -> str:
        return LyingStr("x" * 100_000)


class ReprShort:
    def __repr__(self) -> str:
        return ShortStr("y" * 100_000)


class ReprRaising:
    def __repr__(self) -> str:
        raise Boom("repr")


class ReprLong:
    def __repr__(self) -> str:
        return "z" * 100_000


class NameRaising(type):
    @property
    def __name__(cls) -> str:  # type: ignore[override]
        raise Boom("name")


class Nameless(ReprRaising, metaclass=NameRaising):
    pass


class HugeInt(int):
    pass


HOSTILE: dict[str, Callable[[], object]] = {
    "repr-str-subclass-raising": ReprLying,
    "repr-str-subclass-lying-len": ReprShort,
    "repr-raising": ReprRaising,
    "repr-long": ReprLong,
    "metaclass-name-raising": Nameless,
    "huge-int": lambda: 10**5000,
    "huge-int-subclass": lambda: HugeInt(10**5000),
    "str-subclass-raising": lambda: LyingStr("q" * 100_000),
    "str-subclass-lying-len": lambda: ShortStr("w" * 100_000),
}


@pytest.fixture(params=sorted(HOSTILE))
def hostile(request: pytest.FixtureRequest) -> object:
    return HOSTILE[request.param]()


def _refused(kind: type[BaseException], call: Callable[[], object]) -> BaseException:
    """``call()`` raises ``kind`` (and nothing else) with a bounded message."""
    with pytest.raises(kind) as caught:
        call()
    message = str.__str__(caught.value.args[0]) if caught.value.args else ""
    assert type(caught.value.args[0]) is str
    assert len(message) <= BOUND, message[:200]
    return caught.value


# --- 4: quoting ---------------------------------------------------------------------------------


def test_describe_is_bounded_and_never_raises(hostile: object) -> None:
    from buraco_rules.quoting import kind_of, quote_text

    text = describe(hostile)
    assert type(text) is str
    assert len(str.__str__(text)) <= 80
    assert type(kind_of(hostile)) is str and len(kind_of(hostile)) <= 50
    quoted = quote_text(hostile)  # type: ignore[arg-type]
    assert type(quoted) is str and len(quoted) <= 120


def test_describe_of_a_repr_that_lies_about_its_length_is_cut() -> None:
    assert describe(ReprShort()) == "y" * 77 + "..."


def test_formats_quote_of_a_str_subclass_is_bounded() -> None:
    from buraco_rules.formats.errors import quote

    assert quote(ShortStr("w" * 1000)).endswith("… (1,000 characters)")
    assert type(quote(LyingStr("abc"))) is str


def test_apply_and_why_illegal_refuse_hostile_actions(hostile: object) -> None:
    state = br.new_game(variants.BURACO_FECHADO, 2, seed=1)
    error = _refused(br.IllegalAction, lambda: br.apply(state, hostile))
    assert error.code is E.MALFORMED_ACTION  # type: ignore[attr-defined]
    refusal = br.why_illegal(state, hostile)
    assert refusal is not None and refusal.code is E.MALFORMED_ACTION
    assert len(str(refusal)) <= BOUND
    assert not br.is_legal(state, hostile)


def test_apply_refuses_a_hostile_player(hostile: object) -> None:
    state = br.new_game(variants.BURACO_FECHADO, 2, seed=1)
    error = _refused(br.IllegalAction, lambda: br.apply(state, br.DrawFromStock(), hostile))
    assert error.code is E.NOT_YOUR_TURN  # type: ignore[attr-defined]


def test_apply_refuses_hostile_cards_inside_actions(hostile: object) -> None:
    state = br.apply(br.new_game(variants.BURACO_FECHADO, 2, seed=1), br.DrawFromStock())
    action = br.Discard(state.hands[0][0])
    object.__setattr__(action, "card", hostile)  # past the constructor's checks
    error = _refused(br.IllegalAction, lambda: br.apply(state, action))
    assert error.code is E.MALFORMED_ACTION  # type: ignore[attr-defined]


def test_action_constructors_refuse_hostile_values(hostile: object) -> None:
    _refused(br.MalformedAction, lambda: br.Discard(hostile))
    _refused(br.MalformedAction, lambda: br.AddToMeld(hostile, "5S 6S 7S"))  # type: ignore[arg-type]
    _refused(br.MalformedAction, lambda: br.TakeDiscardPile(hostile))  # type: ignore[arg-type]
    if not isinstance(hostile, str):
        _refused(br.MalformedAction, lambda: br.NewMeld([hostile]))  # type: ignore[list-item]


def test_validate_refuses_hostile_fields(hostile: object) -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    for field in ("phase", "current_player", "hands", "stock", "went_out", "taken_single_card"):
        _refused(br.InvalidState, lambda f=field: br.validate(attrs.evolve(state, **{f: hostile})))
    _refused(br.InvalidState, lambda: br.validate(hostile))


def test_rule_sets_refuse_hostile_fields(hostile: object) -> None:
    for field in ("hand_size", "title", "sets_allowed", "default_players", "card_values"):
        _refused(br.InvalidRules, lambda f=field: attrs.evolve(variants.ITALIAN, **{f: hostile}))


def test_new_game_refuses_hostile_arguments(hostile: object) -> None:
    rules = variants.ITALIAN
    _refused(ValueError, lambda: br.new_game(rules, hostile, seed=1))
    _refused(ValueError, lambda: br.new_game(rules, 2, seed=1, first_player=hostile))
    _refused(ValueError, lambda: br.new_game(hostile, 2, seed=1))  # type: ignore[arg-type]
    if not isinstance(hostile, int | str):
        _refused(ValueError, lambda: br.new_game(rules, 2, seed=hostile))
    _refused(ValueError, lambda: br.new_game(rules, 2, deck=[hostile] * 108))  # type: ignore[list-item]


def test_parse_action_refuses_hostile_text(hostile: object) -> None:
    _refused(br.NotationError, lambda: br.parse_action(hostile))  # type: ignore[arg-type]
