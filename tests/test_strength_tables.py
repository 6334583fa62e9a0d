"""docs/bots.md's strength tables and docs/images/strength.svg are drawn from the hands kept in
docs/data/strength/ (``tools/ladder.py --summarise docs/data/strength/*.jsonl --side ismcts
--into docs/bots.md --plot docs/images/strength.svg``), so the page cannot drift from the
data; and the summary counts what the hands say."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "bots.md"
HANDS = sorted((ROOT / "docs" / "data" / "strength").glob("*.jsonl"))


def load_tool(name: str) -> ModuleType:
    """The script ``tools/<name>.py``, loaded as a module (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"{name}_tool", ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ladder_tool() -> ModuleType:
    return load_tool("ladder")


def test_the_strength_tables_are_the_summary_of_the_kept_hands() -> None:
    tool = _ladder_tool()
    page = PAGE.read_text(encoding="utf-8")
    assert HANDS and tool.BEGIN in page and tool.END in page
    tables = tool.summarise([str(path) for path in HANDS], "ismcts")
    assert tool.replace_block(page, tables) == page
    picture = ROOT / "docs" / "images" / "strength.svg"
    assert picture.read_text(encoding="utf-8") == tool.plot([str(path) for path in HANDS], "ismcts")


def test_the_summary_counts_the_wins_the_hands_record() -> None:
    tool = _ladder_tool()
    lines = [json.loads(line) for path in HANDS for line in path.read_text().splitlines()]
    tables = tool.summarise([str(path) for path in HANDS], "ismcts")
    groups: dict[tuple[str, str, str, int], dict[int, list[dict[str, object]]]] = {}
    for h in lines:
        key = (h["first"], h["second"], h["variant"], h["players"])
        groups.setdefault(key, {}).setdefault(h["deal"], []).append(h)
    assert groups
    for (first, second, variant, players), deals in groups.items():
        searcher, other = (second, first) if second.startswith("ismcts") else (first, second)
        both = [hand for pair in deals.values() if len(pair) == 2 for hand in pair]
        wins = 0
        for h in both:  # a deal counts once it is played from both seat orders
            team = int(h["swapped"]) if searcher == h["first"] else 1 - int(h["swapped"])
            scores = h["scores"]
            assert isinstance(scores, list)
            wins += scores[team] > scores[1 - team]
        row = re.search(
            rf"^\| {re.escape(variant)}, {players} \| {re.escape(searcher)} \| "
            rf"{re.escape(other)} \| (\d+) \((\d+)\) \| (\d+)",
            tables,
            re.M,
        )
        if not both:  # no deal played from both sides yet: no row
            assert row is None
            continue
        assert row is not None, (variant, players, first, second)
        assert (int(row.group(1)), int(row.group(2))) == (len(both) // 2, len(both))
        assert int(row.group(3)) == wins


def test_a_campaigns_bot_names_may_carry_settings() -> None:
    import pytest

    from buraco_rules.bots import ISMCTSBot, MonteCarloBot

    bot_of = _ladder_tool().bot_of
    assert bot_of("ismcts:0.1s+racing=2.5+reserve=4+reuse") == ISMCTSBot(
        playouts=None, seconds=0.1, racing=2.5, reserve=4, reuse=True
    )
    assert bot_of("mc:0.1s+horizon=6") == MonteCarloBot(playouts=None, seconds=0.1, horizon=6)
    for bad in ("ismcts+nope=1", "ismcts+racing=x", "ismcts+reserve=-1", "greedy+racing=1"):
        with pytest.raises(ValueError):
            bot_of(bad)


def test_the_tuning_lines_are_the_summary_of_the_tuning_runs() -> None:
    tool = _ladder_tool()
    runs = sorted((ROOT / "docs" / "data" / "tuning").glob("*.jsonl"))
    summary = tool.summarise([str(path) for path in runs], "ismcts").splitlines()
    page = PAGE.read_text(encoding="utf-8")
    section = page[page.index("### Where an equal-time search") : page.index("## ISMCTS through")]
    # a run's "all" line, or its one variant's line when it played only one
    shown = [line for line in section.splitlines() if re.match(r"\| [^|]+ \| ismcts:0\.1s\+", line)]
    assert len(shown) == len(runs) and all(line in summary for line in shown)


def test_no_hand_is_kept_twice() -> None:
    key = _ladder_tool()._key
    for path in [*HANDS, *sorted((ROOT / "docs" / "data" / "tuning").glob("*.jsonl"))]:
        keys = [key(json.loads(line)) for line in path.read_text().splitlines() if line]
        assert len(keys) == len(set(keys)), path.name


def _hand_line(deal: int, swapped: bool, scores: list[int]) -> str:
    return json.dumps({"variant": "italian", "players": 2, "first": "a", "second": "b",
                       "deal": deal, "swapped": swapped, "scores": scores})  # fmt: skip


def test_split_replicas_keeps_one_of_each_hand_chosen_by_the_seed(tmp_path: Path) -> None:
    tool = _ladder_tool()
    lines = [_hand_line(0, False, [1, 0]), _hand_line(0, False, [0, 1]),
             _hand_line(0, True, [5, 5]), _hand_line(1, False, [2, 0]),
             _hand_line(0, False, [3, 3])]  # fmt: skip
    kept_by_seed = set()
    for seed in range(12):
        path, replicas = tmp_path / f"hands-{seed}.jsonl", tmp_path / f"replicas-{seed}.jsonl"
        path.write_text("".join(line + "\n" for line in lines))
        assert tool.split_replicas(path, replicas, seed) == 2
        kept = path.read_text().splitlines()
        keys = [tool._key(json.loads(line)) for line in kept]
        assert len(keys) == len(set(keys)) == 3  # one copy of each hand
        assert set(keys) == {tool._key(json.loads(line)) for line in lines}
        assert sorted(kept + replicas.read_text().splitlines()) == sorted(lines)
        assert {lines[2], lines[3]} <= set(kept)  # a hand played once stays
        again = tmp_path / "again.jsonl"
        again.write_text("".join(line + "\n" for line in lines))
        tool.split_replicas(again, tmp_path / "again-replicas.jsonl", seed)
        assert again.read_text().splitlines() == kept  # the seed decides
        (tmp_path / "again-replicas.jsonl").unlink()
        kept_by_seed.add(next(k for k in kept if json.loads(k)["deal"] == 0 and
                              not json.loads(k)["swapped"]))  # fmt: skip
    assert len(kept_by_seed) > 1  # not always the first copy


def test_a_second_campaign_on_the_same_file_is_refused(tmp_path: Path) -> None:
    import argparse
    import fcntl

    import pytest

    tool = _ladder_tool()
    out = tmp_path / "hands.jsonl"
    args = argparse.Namespace(
        bots="greedy,random", against=None, variants="italian", players=2, deals=1, first=0,
        seed=1, workers=1, out=str(out),
    )  # fmt: skip
    with out.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(SystemExit, match="another campaign is writing"):
            tool.play(args)
        assert out.read_text() == ""
    tool.play(args)  # the first is done: the next one plays
    assert len(out.read_text().splitlines()) == 2
