"""In-process safety (issue 15, items 4-7): hostile objects get the documented error with a bounded
message; no object the caches keep can be forced to change another table's game; refusals out of
turn or of malformed objects are decided before any cache keyed by a hand; refusals that cross the
library's boundary carry no frames that hold the state.

Each test failed on the code before the change it comes with.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.quoting import describe

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
    from buraco_rules.core.quoting import kind_of, quote_text

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


# --- 7: no frames holding the state cross the boundary -----------------------------------------

_LIBRARY = br.__file__.rsplit("/", 1)[0].rsplit("\\", 1)[0]


def _holds_a_state(value: object, seen: set[int], depth: int = 2) -> bool:
    if isinstance(value, br.GameState | br.Match):
        return True
    if depth and isinstance(value, tuple | list | set | frozenset):
        return any(_holds_a_state(v, seen, depth - 1) for v in value)
    if depth and isinstance(value, dict):
        return any(_holds_a_state(v, seen, depth - 1) for v in value.values())
    if isinstance(value, BaseException):  # another exception, and its frames
        return _holds_state_frames(value, seen)
    return False


def _holds_state_frames(error: BaseException, seen: set[int] | None = None) -> bool:
    """Whether a frame of the library in ``error``'s traceback holds a state (or a Match)."""
    seen = set() if seen is None else seen
    if id(error) in seen:
        return False
    seen.add(id(error))
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename.startswith(_LIBRARY) and any(
            _holds_a_state(v, seen) for v in frame.f_locals.values()
        ):
            return True
        tb = tb.tb_next
    return False


def _a_refused_state() -> tuple[br.GameState, br.Action]:
    """A state in its play phase, and a well formed action it refuses after generating its moves."""
    state = br.apply(br.new_game(variants.BURACO_FECHADO, 2, seed=3), br.DrawFromStock())
    missing = next(c for c in br.DECK if c not in state.hands[0])
    return state, br.Discard(missing)


def _clean(error: BaseException) -> None:
    assert error.__cause__ is None and error.__context__ is None
    assert not _holds_state_frames(error)


@pytest.mark.parametrize("player", [None, 0, 1], ids=["no-player", "seat-to-act", "other-seat"])
def test_why_illegal_returns_an_error_without_a_traceback(player: int | None) -> None:
    state, action = _a_refused_state()
    for refused in (action, br.DrawFromStock(), ReprRaising()):
        error = br.why_illegal(state, refused, player=player)
        assert error is not None
        assert error.__traceback__ is None
        _clean(error)
    seen = br.view(state, 0)
    error = br.why_illegal(seen, action, player=0)
    assert error is not None and error.__traceback__ is None
    _clean(error)


@pytest.mark.parametrize("player", [None, 0, 1], ids=["no-player", "seat-to-act", "other-seat"])
def test_apply_raises_without_frames_that_hold_the_state(player: int | None) -> None:
    state, action = _a_refused_state()
    match = br.new_match(variants.BURACO_FECHADO, 2, seed=3)
    for target, wrong_phase in ((state, br.DrawFromStock()), (match, action)):
        for refused in (action, wrong_phase, ReprRaising()):
            try:
                br.apply(target, refused, player)  # type: ignore[call-overload]
            except br.IllegalAction as error:
                assert error.__traceback__ is not None
                _clean(error)
            else:
                pytest.fail(f"{refused} was accepted")


@pytest.mark.parametrize("player", [None, 0, 1], ids=["no-player", "seat-to-act", "other-seat"])
def test_parse_action_raises_without_frames_that_hold_the_state(player: int | None) -> None:
    state, action = _a_refused_state()
    for target in (state, br.new_match(variants.BURACO_FECHADO, 2, seed=3)):
        for text in (str(action), "draw" if target is state else "discard 5S"):
            try:
                br.parse_action(text, target, player=player)
            except br.IllegalAction as error:
                _clean(error)
            else:
                pytest.fail(f"{text} was accepted")


# --- 6: refusals decided before any cache a hand fills -------------------------------------------


def _forged(action: br.Action, **fields: object) -> br.Action:
    for name, value in fields.items():
        object.__setattr__(action, name, value)  # what no constructor lets through
    return action


