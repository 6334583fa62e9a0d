"""The server's protocol, in process (Starlette's TestClient, a real SQLite file): creating
tables, joining a seat, views and legal moves, moves accepted and refused with the engine's
code, idempotent resends, bots, reloading after a restart, and the page."""

from __future__ import annotations

import json
import random
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import RandomBot
from buraco_rules.server import create_app
from buraco_rules.server.store import SeatRow, TableStore
from buraco_rules.server.tables import Table, TableHub, _new_seat

with warnings.catch_warnings():  # starlette's note about httpx's successor
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


OPEN: list[Any] = []  # the sockets a test opened, closed before its server stops


def close_all() -> None:
    while OPEN:
        OPEN.pop().__exit__(None, None, None)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "t.sqlite", bot_delay=0, rate=1000)) as c:
        yield c
        close_all()


def create(client: TestClient, **request: Any) -> dict[str, Any]:
    answer = client.post("/api/tables", json=request)
    assert answer.status_code == 201, answer.text
    result: dict[str, Any] = answer.json()
    return result


def token(created: dict[str, Any], seat: int) -> str:
    value: str = created["seats"][seat]["token"]
    return value


def hub(client: TestClient) -> TableHub:
    found: TableHub = client.app.state.hub  # type: ignore[attr-defined]
    return found


def joined(client: TestClient, created: dict[str, Any], seat: int) -> Any:
    """A connection of ``seat``, its welcome and its first view read."""
    session = client.websocket_connect("/ws")
    ws = session.__enter__()
    OPEN.append(session)
    ws.send_json({"type": "join", "token": token(created, seat), "table": created["table"]})
    welcome = ws.receive_json()
    assert welcome["type"] == "welcome" and welcome["seat"] == seat
    first = ws.receive_json()
    assert first["type"] == "view"
    return ws, welcome, first


def quiet(ws: Any) -> None:
    """The connection has nothing queued: a ping's pong is the next message."""
    ws.send_json({"type": "ping"})
    assert ws.receive_json() == {"type": "pong"}


def test_create_answers_a_token_and_a_link_for_each_human_seat(client: TestClient) -> None:
    created = create(
        client, variant="italian", players=4, seats=["human", "greedy", "human", "random"]
    )
    assert created["players"] == 4 and created["variant"] == "italian" and not created["match"]
    humans = [s for s in created["seats"] if s["kind"] == "human"]
    assert [s["seat"] for s in humans] == [0, 2]
    assert len({s["token"] for s in humans}) == 2 and all(len(s["token"]) >= 43 for s in humans)
    for s in humans:  # in the fragment, which browsers never send to a server
        assert s["link"] == f"/#table={created['table']}&token={s['token']}"
    assert [s.get("bot") for s in created["seats"] if s["kind"] == "bot"] == ["greedy", "random"]
    assert all("token" not in s for s in created["seats"] if s["kind"] == "bot")


@pytest.mark.parametrize(
    "request_body",
    [
        [],
        {"variant": "poker"},
        {"variant": "italian", "players": 3},
        {"players": True},
        {"seats": ["human"]},
        {"seats": ["greedy", "random"]},
        {"seats": ["human", "shark"]},
        {"match": "yes"},
        {"colour": "red"},
    ],
)
def test_create_refuses_a_bad_request(client: TestClient, request_body: object) -> None:
    answer = client.post("/api/tables", json=request_body)
    assert answer.status_code == 400 and answer.json()["code"] == "bad-table"
    assert hub(client).tables == {}


def test_create_refuses_malformed_and_oversized_bodies(client: TestClient) -> None:
    json_type = {"Content-Type": "application/json"}
    assert client.post("/api/tables", content=b"{", headers=json_type).json()["code"] == "malformed"
    bomb = client.post("/api/tables", content=b"[" * 3000, headers=json_type)
    assert bomb.status_code == 400 and bomb.json()["code"] == "malformed"
    # A form or plain text, which another site's page could send without the browser asking:
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        sneaky = client.post("/api/tables", content=b"{}", headers={"Content-Type": kind})
        assert sneaky.status_code == 415
    big = client.post("/api/tables", content=b" " * 5000, headers=json_type)
    assert big.status_code == 413 and big.json()["code"] == "too-big"
    assert client.get("/api/tables").status_code == 405
    assert hub(client).tables == {}


def test_unfinished_tables_are_capped(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "cap.sqlite", max_tables=2)) as c:
        create(c)
        create(c)
        answer = c.post("/api/tables", json={})
        assert answer.status_code == 503 and "2 unfinished tables" in answer.json()["message"]
        assert answer.json()["code"] == "server-full"  # the server's state, not a bad request


def test_a_seat_receives_its_own_view_and_legal_moves(client: TestClient) -> None:
    created = create(client, variant="buraco-fechado", players=4, seats=["human"] * 4)
    table = hub(client).tables[created["table"]]
    for seat in range(4):
        ws, welcome, first = joined(client, created, seat)
        seen = br.view(table.hand, seat)
        assert first["view"] == br.to_data(seen)
        assert first["legal"] == [br.format_action(a) for a in br.legal_actions(seen)]
        assert (first["legal"] == ["draw"]) == (seat == table.hand.current_player)
        assert welcome["next_seq"] == 1 and welcome["players"] == 4
        ws.close()


