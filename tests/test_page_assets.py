"""The page's files as the server serves them: the table page, the replay page at ``/replay``
and their scripts, under the same strict policy, and none of them loads anything from
elsewhere (no CDN: every file ships in the package)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

import buraco_rules as br
from buraco_rules.server import create_app

STATIC = Path(br.__file__).parent / "server" / "static"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "t.sqlite", bot_delay=0)) as started:
        yield started


def test_the_replay_page_and_the_scripts_are_served(client: TestClient) -> None:
    page = client.get("/replay")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for element in ('id="file"', 'id="seat-link"', 'id="next"', 'src="static/replay.js"'):
        assert element in page.text
    for name in ("i18n.js", "replay.js", "table.js"):
        script = client.get(f"/static/{name}")
        assert script.status_code == 200
        assert script.headers["content-type"].startswith("text/javascript")
        assert script.text == (STATIC / name).read_text(encoding="utf-8")
    assert 'src="static/i18n.js"' in client.get("/").text


def test_nothing_is_loaded_from_elsewhere() -> None:
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"https?://|//cdn|@import", text), path.name
        assert "<script>" not in text and " style=" not in text, (
            path.name
        )  # the policy forbids them
