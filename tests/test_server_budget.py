"""The server's search bots think within the budget its operator sets (``buraco-rules serve
--search-budget``, ``create_app(search_budget=)``), on new tables and on tables reloaded after a
restart; a player only names the bot, and a bad budget is refused before anything is served."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from buraco_rules.bots import GreedyBot, ISMCTSBot, MonteCarloBot
from buraco_rules.server import create_app
from buraco_rules.server.store import TableStore
from buraco_rules.server.tables import TableHub

with warnings.catch_warnings():  # starlette's note about httpx's successor
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SEATS = ["human", "ismcts", "montecarlo", "greedy"]


def _bots(client: TestClient, table: str) -> list[Any]:
    hub: TableHub = client.app.state.hub  # type: ignore[attr-defined]
    return [seat.bot for seat in hub.tables[table].seats]


def _create(client: TestClient) -> str:
    answer = client.post(
        "/api/tables", json={"variant": "buraco-fechado", "players": 4, "seats": SEATS}
    )
    assert answer.status_code == 201, answer.text
    table: str = answer.json()["table"]
    return table


def test_search_bots_think_within_the_servers_budget(tmp_path: Path) -> None:
    db = tmp_path / "budget.sqlite"
    # A long pause before each bot move: the bots are seated, not playing, while we look.
    with TestClient(create_app(db, bot_delay=600, search_budget="3")) as client:
        table = _create(client)
        assert _bots(client, table)[1:] == [  # and the server's cap of CPU a decision
            ISMCTSBot(playouts=3, seconds=1.0),
            MonteCarloBot(playouts=3, seconds=1.0),
            GreedyBot(),
        ]
    # Restarted with another budget, the reloaded table's bots take the new one.
    with TestClient(create_app(db, bot_delay=600, search_budget="0.5s")) as client:
        assert _bots(client, table)[1:] == [
            ISMCTSBot(playouts=None, seconds=0.5),
            MonteCarloBot(playouts=None, seconds=0.5),
            GreedyBot(),
        ]
    with TestClient(create_app(db, bot_delay=600)) as client:  # no budget: the bots' own, capped
        assert _bots(client, table)[1:] == [
            ISMCTSBot(seconds=1.0),
            MonteCarloBot(seconds=1.0),
            GreedyBot(),
        ]


def test_a_player_cannot_name_a_budget(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "t.sqlite", bot_delay=600)) as client:
        answer = client.post(
            "/api/tables", json={"variant": "canasta-stbl", "seats": ["human", "ismcts:3600s"]}
        )
        assert answer.status_code == 400 and "one of the bots" in answer.json()["message"]


@pytest.mark.parametrize("budget", ["0s", "-1", "1e9", "fast", "3.5", "7200s", "", 5, b"5"])
def test_a_bad_budget_is_refused_before_serving(tmp_path: Path, budget: object) -> None:
    with pytest.raises(ValueError, match="bad budget"):
        TableHub(TableStore(tmp_path / "t.sqlite"), search_budget=budget)


def test_serve_refuses_a_bad_budget_with_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "buraco_rules", "serve", "--db", str(tmp_path / "t.sqlite"),
         "--port", "0", "--search-budget", "\x1b[31mfast"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "--search-budget takes CPU seconds as in 0.25s" in done.stderr
    assert "\x1b" not in done.stderr and "\\x1b[31mfast" in done.stderr
    assert not (tmp_path / "t.sqlite").exists()  # refused before anything was opened
