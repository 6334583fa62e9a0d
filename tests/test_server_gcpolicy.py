"""The server's garbage-collector policy, the memo entries the collector never walks, and the load
tool that measures both (docs/performance.md, the server under load). No timing is asserted."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.melds.search import run_shapes
from buraco_rules.server import gcpolicy

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def python_collector() -> Iterator[None]:
    """Give the test process Python's collector back afterwards."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_tune_for_server_freezes_what_is_alive_and_sets_the_server_thresholds(
    python_collector: None,
) -> None:
    kept = [[n] for n in range(1000)]  # tracked objects alive at the call
    gcpolicy.tune_for_server()
    assert gc.get_threshold() == gcpolicy.SERVER_THRESHOLDS
    young, middle, _ = gcpolicy.SERVER_THRESHOLDS
    assert middle == 1 and young < 700  # short young pauses, survivors promoted at once
    assert gc.get_freeze_count() >= len(kept)
    assert all(gc.is_tracked(x) for x in kept)  # frozen, not forgotten: refcounting still frees


def test_tune_for_server_takes_other_thresholds(python_collector: None) -> None:
    gcpolicy.tune_for_server((1000, 5, 7))
    assert gc.get_threshold() == (1000, 5, 7)


def test_pause_log_records_each_collection_with_its_generation_until_stopped() -> None:
    log = gcpolicy.PauseLog()
    log.start()
    log.start()  # once only
    try:
        gc.collect()
        gc.collect(0)
    finally:
        log.stop()
    assert [p[1] for p in log.pauses] == [2, 0]
    assert all(seconds >= 0 and cpu >= 0 for _, _, seconds, cpu in log.pauses)
    gc.collect()
    assert len(log.pauses) == 2
    log.stop()  # stopping twice is harmless


def test_run_search_memo_entries_are_left_untracked_by_the_collector() -> None:
    # A full collection walks every tracked object: the run search's answers, the largest memo
    # cache, are exact tuples of ints, which the collector stops tracking (a named tuple, as
    # they were, stays tracked for good). Each collection leaves the innermost tuples first.
    shapes = run_shapes(0b11111000, 0, 1, 1, 0, 0, 0, fixed_wild=False, max_aces=1, take=False)
    assert shapes and all(type(s) is tuple for s in shapes)
    gc.collect()
    gc.collect()
    assert not gc.is_tracked(shapes)
    assert not any(gc.is_tracked(s) for s in shapes)


def test_the_caches_stay_bounded_and_clearable_after_play() -> None:
    from buraco_rules.core.memo import cache_sizes

    state = br.new_game(variants.get("canasta-stbl"), 2, seed=7)
    for _ in range(40):
        state = br.apply(state, br.legal_actions(state)[-1])
    assert all(size.entries <= size.maxsize for size in cache_sizes().values())
    br.clear_caches()
    assert all(size.entries == 0 for size in cache_sizes().values())


def test_load_tool_with_think_ends_by_itself_and_prints_its_table(tmp_path: Path) -> None:
    pytest.importorskip("websockets")
    out = tmp_path / "runs.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "load_server.py"), "--tables", "2"]
        + ["--think", "0.01", "0.05", "--warmup", "0.5", "--duration", "1.5", "--gc-log"]
        + ["--gc", "400,2,9000"]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    rows = [line for line in run.stdout.splitlines() if line.startswith("| 2 |")]
    assert len(rows) == 1, run.stdout
    assert "Traceback" not in run.stderr
    (figures,) = json.loads(out.read_text())["runs"]
    assert figures["gc_thresholds"] == [400, 2, 9000]  # the server ran with the ones asked for


def test_load_tool_refuses_thresholds_that_are_not_three_counts() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "load_server.py"), "--gc", "500,1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "T0,T1,T2" in run.stderr and "Traceback" not in run.stderr
