"""How many sampled deals MonteCarloBot and ISMCTSBot each manage in the same CPU time, at the
decisions of GreedyBot-played hands (seat 0's, where more than one action is legal), and how
often they choose differently: where an equal-time search spends its budget.

    python tools/deals_per_decision.py --variant buraco-fechado --hands 2 --seconds 0.1

Both bots search the same views with their defaults, thinking by time; the counts are of the
deals each decision sampled (``bots.budget.sampled_deals``), split by the phase of the turn
(the draw, or the melds and the discard after it).
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from collections.abc import Iterator

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import Bot, GreedyBot, ISMCTSBot, MonteCarloBot, budget, ismcts, montecarlo
from buraco_rules.bots.simulate import game_seed

counted: list[int] = []


def _counting(playouts: int | None, seconds: float | None) -> Iterator[int]:
    done = 0
    for done in budget.sampled_deals(playouts, seconds):
        yield done
    counted.append(done + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="buraco-fechado")
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    for module in (montecarlo, ismcts):  # count each decision's deals as they are sampled
        setattr(module, "sampled_deals", _counting)  # noqa: B010
    bots: dict[str, Bot] = {
        "mc": MonteCarloBot(playouts=None, seconds=args.seconds),
        "ismcts": ISMCTSBot(playouts=None, seconds=args.seconds),
    }
    rules = variants.get(args.variant)
    greedy = GreedyBot()
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for hand in range(args.hands):
        state = br.new_game(rules, 2, seed=game_seed(args.seed, hand))
        while not state.is_over:
            seen = br.view(state, state.current_player)
            if seen.seat == 0 and len(br.legal_actions(seen)) > 1:
                counted.clear()
                choices = [bot.choose(seen, random.Random(hand)) for bot in bots.values()]
                row = tally[seen.phase.value]
                row[0] += 1
                row[1] += counted[0]
                row[2] += counted[1]
                row[3] += choices[0] != choices[1]
            state = br.apply(state, greedy.choose(seen, random.Random(0)))
    print("| variant | phase | decisions | deals a decision (mc, ismcts) | chosen differently |")
    print("| --- | --- | ---: | ---: | ---: |")
    for phase, (n, mc, tree, differ) in tally.items():
        print(f"| {args.variant} | {phase} | {n:.0f} | {mc / n:.1f}, {tree / n:.1f} | "
              f"{differ / n:.0%} |")  # fmt: skip


if __name__ == "__main__":
    main()