def test_an_accepted_move_is_stored_then_every_seat_gets_its_own_view(
    client: TestClient, tmp_path: Path
) -> None:
    created = create(client, seats=["human", "human"])
    first, _, _ = joined(client, created, 0)
    second, _, _ = joined(client, created, 1)
    shown = first.receive_json()  # seat 0 is shown seat 1 connected, before any move
    assert shown["number"] == 0 and [s["connected"] for s in shown["seats"]] == [True, True]
    first.send_json({"type": "move", "seq": 1, "action": "draw"})
    assert first.receive_json() == {"type": "accepted", "seq": 1, "number": 1}
    mine, theirs = first.receive_json(), second.receive_json()
    table = hub(client).tables[created["table"]]
    assert mine["view"] == br.to_data(br.view(table.hand, 0)) and mine["next_seq"] == 2
    assert theirs["view"] == br.to_data(br.view(table.hand, 1)) and theirs["legal"] == []
    assert theirs["last"] == {"number": 0, "seat": 0, "action": "draw", "hand": 1}
    assert theirs["number"] == 1
    stored = TableStore(tmp_path / "t.sqlite").load(created["table"])
    assert stored is not None and stored.moves == ((0, 1, "draw"),)


def test_a_refusal_carries_the_engines_code_to_that_seat_alone(client: TestClient) -> None:
    created = create(client, seats=["human", "human"])
    first, _, _ = joined(client, created, 0)
    second, _, _ = joined(client, created, 1)
    assert first.receive_json()["seats"][1]["connected"]  # the view again: seat 1 came
    second.send_json({"type": "move", "seq": 1, "action": "draw"})
    refused = second.receive_json()
    assert refused == {
        "type": "refused",
        "seq": 1,
        "code": "not-your-turn",
        "message": "it is seat 0's turn, not seat 1's",
    }
    first.send_json({"type": "move", "seq": 1, "action": "fly 5S"})
    assert first.receive_json()["code"] == "not-an-action"
    first.send_json({"type": "move", "seq": 1, "action": "draw"})
    assert first.receive_json()["type"] == "accepted"
    first.receive_json()
    second.receive_json()
    table = hub(client).tables[created["table"]]
    absent = next(c for c in br.DECK if c not in table.hand.hands[0])
    first.send_json({"type": "move", "seq": 2, "action": f"discard {absent}"})
    error = br.why_illegal(table.hand, br.Discard(absent), player=0)
    assert error is not None
    assert first.receive_json() == {
        "type": "refused",
        "seq": 2,
        "code": str(error.code),
        "message": str(error),
    }
    quiet(second)  # the other seat heard of none of it
    quiet(first)
    assert len(table.moves) == 1


def test_a_resent_move_is_answered_again_and_played_once(client: TestClient) -> None:
    created = create(client, seats=["human", "human"])
    ws, _, _ = joined(client, created, 0)
    ws.send_json({"type": "move", "seq": 1, "action": "draw"})
    assert ws.receive_json()["type"] == "accepted"
    ws.receive_json()
    ws.close()
    again, welcome, view = joined(client, created, 0)  # as after a reconnection
    assert welcome["next_seq"] == 2 and view["number"] == 1
    again.send_json({"type": "move", "seq": 1, "action": "draw"})
    assert again.receive_json() == {"type": "accepted", "seq": 1, "duplicate": True}
    assert again.receive_json()["number"] == 1
    again.send_json(
        {"type": "move", "seq": 1, "action": {"format": 1, "type": "action", "action": "draw"}}
    )
    assert again.receive_json()["duplicate"] is True
    again.receive_json()
    table = hub(client).tables[created["table"]]
    card = table.hand.hands[0][0]
    again.send_json({"type": "move", "seq": 1, "action": f"discard {card}"})
    assert again.receive_json()["code"] == "seq-reused"
    again.send_json({"type": "move", "seq": 7, "action": f"discard {card}"})
    assert again.receive_json() == {
        "type": "error",
        "code": "bad-seq",
        "message": "the next move's seq is 2, not 7",
        "next_seq": 2,
    }
    assert len(table.moves) == 1
    again.send_json(
        {
            "type": "move",
            "seq": 2,
            "action": {"format": 1, "type": "action", "action": f"discard {card}"},
        }
    )
    assert again.receive_json()["type"] == "accepted"
    assert len(table.moves) == 2


def test_bots_play_their_seats_on_the_server(client: TestClient) -> None:
    created = create(client, variant="canasta-stbl", seats=["human", "greedy"])
    ws, _, view = joined(client, created, 0)
    seq = 1
    for _ in range(3):  # three turns of the person; the bot plays each of its turns
        for action in ("draw", None):
            if action is None:
                action = next(a for a in view["legal"] if a.startswith("discard"))
            ws.send_json({"type": "move", "seq": seq, "action": action})
            assert ws.receive_json()["type"] == "accepted"
            seq += 1
            view = ws.receive_json()
        while view["legal"] == [] and not view["over"]:
            view = ws.receive_json()  # the bot's moves, one view each
        assert view["last"]["seat"] == 1 and view["last"]["action"].startswith("discard")
    table = hub(client).tables[created["table"]]
    assert [s for s, _ in table.moves].count(1) >= 6


