"""``python -m hoity_env.learning``: the same as ``hoity-learn``."""

from __future__ import annotations

import sys

from hoity_env.cli.learn import main

if __name__ == "__main__":  # documentation tools import this module
    sys.exit(main())
