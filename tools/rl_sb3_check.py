"""stable-baselines3's ``check_env`` on the Gymnasium environment in every variant and player
count, forced tokens skipped and not, dense rewards and not.

    PYTHONPATH=src python tools/rl_sb3_check.py

stable-baselines3 needs torch, which the ``dev`` extra does not install (a CUDA build is gigabytes),
so this check runs here, beside ``tools/train_policy.py``, rather than in the test suite, which
runs Gymnasium's own ``check_env`` on the same environments.
"""

from __future__ import annotations

import argparse
import warnings

from stable_baselines3.common.env_checker import check_env

from buraco_rules import variants
from buraco_rules.rl.gymnasium import BuracoEnv


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    checked = 0
    for rules in map(variants.get, variants.NAMES):  # every preset
        for players in rules.player_counts:
            for skip in (False, True):
                for dense in (False, True):
                    table = BuracoEnv(
                        rules.name, players, skip_forced=skip, dense_rewards=dense, max_turns=40
                    )
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        check_env(table, warn=True)
                    notes = sorted({str(w.message)[:80] for w in caught})
                    print(f"{rules.name} {players}p skip_forced={skip} dense={dense}: ok {notes}")
                    checked += 1
    print(f"{checked} environments passed stable-baselines3's check_env")


if __name__ == "__main__":
    main()
