"""Pictures of the browser page for the docs: the lobby, a table mid-hand, the end of a hand's
dialog and the replay page, each on a laptop (1280x860) and a phone (390x844), written to
docs/images/page-*.png (and the README's docs/images/server-table.png, the laptop mid-hand).

Needs Chromium, its driver, Selenium and the server extra:
    python tools/page_screenshots.py [--out docs/images] [--lang en]

It starts ``buraco-rules serve`` on a free loopback port with a throw-away database, creates an
Italian Buraco table against the greedy bot in the lobby (a house rule, locked wildcards, and a
turn clock), and plays seat 0 with the greedy bot's choices through the page's list of legal
moves."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import GreedyBot

LAPTOP = (1280, 860)
PHONE = (390, 844)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(condition: Any, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    raise TimeoutError("the page did not get there")


def browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"):
        options.add_argument(flag)
    options.binary_location = str(shutil.which("chromium") or shutil.which("chromium-browser"))
    return webdriver.Chrome(service=Service(str(shutil.which("chromedriver"))), options=options)


def both(driver: Any, out: Path, name: str) -> None:
    """The page as it stands, on a laptop and on a phone (the window's inner size)."""
    for label, (width, height) in (("laptop", LAPTOP), ("phone", PHONE)):
        driver.set_window_size(width, height)
        inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
        driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
        time.sleep(0.3)
        driver.save_screenshot(str(out / f"page-{name}-{label}.png"))
    driver.set_window_size(*LAPTOP)


def state(driver: Any) -> dict[str, Any]:
    return dict(
        driver.execute_script(
            "const t = document.getElementById('table');"
            "return {number: Number(t.dataset.number),"
            " moves: Array.from(document.querySelectorAll('#moves .move'))"
            ".filter((b) => !b.disabled).map((b) => b.dataset.action),"
            " open: document.getElementById('end').open,"
            " melds: document.querySelectorAll('.meld').length};"
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs/images", type=Path)
    parser.add_argument("--lang", default="en", choices=["en", "pt-BR", "it"])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp())
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "buraco_rules", "serve", "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--db", str(folder / "t.sqlite"), "--bot-delay", "0.05"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    driver = browser()
    try:
        wait_for(lambda: _healthy(url))
        driver.set_window_size(*LAPTOP)
        driver.get(url + "/")
        driver.execute_script("localStorage.setItem('buraco-lang', arguments[0])", args.lang)
        driver.get(url + "/")
        wait_for(lambda: driver.find_elements("css selector", "#variant option[value=italian]"))
        # An Italian table with a house rule and a two-minute turn clock, which its header shows.
        driver.execute_script(
            "const v = document.getElementById('variant'); v.value = 'italian';"
            "v.dispatchEvent(new Event('change'));"
            "document.getElementById('clock').value = '120';"
        )
        wait_for(lambda: driver.find_elements("id", "opt-locked_wildcards"))[0].click()
        driver.find_element("id", "create").click()
        link = wait_for(lambda: driver.find_elements("id", "link-0"))[0].get_attribute("value")
        both(driver, args.out, "lobby")
        driver.get(link)
        wait_for(lambda: state(driver)["number"] is not None)  # NaN (null) before the first view
        bot, rng = GreedyBot(), random.Random(2)
        pictured = False
        while True:
            now = state(driver)
            if now["open"]:
                break
            if not now["moves"]:
                time.sleep(0.05)
                continue
            seen = _view(driver)
            melds = [m for m in now["moves"] if m.startswith("meld ")]
            if not pictured and now["melds"] >= 5 and melds:
                _select(driver, melds[0].split()[1:])
                both(driver, args.out, "table")
                shutil.copy(args.out / "page-table-laptop.png", args.out / "server-table.png")
                pictured = True
            action = br.format_action(bot.choose(seen, rng))
            before = now["number"]
            driver.execute_script(
                "document.querySelector('#moves .move[data-action=\"' + arguments[0] + '\"]')"
                ".click()",
                action,
            )
            wait_for(lambda b=before: state(driver)["number"] > b or state(driver)["open"])
        both(driver, args.out, "end")
        # The replay page, on a record of another hand, a third of the way in, from above.
        record = _record()
        path = folder / "record.json"
        path.write_text(br.to_json(record), encoding="utf-8")
        driver.get(url + "/replay")
        driver.find_element("id", "file").send_keys(str(path))
        wait_for(lambda: driver.find_element("id", "replay").is_displayed())
        driver.find_element("id", "first").click()
        for _ in range(len(record.actions) // 3):
            driver.find_element("id", "next").click()
        both(driver, args.out, "replay")
    finally:
        driver.quit()
        server.terminate()
        server.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"pictures written to {args.out}")
    return 0


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/api/health", timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def _view(driver: Any) -> br.PlayerView:
    """Seat 0's view, from a second connection of the same seat (the page's own token)."""
    from websockets.sync.client import connect

    seat = json.loads(driver.execute_script("return sessionStorage.getItem('buraco-seat')"))
    port = driver.current_url.split(":")[2].split("/")[0]
    with connect(f"ws://127.0.0.1:{port}/ws") as ws:
        ws.send(json.dumps({"type": "join", **seat}))
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message["type"] == "view":
                found = br.from_data(message["view"])
                if not isinstance(found, br.PlayerView):
                    raise TypeError("not a view")
                return found


def _select(driver: Any, cards: list[str]) -> None:
    """Select these cards of the hand (a legal meld: the Meld button lights up)."""
    for card in cards:
        for element in driver.find_elements("css selector", f'#hand .card[data-card="{card}"]'):
            if element.get_attribute("aria-pressed") != "true":
                element.click()
                break


def _record() -> br.GameRecord:
    start = br.new_game(variants.ITALIAN, 2, seed=11)
    bot, rng, game, moves = GreedyBot(), random.Random(3), start, []
    while not game.is_over:
        action = bot.choose(br.view(game, game.current_player), rng)
        moves.append(action)
        game = br.apply(game, action)
    return br.GameRecord.from_game(start, moves, names=["Ana", "Bruno"])


if __name__ == "__main__":
    raise SystemExit(main())
