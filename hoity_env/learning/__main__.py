"""``python -m hoity_env.learning``: the same as ``hoity-learn``."""

from __future__ import annotations

import sys

from hoity_env.learning.cli import main

sys.exit(main())
