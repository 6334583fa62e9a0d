"""The server's search bots think in a pool of processes of their own (server/thinking.py): real
processes, real bots, one of them killed."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import bot_from_name
from buraco_rules.server.thinking import ThinkingPool, network_of


def _a_view() -> br.PlayerView:
    state = br.new_game(variants.get("buraco-fechado"), 2, seed=11)
    return br.view(state, state.current_player)


def test_a_decision_is_made_in_another_process_from_a_seed_the_tables_generator_gives() -> None:
    seen = _a_view()
    bot = bot_from_name("ismcts:20")

    async def decide() -> tuple[object, object, set[int]]:
        pool = ThinkingPool(1)
        try:
            rng = random.Random(5)
            first = await pool.decide(bot, seen, rng)
            again = await pool.decide(bot, seen, random.Random(5))
            assert pool._executor is not None
            pids = set(pool._executor._processes)  # type: ignore[attr-defined]
            return first, again, pids
        finally:
            pool.close()

    first, again, pids = asyncio.run(decide())
    assert first in br.legal_actions(seen)
    assert first == again  # the same generator, the same seed, the same choice
    assert pids and os.getpid() not in pids


def test_a_killed_thinking_process_fails_one_decision_and_the_next_starts_a_new_pool() -> None:
    seen = _a_view()
    bot = bot_from_name("ismcts:20")

    async def decide() -> object:
        pool = ThinkingPool(1)
        try:
            await pool.decide(bot, seen, random.Random(1))
            assert pool._executor is not None
            for pid in pool._executor._processes:  # type: ignore[attr-defined]
                os.kill(pid, signal.SIGKILL)
            with pytest.raises(BrokenProcessPool):
                await pool.decide(bot, seen, random.Random(2))
            return await pool.decide(bot, seen, random.Random(3))
        finally:
            pool.close()

    assert asyncio.run(decide()) in br.legal_actions(seen)


def test_a_pool_needs_a_process() -> None:
    with pytest.raises(ValueError, match="a process at least"):
        ThinkingPool(0)


def test_thinking_processes_end_when_their_server_is_killed(tmp_path: Path) -> None:
    # A server killed outright (SIGKILL) cannot stop its pool: its processes notice it is gone.
    import subprocess
    import sys
    import time

    script = tmp_path / "server.py"
    script.write_text(
        "import asyncio, random, sys\n"
        "import buraco_rules as br\n"
        "from buraco_rules import variants\n"
        "from buraco_rules.bots import bot_from_name\n"
        "from buraco_rules.server.thinking import ThinkingPool\n"
        "async def main():\n"
        "    pool = ThinkingPool(1)\n"
        "    state = br.new_game(variants.get('buraco-fechado'), 2, seed=1)\n"
        "    seen = br.view(state, state.current_player)\n"
        "    await pool.decide(bot_from_name('ismcts:5'), seen, random.Random(1))\n"
        "    print(*pool._executor._processes, flush=True)\n"
        "    await asyncio.sleep(120)\n"
        "if __name__ == '__main__':\n"  # the pool's processes import this file again
        "    asyncio.run(main())\n"
    )
    server = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    try:
        assert server.stdout is not None
        thinkers = [int(pid) for pid in server.stdout.readline().split()]
        assert thinkers
    finally:
        server.kill()
        server.wait(10)
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{pid}").exists() for pid in thinkers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in thinkers)


def _served(queued: list[tuple[str, str]], later: tuple[str, str]) -> list[str]:
    """The order a one-process pool serves the decisions ``queued`` (name, owner; the first
    takes the process at once, the others wait), then ``later``, queued behind them."""
    seen = _a_view()
    bot = bot_from_name("ismcts:5")

    async def decide() -> list[str]:
        pool = ThinkingPool(1)
        done: list[str] = []

        async def one(name: str, owner: str) -> None:
            await pool.decide(bot, seen, random.Random(len(done)), owner=owner)
            done.append(name)

        try:
            tasks = [asyncio.create_task(one(*decision)) for decision in queued]
            await asyncio.sleep(0)  # the first has the process, the others wait
            tasks.append(asyncio.create_task(one(*later)))
            await asyncio.gather(*tasks)
        finally:
            pool.close()
        return done

    return asyncio.run(decide())


def test_waiting_decisions_are_taken_in_turn_from_each_owner() -> None:
    # One owner with three decisions queued, another with one: the other's waits behind at
    # most one of the first owner's, not behind all of them.
    done = _served([(f"a{n}", "a") for n in range(4)], ("b0", "b"))
    assert done.index("b0") <= 2 and done.index("b0") < done.index("a3")


def test_the_addresses_of_one_network_share_one_turn() -> None:
    # The outside probe's flood: search-bot tables from 20 addresses of one network. An honest
    # creator elsewhere waits behind one of theirs, not behind one of each.
    done = _served([(f"x{n}", f"10.9.8.{n}") for n in range(1, 9)], ("honest", "192.0.2.7"))
    assert done.index("honest") <= 2
    assert network_of("10.9.8.200") == "10.9.8.0/24" == network_of("10.9.8.0/24")
    assert network_of("2001:db8:1:2::/64") == "2001:db8:1::/48" == network_of("2001:db8:1::/48")
    assert network_of("") == "" and network_of("a name") == "a name"


def test_a_decision_cancelled_while_waiting_gives_its_turn_to_the_next() -> None:
    seen = _a_view()
    bot = bot_from_name("ismcts:5")

    async def decide() -> object:
        pool = ThinkingPool(1)
        try:
            first = asyncio.create_task(pool.decide(bot, seen, random.Random(1), owner="a"))
            waiting = asyncio.create_task(pool.decide(bot, seen, random.Random(2), owner="b"))
            await asyncio.sleep(0)
            waiting.cancel()
            await first
            return await pool.decide(bot, seen, random.Random(3), owner="c")  # not stuck
        finally:
            pool.close()

    assert asyncio.run(decide()) in br.legal_actions(seen)
