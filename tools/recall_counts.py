"""What a bot with ``recall`` knows beyond its view (buraco_rules.bots.recall), checked against
the real deal at every decision and counted: the hidden cards of a closed pile and the cards
placed in other hands, per decision, in every variant and player count.

    python tools/recall_counts.py --deals 4

Every seat remembers, and plays GreedyBot's or RandomBot's choices (both, one deal each). At
each decision what the seat knows is held to the real deal, and a deal sampled from it to the
view and to what is known; a mismatch stops the run with an error. tests/test_recall.py runs
the same check on random deals.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import GreedyBot, RandomBot
from buraco_rules.bots.recall import Recall, deal


def learnt(rules: br.RuleSet, players: int, seed: int, greedy: bool, steps: int) -> Counter[str]:
    """Play a deal with every seat remembering, checking what each knows at each decision (a
    ``RuntimeError`` names a mismatch); count the hidden pile cards and the cards placed in other
    hands known, and the decisions."""
    state = br.new_game(rules, players, seed=seed)
    recalls = [Recall() for _ in range(players)]
    policy = GreedyBot() if greedy else RandomBot()
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    while not state.is_over and counts["decisions"] < steps:
        seat = state.current_player
        seen = br.view(state, seat)
        known = recalls[seat].known(seen)
        hidden = seen.discard_pile_size - len(seen.discard_pile)
        world = deal(seen, known, rng)
        br.validate(world)
        if (
            len(known.pile) != seen.discard_pile_size
            or known.held[seat]
            or br.view(world, seat) != seen
        ):
            raise RuntimeError(f"deal {seed}: what is known does not fit the view")
        for place, card in enumerate(known.pile):
            if (
                card is not None
                and not state.discard_pile[place] == card == world.discard_pile[place]
            ):
                raise RuntimeError(f"deal {seed}: pile card {place} is not {card}")
            counts["pile"] += card is not None and place < hidden
        for other, cards in enumerate(known.held):
            if Counter(cards) - Counter(state.hands[other]) or Counter(cards) - Counter(
                world.hands[other]
            ):
                raise RuntimeError(f"deal {seed}: seat {other} does not hold {cards}")
            counts["held"] += len(cards)
        action = policy.choose(seen, rng)
        recalls[seat].note(seen, action, known)
        state = br.apply(state, action)
        counts["decisions"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=4)
    args = parser.parse_args()
    print("| variant, players | decisions | cards known in other hands | hidden pile cards known |")
    print("| --- | ---: | ---: | ---: |")
    for name in variants.NAMES:
        rules = variants.get(name)
        for players in rules.player_counts:
            counts: Counter[str] = Counter()
            for seed in range(args.deals):
                for greedy in (True, False):
                    counts += learnt(rules, players, seed, greedy, 10_000)
            n = counts["decisions"]
            print(
                f"| {name}, {players} | {n} | {counts['held'] / n:.2f} | {counts['pile'] / n:.2f} |"
            )


if __name__ == "__main__":
    main()
