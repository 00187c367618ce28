"""``python -m bots`` (see bots/authoring/cli.py)."""

from __future__ import annotations

import sys

from bots.authoring.cli import main

sys.exit(main())