def test_a_restarted_server_resumes_every_table(tmp_path: Path) -> None:
    db = tmp_path / "again.sqlite"
    with TestClient(create_app(db, bot_delay=0, rate=1000)) as c:
        created = create(c, variant="italian", players=2, seats=["human", "human"], match=True)
        ws, _, view = joined(c, created, 0)
        ws.send_json({"type": "move", "seq": 1, "action": "draw"})
        ws.receive_json()
        view = ws.receive_json()
        before = hub(c).tables[created["table"]].state
        close_all()
    with TestClient(create_app(db, bot_delay=0, rate=1000)) as c:
        table = hub(c).tables[created["table"]]  # loaded at start-up, replayed from the record
        assert table.state == before and isinstance(table.state, br.Match)
        ws, welcome, again = joined(c, created, 0)
        assert welcome["next_seq"] == 2 and welcome["match"] is True
        clock, clock_before = again.pop("clock"), view.pop("clock")  # the time runs on
        assert again == view and clock["seat"] == clock_before["seat"] == 0
        assert clock["remaining"] <= clock_before["remaining"]  # the stored deadline, not anew
        assert again["match"] == {"target": 2005, "totals": [0, 0], "winner": None, "hand": 1}
        close_all()


def test_the_page_and_its_files_are_served_with_a_strict_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    for element in ('id="hand"', 'id="stock-count"', 'id="btn-draw"', 'id="create"'):
        assert element in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # nothing loaded from elsewhere
    script = client.get("/static/table.js")
    assert script.status_code == 200 and "WebSocket" in script.text
    assert client.get("/static/table.css").headers["content-type"].startswith("text/css")
    for path in ("/static/app.py", "/static/..%2Fapp.py", "/static/index.html"):
        assert client.get(path).status_code == 404


# -- hidden information ------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(variants.NAMES),
    st.sampled_from([2, 4]),
    st.integers(0, 2**32),
    st.integers(0, 120),
)
def test_a_seats_messages_depend_only_on_its_view(
    name: str, players: int, seed: int, moves: int
) -> None:
    """Re-deal everything the seat cannot see (``determinize``): the message it is sent is the
    same, so it holds nothing of another hand, the stock or a closed pile below its top."""
    rules = variants.get(name)
    if players not in rules.player_counts:
        players = rules.default_players
    rng = random.Random(seed)
    state = br.new_game(rules, players, seed=seed)
    played = []
    bot = RandomBot()
    for _ in range(moves):
        if state.is_over:
            break
        action = bot.choose(br.view(state, state.current_player), rng)
        played.append((state.current_player, br.format_action(action)))
        state = br.apply(state, action)
    start = br.GameRecord.from_game(br.new_game(rules, players, seed=seed), ())
    seats = [_new_seat(SeatRow("human")) for _ in range(players)]
    real = Table("t", start, state, seats, list(played))
    for seat in range(players):
        # The text a seat is sent (its own part, and the part shared by all) is its message.
        assert json.loads(real.view_text(seat)) == real.view_message(seat)
        assert real.view_text(seat, real.public_text()) == real.view_text(seat)
    if state.is_over:
        return  # once the hand is over, the score (of every hand) is public
    for seat in range(players):
        other = br.determinize(br.view(state, seat), rng)
        assert other.hands != state.hands or other.stock != state.stock or not state.stock
        dealt = attrs.evolve(real, state=other)
        assert dealt.view_message(seat) == real.view_message(seat)
        assert dealt.view_text(seat) == real.view_text(seat)


def test_a_finished_table_leaves_memory_and_shows_its_score_again(client: TestClient) -> None:
    created = create(client, variant="italian", players=2, seats=["human", "greedy"])
    ws, _, view = joined(client, created, 0)
    seq = 1
    while not view["over"]:
        if view["legal"]:
            action = view["legal"][0] if view["legal"][0] in ("draw", "take") else None
            action = action or next(a for a in view["legal"] if a.startswith("discard"))
            ws.send_json({"type": "move", "seq": seq, "action": action})
            assert ws.receive_json()["type"] == "accepted"
            seq += 1
        view = ws.receive_json()
    assert len(view["scores"]) == 1 and view["legal"] == []
    close_all()
    assert created["table"] not in hub(client).tables  # nobody watches: out of play...
    assert created["table"] in hub(client).finished  # ...kept a while, to be served unreplayed
    _, welcome, final = joined(client, created, 0)
    assert final == view and welcome["next_seq"] == seq
    assert created["table"] in hub(client).tables


def test_the_back_message_is_read_and_takes_no_field() -> None:
    from buraco_rules.server.protocol import Back, read_frame

    assert read_frame('{"type": "back"}') == Back()
    assert read_frame('{"type": "back", "extra": 1}') == Back()  # as ping: nothing to read
