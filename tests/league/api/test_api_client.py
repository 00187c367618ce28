"""A Python client generated from the live /api/schema/ by openapi-python-client, driven as a new user would drive it.

The generator runs offline on the schema the live server serves; any warning fails the test: the schema is what
clients are generated from, so a part the generator cannot describe is a bug in the schema (league/api/schema.py,
the views' extend_schema), not in the client."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.contrib.auth.models import User

from games.registry import example_dir
from league.accounts.tokens import do_create_token
from league.bots.models import Bot
from league.bots.services import do_register_builtin_bots

pytest.importorskip("openapi_python_client")

PACKAGE = "parlour_api_client"
EXAMPLE_BOT = example_dir("love_letter") / "main.py"


def generate_client(base_url: str, into: Path) -> subprocess.CompletedProcess[str]:
    """The exact command of docs/api.md ("A generated client"), on the schema the server serves."""
    with urllib.request.urlopen(f"{base_url}/api/schema/?format=json", timeout=10) as response:
        (into / "schema.json").write_bytes(response.read())
    # No post hooks: the generator's default runs ruff over the result, which proves nothing about our schema.
    (into / "config.json").write_text(json.dumps({"package_name_override": PACKAGE, "post_hooks": []}))
    command = [
        str(Path(sys.executable).with_name("openapi-python-client")),
        "generate",
        "--path",
        str(into / "schema.json"),
        "--config",
        str(into / "config.json"),
        "--meta",
        "none",
        "--output-path",
        str(into / PACKAGE),
        "--fail-on-warning",
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _schema_operations(schema: Path) -> list[str]:
    paths = json.loads(schema.read_text())["paths"]
    return [item[method]["operationId"] for item in paths.values() for method in item if method != "parameters"]


@pytest.fixture
def importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """tmp_path on sys.path for the test (the generated models import each other lazily), forgotten afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
        del sys.modules[name]


def _load(names: list[str]) -> dict[str, ModuleType]:
    importlib.invalidate_caches()
    return {name: importlib.import_module(f"{PACKAGE}.{name}") for name in names}


@pytest.mark.django_db(transaction=True)
def test_a_generated_client_works_as_a_new_user_would_use_it(live_server: Any, importable: Path) -> None:
    do_register_builtin_bots()
    generated = generate_client(live_server.url, importable)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert "warning" not in (generated.stdout + generated.stderr).lower(), generated.stdout + generated.stderr
    every_operation = sorted(
        ".".join(path.relative_to(importable / PACKAGE).with_suffix("").parts)
        for path in (importable / PACKAGE / "api").rglob("*.py")
        if path.name != "__init__.py"
    )
    api = _load(every_operation)  # every module imports: no name the generator forgot
    assert len(every_operation) == len(_schema_operations(importable / "schema.json"))
    api |= _load(
        [
            "client",
            "types",
            "models",
            "api.games.games_list",
            "api.games.games_retrieve",
            "api.leaderboards.leaderboards_retrieve",
            "api.matches.matches_list",
            "api.bots.bots_create",
            "api.bots.bots_retrieve",
            "api.me.me_retrieve",
            "api.tokens.tokens_create",
            "api.tokens.tokens_list",
            "api.tokens.tokens_destroy",
        ]
    )
    models, client_module = api["models"], api["client"]

    # Anonymous: the games, a leaderboard, the matches.
    anonymous = client_module.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    games = api["api.games.games_list"].sync(client=anonymous)
    assert isinstance(games, models.PaginatedGameList)
    assert games.count == len(games.results) and "love_letter" in [game.id for game in games.results]
    # The game is an enum in the schema (not free text): the client offers its values.
    love_letter = api["api.games.games_retrieve"].sync(models.GameEnum.LOVE_LETTER, client=anonymous)
    assert (love_letter.min_players, love_letter.max_players) == (2, 4)
    board = api["api.leaderboards.leaderboards_retrieve"].sync(models.GameEnum.LOVE_LETTER, client=anonymous, limit=2)
    assert isinstance(board, models.Leaderboard) and board.game == "love_letter" and len(board.results) <= 2
    # Ranked bots only: a ready version and a rated game (issue #19); the house bots have not played yet.
    assert board.count == Bot.objects.filter(game="love_letter", rating__games__gt=0).count() == 0
    matches = api["api.matches.matches_list"].sync(client=anonymous, game=models.GameEnum.LOVE_LETTER)
    assert isinstance(matches, models.PaginatedMatchList) and matches.results == []

    # With a token: who am I, a second token (created on the site: a token cannot mint one) listed and revoked.
    user = User.objects.create_user("newcomer", "new@example.org", "correct horse battery")
    key = do_create_token(user, "laptop")[1]
    signed_in = client_module.AuthenticatedClient(
        base_url=live_server.url, token=key, prefix="Token", raise_on_unexpected_status=True
    )
    me = api["api.me.me_retrieve"].sync(client=signed_in)
    assert (me.username, me.auth, me.bots) == ("newcomer", "token", [])
    minted = api["api.tokens.tokens_create"].sync_detailed(client=signed_in, body=models.TokenCreateRequest(name="ci"))
    assert minted.status_code == 403 and minted.parsed.error.code == "session_required"
    spare = do_create_token(user, "ci")[0]
    names = [token.name for token in api["api.tokens.tokens_list"].sync(client=signed_in).results]
    assert sorted(names) == ["ci", "laptop"]
    revoked = api["api.tokens.tokens_destroy"].sync_detailed(spare.id, client=signed_in)
    assert revoked.status_code == 204
    assert [token.name for token in api["api.tokens.tokens_list"].sync(client=signed_in).results] == ["laptop"]

    # Upload a bot (multipart); its validation task is queued and the version stays pending here.
    upload = models.BotCreateRequest(
        game=models.GameEnum.LOVE_LETTER,
        name="first-bot",
        file=api["types"].File(payload=BytesIO(EXAMPLE_BOT.read_bytes()), file_name="main.py"),
        description="the example",
    )
    created = api["api.bots.bots_create"].sync_detailed(client=signed_in, body=upload)
    assert created.status_code == 201, created.content
    bot = created.parsed
    assert (bot.owner, bot.name, bot.versions[0].status.value) == ("newcomer", "first-bot", "pending")
    assert api["api.bots.bots_retrieve"].sync(bot.id, client=anonymous).name == "first-bot"

    # Errors come back typed, in the one shape: {"error": {"code", "message", "fields"?}}.
    upload.name = "x" * 41
    upload.file = api["types"].File(payload=BytesIO(EXAMPLE_BOT.read_bytes()), file_name="main.py")
    too_long = api["api.bots.bots_create"].sync_detailed(client=signed_in, body=upload)
    assert too_long.status_code == 400 and isinstance(too_long.parsed, models.Error)
    assert too_long.parsed.error.code == "invalid" and "name" in too_long.parsed.error.fields.to_dict()
    assert too_long.parsed.error.message
    missing = api["api.bots.bots_retrieve"].sync_detailed(999999, client=anonymous)
    assert missing.status_code == 404 and missing.parsed.error.code == "not_found"
    refused = api["api.tokens.tokens_list"].sync_detailed(client=anonymous)
    assert refused.status_code == 401 and refused.parsed.error.code == "not_authenticated"