@pytest.mark.parametrize(
    "make",
    [
        lambda s: (ReprRaising(), None),
        lambda s: (_forged(br.Discard(s.hands[0][0]), card=int(s.hands[0][0])), None),
        lambda s: (_forged(br.NewMeld(s.hands[0][:3]), cards=list(s.hands[0][:3])), None),
        lambda s: (_forged(br.AddToMeld(0, s.hands[0][:1]), meld=0.0), None),
        lambda s: (br.TakeDiscardPile(_forged(br.NewMeld(s.hands[0][:3]), cards=())), None),
        lambda s: (br.Discard(s.hands[0][0]), 1),
        lambda s: (br.Discard(s.hands[0][0]), ReprRaising()),
    ],
    ids=[
        "no-action",
        "int-card",
        "list-cards",
        "float-index",
        "no-cards",
        "out-of-turn",
        "bad-seat",
    ],
)
def test_refusals_of_malformed_or_out_of_turn_actions_consult_no_cache(
    make: Callable[[br.GameState], tuple[object, object]],
) -> None:
    """The engine's caches are shared by every table, so a refusal that looked anything up in
    them could take a time that depends on another table's or seat's hand (issue 15, item 6):
    these refusals are decided before the move generator runs, so every cache stays empty."""
    from buraco_rules.core.memo import cache_sizes

    start = br.apply(br.new_game(variants.BURACO_FECHADO, 2, seed=5), br.DrawFromStock())
    action, player = make(start)
    for refuse in (br.apply, br.why_illegal) if player is not None else (br.apply, br.is_legal):
        state = attrs.evolve(start)  # a copy without the legal actions kept with the original
        br.clear_caches()
        if refuse is br.apply:
            with pytest.raises(br.IllegalAction):
                br.apply(state, action, player)
        elif refuse is br.why_illegal:
            assert br.why_illegal(state, action, player) is not None
        else:
            assert not br.is_legal(state, action)
        filled = {name: size.entries for name, size in cache_sizes().items() if size.entries}
        assert filled == {}, refuse


# --- 5: what one table forces on a listed object never reaches another ----------------------------


@contextlib.contextmanager
def _forcing(thing: object, field: str, value: object) -> Iterator[None]:
    """Force ``thing.field`` to ``value`` (as object.__setattr__ can), and undo it afterwards:
    the object may be kept by a cache that later tests use."""
    original = getattr(thing, field)
    object.__setattr__(thing, field, value)
    try:
        yield
    finally:
        object.__setattr__(thing, field, original)
        br.clear_caches()


def _r14_table() -> br.GameState:
    """Seat 0 to meld or discard holding 5S 6S 7S 8S 9H, its team's extra pile taken and no
    canasta: ``meld 5S 6S 7S`` is legal, ``meld 5S 6S 7S 8S`` is not (9H could not be discarded,
    R14)."""
    rules = variants.BURACO_FECHADO
    held = br.parse_cards("5S 6S 7S 8S 9H")
    start = br.new_game(rules, 2, deck=br.arrange_deck(rules, 2, hands=["5S 6S 7S 8S 9H"]))
    rest = tuple(c for c in start.hands[0] if c not in held)
    return br.validate(
        attrs.evolve(
            start,
            hands=(tuple(c for c in start.hands[0] if c in held), start.hands[1]),
            stock=start.stock + rest + start.extra_piles[0],
            extra_piles=(None, start.extra_piles[1]),
            extra_pile_taken=(True, False),
            phase=br.Phase.PLAY,
        )
    )


def _values(actions: tuple[br.Action, ...]) -> list[str]:
    return [str(a) for a in actions]


def test_R14_a_meld_forced_on_one_table_is_not_legal_on_another() -> None:
    """Regression (issue 15, item 5): the listed NewMeld objects were kept process-wide, and the
    generator listed them with the cards they held. Forcing one table's ``meld 5S 6S 7S`` to
    hold ``5S 6S 7S 8S`` made another table list it so, and accept it: a state validate refuses
    (R14)."""
    table_a, table_b = _r14_table(), _r14_table()
    honest = _values(br.legal_actions(attrs.evolve(table_a)))  # what either table must list
    assert "meld 5S 6S 7S" in honest and "meld 5S 6S 7S 8S" not in honest
    forced = next(a for a in br.legal_actions(table_a) if str(a) == "meld 5S 6S 7S")
    with _forcing(forced, "cards", br.NewMeld("5S 6S 7S 8S").cards):
        listed = br.legal_actions(table_b)
        assert _values(listed) == honest
        assert all(a is not forced for a in listed)
        with pytest.raises(br.IllegalAction) as refused:
            br.apply(table_b, forced)
        assert refused.value.code is E.CANNOT_GO_OUT
        assert not br.is_legal(table_b, br.NewMeld("5S 6S 7S 8S"))
        for action in listed:
            br.validate(br.apply(table_b, action))


