"""The error catalog: every code a client can see is one ``ErrorCode`` with one status, docs/api.md lists exactly those
codes with those statuses, and every error of the catalog fixes its code and renders its own message."""

from __future__ import annotations

import dataclasses
import pickle
import re
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.utils import timezone
from rest_framework import exceptions

from games.registry import UnknownGame as RegistryUnknownGame
from league.core import errors
from league.core.errors import ErrorCode, ServiceError, catalog

API_DOC = Path(__file__).resolve().parents[3] / "docs" / "api.md"


def _table_after(heading: str) -> list[list[str]]:
    """The rows (cells, stripped) of the first table after ``heading`` in docs/api.md."""
    text = API_DOC.read_text()
    table = text[text.index("| --- |", text.index(heading)) :]
    table = table[: table.index("\n\n")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in table.splitlines()[1:]]


def _documented_statuses() -> list[tuple[str, str]]:
    """The "Every code" table: (code, status) a row."""
    rows = _table_after("**Every code**")
    assert all(re.fullmatch(r"`[a-z_]+`", row[0]) for row in rows), "one backquoted code a row"
    return [(row[0].strip("`"), row[1]) for row in rows]


def test_docs_api_lists_exactly_the_error_codes_each_with_its_status() -> None:
    documented = _documented_statuses()
    codes = [code for code, _status in documented]
    assert len(codes) == len(set(codes)), "a code listed twice"
    assert sorted(documented) == sorted((code.value, str(code.status)) for code in ErrorCode)


def test_the_summary_by_status_puts_each_code_it_names_under_that_codes_status() -> None:
    rows = _table_after("| Status | `code` | When |")
    named = [(code, row[0]) for row in rows for code in re.findall(r"`([a-z_]+)`", row[1])]
    assert named, "the summary names codes"
    assert [(code, status) for code, status in named if str(ErrorCode(code).status) != status] == []


def test_each_drf_refusal_answers_the_status_of_its_code() -> None:
    # The API's framework raises these; their codes are published here, so their statuses must be the catalog's.
    drf = [
        exceptions.ValidationError,
        exceptions.ParseError,
        exceptions.AuthenticationFailed,
        exceptions.NotAuthenticated,
        exceptions.PermissionDenied,
        exceptions.NotFound,
        exceptions.MethodNotAllowed,
        exceptions.UnsupportedMediaType,
        exceptions.Throttled,
    ]
    wrong = [(cls.__name__, cls.status_code) for cls in drf if ErrorCode(cls.default_code).status != cls.status_code]
    assert wrong == []


SAMPLES = {
    "int": 12345,
    "str": "text",
    "object": "thing",
    "datetime": timezone.now() + timedelta(minutes=5),
    "Sequence[int]": [3, 4],
    "Sequence[str]": ["one problem", "another"],
    "Sequence[_OfAGame]": [SimpleNamespace(game="ten")],
}


def _sample(cls: type[ServiceError]) -> ServiceError:
    fields = dataclasses.fields(cls)
    unknown = {field.name: field.type for field in fields if field.type not in SAMPLES}
    assert unknown == {}, f"{cls.__name__}: give the test a sample of these field types"
    return cls(**{field.name: SAMPLES[str(field.type)] for field in fields})


@pytest.mark.parametrize("cls", catalog(), ids=lambda cls: cls.__name__)
def test_every_error_of_the_catalog_renders_its_message_and_answers_its_codes_status(cls: type[ServiceError]) -> None:
    error = _sample(cls)
    assert error.message and "{" not in error.message, error.message
    assert str(error) == error.message
    assert error.status == cls.code.status
    assert error.body() == {"error": {"code": cls.code.value, "message": error.message, **_extra(error)}}


def _extra(error: ServiceError) -> dict[str, object]:
    if isinstance(error, errors.RateLimited):
        return {"retry_after_seconds": error.retry_after, "retry_at": error.retry_at.isoformat()}
    return {}


def test_no_two_errors_of_the_catalog_write_the_same_message() -> None:
    # A message passed through whole ("{reason}": the packaging's, a replay's, the settings' own words) is not one.
    written = [cls.template for cls in catalog() if not re.fullmatch(r"\{\w+\}", cls.template)]
    assert sorted({t for t in written if written.count(t) > 1}) == []


def test_an_error_survives_a_pickle_with_its_fields() -> None:
    error = errors.UploadsRateLimited(
        count=3, what="uploads of yours", limit=3, retry_at=timezone.now() + timedelta(minutes=1)
    )
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is errors.UploadsRateLimited and copy.message == error.message and copy.retry_at == error.retry_at


def test_an_unknown_game_is_worded_by_the_registry_and_its_id_is_cut() -> None:
    assert errors.UnknownGame(game="chess").message == str(RegistryUnknownGame("chess"))
    assert "x" * 41 not in errors.UnknownGame(game="x" * 1000).message


def test_every_code_raised_in_the_league_is_an_error_code() -> None:
    # A code written as a bare string would slip past the enum (and so past the docs).
    league = Path(__file__).resolve().parents[3] / "league"
    loose = [
        f"{path.relative_to(league)}: {match.group(0)}"
        for path in league.rglob("*.py")
        if "migrations" not in path.parts and path.name != "forms.py"  # forms: Django's own field error codes
        for match in re.finditer(r"""(?:code=|["']code["']: )["'][a-z_]+["']""", path.read_text())
    ]
    assert loose == []


def test_no_answer_in_the_error_shape_is_built_outside_the_catalog() -> None:
    # The shape comes from ServiceError.body() (and DRF's handler, league/api/errors.py): a literal elsewhere would
    # choose its own code and status.
    league = Path(__file__).resolve().parents[3] / "league"
    literal = re.compile(r"""["']error["']: \{""")
    built = [
        str(path.relative_to(league))
        for path in league.rglob("*.py")
        if "migrations" not in path.parts and literal.search(path.read_text())
    ]
    assert sorted(built) == ["api/errors.py", "api/examples.py", "core/errors.py"]
