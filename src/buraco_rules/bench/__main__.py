"""``python -m buraco_rules.bench``: the benchmark's command line."""

import sys

from .command import main

if __name__ == "__main__":
    sys.exit(main())