def test_a_listed_object_forced_after_another_table_listed_it_decides_nothing_there() -> None:
    """Table B lists its moves first; then table A forces a change on the object both lists
    share. B still accepts exactly its legal moves (the forced object itself is refused, an
    equal fresh one is not), and a new listing of B holds no forced object."""
    table_a, table_b = _r14_table(), _r14_table()
    listed_b = br.legal_actions(table_b)
    honest = _values(listed_b)
    shared = next(a for a in br.legal_actions(table_a) if str(a) == "meld 5S 6S 7S")
    discard = next(a for a in br.legal_actions(table_a) if str(a) == "discard 9H")
    with (
        _forcing(shared, "cards", br.NewMeld("5S 6S 7S 8S").cards),
        _forcing(discard, "card", br.Card("8S")),
    ):
        if any(a is shared for a in listed_b):
            with pytest.raises(br.IllegalAction):
                br.apply(table_b, shared)
        with pytest.raises(br.IllegalAction):
            br.apply(table_b, br.NewMeld("5S 6S 7S 8S"))
        assert not br.is_legal(table_b, br.NewMeld("5S 6S 7S 8S"))
        after = br.apply(table_b, br.NewMeld("5S 6S 7S"))
        assert str(after.melds[0][0]) == "5S 6S 7S" and sorted(after.hands[0]) == sorted(
            br.parse_cards("8S 9H")
        )
        br.validate(after)
        after = br.apply(table_b, br.Discard("9H"))
        assert br.Card("9H") not in after.hands[0] and br.Card("8S") in after.hands[0]
        table_c = _r14_table()
        assert _values(br.legal_actions(table_c)) == honest
        assert all(a is not shared and a is not discard for a in br.legal_actions(table_c))


def test_a_forced_discard_or_open_take_does_not_reach_another_table() -> None:
    """The draws, open takes and discards were module-wide objects listed by every table."""
    table_a, table_b = _r14_table(), _r14_table()
    expected = _values(br.legal_actions(attrs.evolve(table_a)))
    discard = next(a for a in br.legal_actions(table_a) if str(a) == "discard 9H")
    with _forcing(discard, "card", br.Card("8S")):
        listed = br.legal_actions(table_b)
        assert _values(listed) == expected and all(a is not discard for a in listed)
    italian = br.new_game(variants.ITALIAN, 2, seed=11)
    take = next(a for a in br.legal_actions(italian) if type(a) is br.TakeDiscardPile)
    with _forcing(take, "meld", br.NewMeld("5S 6S 7S")):
        other = br.new_game(variants.ITALIAN, 2, seed=12)
        assert "take" in _values(br.legal_actions(other))
        assert all(a is not take for a in br.legal_actions(other))
        br.validate(br.apply(other, br.TakeDiscardPile()))


def _a_closed_take() -> tuple[br.GameState, br.TakeDiscardPile]:
    """A Buraco Fechado state (from random play) whose legal actions take the pile with a meld."""
    rng = random.Random(2)
    state = br.new_game(variants.BURACO_FECHADO, 2, seed=2)
    while True:
        actions = br.legal_actions(state)
        for action in actions:
            if type(action) is br.TakeDiscardPile and action.meld is not None:
                return state, action
        state = br.apply(state, rng.choice(actions))
        if state.phase is br.Phase.OVER:
            state = br.new_game(variants.BURACO_FECHADO, 2, seed=rng.getrandbits(32))


@pytest.mark.parametrize("field", ["inner-cards", "take-meld"])
def test_a_closed_take_forced_on_one_table_does_not_reach_another(field: str) -> None:
    table_a, take = _a_closed_take()
    table_b = attrs.evolve(table_a)
    honest = _values(br.legal_actions(attrs.evolve(table_a)))
    inner = take.meld
    assert inner is not None
    thing, name, value = (
        (inner, "cards", br.parse_cards("9H 9D 9C"))
        if field == "inner-cards"
        else (take, "meld", br.NewMeld("9H 9D 9C"))
    )
    with _forcing(thing, name, value):
        listed = br.legal_actions(table_b)
        assert _values(listed) == honest
        assert all(a is not take and getattr(a, "meld", None) is not inner for a in listed)
        with pytest.raises(br.IllegalAction):
            br.apply(table_b, take)
        for action in listed:
            br.validate(br.apply(table_b, action))


def test_melds_are_not_shared_between_tables() -> None:
    """The memo of Meld layouts handed the very same Meld object to every table (and to
    Meld.from_cards): forcing a change on one table's meld changed every other's."""
    table_a, table_b = _r14_table(), _r14_table()
    after_a = br.apply(table_a, br.NewMeld("5S 6S 7S"))
    after_b = br.apply(table_b, br.NewMeld("5S 6S 7S"))
    meld_a, meld_b = after_a.melds[0][0], after_b.melds[0][0]
    assert meld_a == meld_b and meld_a is not meld_b
    mine = br.Meld.from_cards(br.parse_cards("5S 6S 7S"), variants.BURACO_FECHADO)
    assert mine is not None and mine is not meld_a and mine is not meld_b
    with _forcing(meld_a, "cards", br.parse_cards("8S 9H 10H")):
        assert str(after_b.melds[0][0]) == "5S 6S 7S"
        br.validate(after_b)
        again = br.Meld.from_cards(br.parse_cards("5S 6S 7S"), variants.BURACO_FECHADO)
        assert again is not None and str(again) == "5S 6S 7S"
        later = br.apply(_r14_table(), br.NewMeld("5S 6S 7S"))
        assert str(later.melds[0][0]) == "5S 6S 7S"
        br.validate(later)
