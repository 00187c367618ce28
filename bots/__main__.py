"""``python -m bots`` (see bots/cli.py)."""

from __future__ import annotations

import sys

from bots.cli import main

sys.exit(main())
