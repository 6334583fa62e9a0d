"""``python -m buraco_rules.bench``: the benchmark's command line."""

import sys

from .command import main

sys.exit(main())
