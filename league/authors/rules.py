"""A game's rules in brief, as a page shows them (one click from every table and setup page)."""

from __future__ import annotations

from functools import cache

from django.utils.safestring import SafeString

from bots.authoring.reference import doc_sections
from league.core.doc_markdown import render_markdown


@cache  # (RULES.md does not change while the site runs)
def rules_in_brief(game_id: str) -> SafeString:
    """The "rules in brief" section of the game's RULES.md, rendered; empty when it has none."""
    return render_markdown(doc_sections(game_id).get("rules", ""))
