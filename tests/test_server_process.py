"""``buraco-rules serve`` as a user starts it: its defaults, the message without the extra, a
core command line that never imports the server, and whole hands played over real WebSockets
against a started process with a SQLite file created on first use."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from buraco_rules.cli import build_parser


def test_serve_listens_on_loopback_by_default() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8000, "buraco.sqlite")


def test_serve_without_the_extra_says_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['starlette'] = None; sys.modules['uvicorn'] = None\n"
        "from buraco_rules.cli import main; sys.exit(main(['serve']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "pip install 'buraco-rules[server]'" in result.stderr


def test_the_other_subcommands_never_import_the_server() -> None:
    code = (
        "import sys\nfrom buraco_rules.cli import main\n"
        "main(['simulate', '--games', '1', '--json'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('starlette', 'uvicorn', 'websockets') or m.startswith('buraco_rules.server')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_whole_hands_against_a_started_server(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    pytest.importorskip("websockets")
    from server_support import SeatClient, running

    db = tmp_path / "first-use.sqlite"
    assert not db.exists()
    with running(db, tmp_path / "server.log", "--bot-delay", "0", "--rate", "10000") as server:
        assert db.exists()
        clients = []
        for t, request in enumerate(
            [
                {"variant": "canasta-stbl", "seats": ["human", "greedy"]},
                {
                    "variant": "buraco-fechado",
                    "players": 4,
                    "seats": ["human", "random", "human", "greedy"],
                },
                {"variant": "italian-fibur", "players": 2, "seats": ["human", "human"]},
            ]
        ):
            created = server.create(request)
            for seat in created["seats"]:
                if seat["kind"] == "human":
                    clients.append(
                        SeatClient(server.ws_url, created["table"], seat["seat"], seat["token"], t)
                    )

        async def play() -> None:
            deadline = time.monotonic() + 60
            await asyncio.gather(*(c.play(deadline) for c in clients))

        asyncio.run(play())
    for client in clients:
        assert client.over and client.last is not None and client.refusals == []
        assert len(client.last["scores"]) == 1  # the hand's score, shown when it ends
        assert client.last["legal"] == [] and client.last["view"]["phase"] == "over"
        assert sorted(client.accepted) == list(range(1, len(client.accepted) + 1))
