"""Every error code a client can see is one ``ErrorCode`` value, and docs/api.md lists exactly those values."""

from __future__ import annotations

import re
from pathlib import Path

from league.services.errors import ErrorCode

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def _documented_codes() -> list[str]:
    """The first column of the "Every code" table: one backquoted code a row."""
    text = API_DOC.read_text()
    table = text[text.index("| --- |", text.index("**Every code**")) :]
    table = table[: table.index("\n\n")]
    return re.findall(r"^\| `([a-z_]+)` \|", table, re.MULTILINE)


def test_docs_api_lists_exactly_the_error_codes() -> None:
    documented = _documented_codes()
    assert len(documented) == len(set(documented)), "a code listed twice"
    assert sorted(documented) == sorted(code.value for code in ErrorCode)


def test_every_code_raised_in_the_league_is_an_error_code() -> None:
    # A code written as a bare string would slip past the enum (and so past the docs).
    league = Path(__file__).resolve().parents[2] / "league"
    loose = [
        f"{path.relative_to(league)}: {match.group(0)}"
        for path in league.rglob("*.py")
        if "migrations" not in path.parts and path.name != "forms.py"  # forms: Django's own field error codes
        for match in re.finditer(r"""(?:code=|["']code["']: )["'][a-z_]+["']""", path.read_text())
    ]
    assert loose == []
