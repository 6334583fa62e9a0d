"""The benchmark runs (briefly) and reports every figure; its timings are never asserted."""

from __future__ import annotations

import json

import pytest

from buraco_rules import bench

FIGURES = {
    "playouts_per_s",
    "mean_decision_steps",
    "us_per_decision",
    "us_per_decision_cold",
    "us_per_decision_cache_hit",
    "us_legal_actions",
    "us_apply",
    "mean_num_legal",
    "max_num_legal",
    "us_new_game",
    "us_apply_listed",
    "us_is_legal",
    "us_score",
    "us_view",
    "us_json_round_trip",
    "bytes_per_retained_state",
}


def test_benchmark_runs_briefly_and_reports_every_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        bench.main(["--variant", "canasta-stbl", "--seconds", "1", "--warmup", "0", "--json"]) == 0
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["variant"] == "canasta-stbl" and result["players"] == 2
    assert set(result) >= FIGURES
    assert result["mean_decision_steps"] > 0 and result["max_num_legal"] >= 1
    assert all(result[key] > 0 for key in FIGURES)


def test_each_call_is_timed_once_on_each_of_its_states() -> None:
    """A second call on the same state would be timed on what the first left in the memo
    caches: the per-call figures take each state once."""
    from buraco_rules.bench.playouts import _per_call

    seen: list[int] = []
    assert _per_call(seen.append, [3, 1, 2]) >= 0
    assert seen == [3, 1, 2]


def test_memory_mode_reports_every_cache_and_a_bound(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--memory", "--seconds", "0.5", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] >= 1 and result["build"] in ("pure", "compiled")
    caches = result["caches"]
    assert len(caches) >= 10 and any(c["entries"] for c in caches.values())
    assert result["bound_bytes"] >= result["bytes_held"] > 0


def test_replay_figures_are_reported_for_a_short_record_and_match() -> None:
    result = bench.replay_figures(actions=300, hands=(5, 20))
    assert result["replay_actions"] == 300 and result["replay_chars"] > 0
    assert result["us_replay_per_action"] > 0 and result["replay_peak_mb"] > 0
    assert result["us_match_replay_per_hand_5"] > 0 and result["us_match_replay_per_hand_20"] > 0


def test_adapters_mode_reports_the_adapters_beside_the_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    argv = ["--adapters", "1", "--variant", "buraco-fechado", "--players", "2", "--json"]
    assert bench.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["hands"] == 1 and result["decisions"] > 0
    assert result["tokens_per_decision"] >= 1
    loops = ("openspiel", "openspiel_tensor", "openspiel_observer", "pettingzoo", "pettingzoo_raw")
    assert result["us_per_decision_engine"] > 0
    for loop in loops:
        assert result[f"us_per_decision_{loop}"] >= result[f"us_per_token_{loop}"] > 0


def test_adapters_mode_refuses_a_count_below_one() -> None:
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--adapters", "0"])
    assert exit_.value.code == 2


def test_by_hand_size_mode_reports_each_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--by-hand-size", "--variant", "italian", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert [r["hand_size"] for r in rows] == list(bench.HAND_SIZES)
    # More cards list more actions (on average over the same number of random states).
    assert rows[0]["mean_legal_actions"] < rows[-1]["mean_legal_actions"]
    assert all(r["us_per_listed_action"] > 0 and r["us_legal_tokens"] > 0 for r in rows)


def test_hand_size_states_hold_the_hand_asked_for_and_every_card() -> None:
    import random

    import buraco_rules as br
    from buraco_rules.bench.scaling import _state_with_hand

    rng = random.Random(7)
    for rules in (br.variants.ITALIAN, br.variants.BURACO_FECHADO):
        for size in (5, 11, 72):
            state = _state_with_hand(rules, size, rng)
            assert len(state.hands[state.current_player]) == size
            # Every card where some legal hand could hold it: validate checks the 108 cards.
            assert br.validate(state) is state
