"""How many sampled deals ISMCTSBot manages in one decision's CPU time at each rollout horizon:
the cost of a longer rollout, in deals, at decisions in the middle of a hand.

    python tools/deals_by_horizon.py --seconds 0.1 --horizons 4,10,40

The views are those of the seat to act after GreedyBot has played ``--after`` actions of deals
0, 1, ... (``game_seed(2026, i)``), two players; the bot thinks by time (``thread_time``), so the
counts depend on the machine and on what else it runs.
"""

from __future__ import annotations

import argparse
import random

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import GreedyBot, ISMCTSBot
from buraco_rules.bots.simulate import game_seed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default="buraco-fechado,italian")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--after", type=int, default=30, help="actions played before the view")
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--horizons", default="4,10,40")
    args = parser.parse_args()
    horizons = [int(h) for h in args.horizons.split(",")]
    print(
        "| variant | deal | phase | " + " | ".join(f"deals at horizon {h}" for h in horizons) + " |"
    )
    print("| --- | ---: | --- |" + " ---: |" * len(horizons))
    for name in args.variants.split(","):
        for deal in range(args.deals):
            state = br.new_game(variants.get(name), 2, seed=game_seed(2026, deal))
            greedy = GreedyBot()
            for _ in range(args.after):
                seen = br.view(state, state.current_player)
                state = br.apply(state, greedy.choose(seen, random.Random(0)))
            seen = br.view(state, state.current_player)
            counts = [
                ISMCTSBot(playouts=None, seconds=args.seconds, horizon=h)
                .search(seen, random.Random(1))
                .visits
                for h in horizons
            ]
            cells = " | ".join(str(n) for n in counts)
            print(f"| {name} | {deal} | {seen.phase.name.lower()} | {cells} |")


if __name__ == "__main__":
    main()
