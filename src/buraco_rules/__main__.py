"""``python -m buraco_rules``: the ``buraco-rules`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
