"""Pages for bot authors: the first-bot page (league/authors/guides/first-bot.md), per-game references and starter kits
generated from the engines, and what a bot's owner sees on a match page (moves with CPU time and notes, stderr,
faults)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from bots.authoring import starter
from bots.limits import Limits
from bots.runner import BotSeat, play_match
from games.registry import GAMES
from games.schema import schemas
from league.authors.views import FIRST_BOT_DOC, render_markdown
from league.bots.models import BotVersion
from league.bots.services import do_create_bot, do_register_builtin_bots
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from tests.results import runner_result

ROOT = Path(__file__).resolve().parents[3]


def _bwrap_problem() -> str | None:
    if os.geteuid() != 0 or not shutil.which("bwrap") or not os.path.exists("/sys/fs/cgroup/memory/cgroup.procs"):
        return "the bwrap sandbox needs root, bubblewrap and the cgroup v1 memory controller"
    return None


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_game_has_a_reference_page_generated_from_its_engine(client: Client, db, game_id: str) -> None:
    response = client.get(f"/games/{game_id}/reference/")
    assert response.status_code == 200
    page = response.content.decode()
    ref = starter.reference(game_id)
    # Every observation field a real game sent is on the page, with its inferred type and its documentation.
    for field in ref.fields:
        assert f'id="field-{field.name}"' in page
        assert field.description, f"{game_id}: {field.name} is not described in games/{game_id}/RULES.md"
    # An example of each protocol message, from the real game.
    for name in ("start", "ready", "act", "action", "end"):
        assert f'id="msg-{name}"' in page
    assert f"&quot;game&quot;: &quot;{game_id}&quot;" in page
    assert "&quot;legal&quot;" in page and "&quot;outcome&quot;" in page
    assert f'href="/games/{game_id}/starter.zip"' in page


def test_an_unknown_game_has_no_reference_and_no_kit(client: Client, db) -> None:
    assert client.get("/games/chess/reference/").status_code == 404
    assert client.get("/games/chess/starter.zip").status_code == 404


def test_the_starter_kit_is_served_as_a_zip_that_points_back_at_the_site(client: Client, db) -> None:
    response = client.get("/games/love_letter/starter.zip")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert 'filename="parlour-love_letter-starter.zip"' in response["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert {name.split("/", 1)[1] for name in archive.namelist()} == {
        "main.py",
        "main_sdk.py",
        "main_search.py",
        "parlour_sdk/__init__.py",
        "parlour_sdk/engine.py",
        "parlour_sdk/search.py",
        "README.md",
        "smoke_test.py",
        "sample_messages.jsonl",
        "love_letter_types.pyi",
        "schema.json",
    }
    readme = archive.read("love_letter-bot/README.md").decode()
    assert "http://testserver/games/love_letter/reference/" in readme
    assert "http://testserver/api/bots/" in readme


def test_the_first_bot_page_is_the_doc_with_a_kit_for_every_game(client: Client, db) -> None:
    response = client.get("/first-bot/")
    assert response.status_code == 200
    page = response.content.decode()
    doc = FIRST_BOT_DOC.read_text()
    for heading in re.findall(r"^#+ (.+)$", doc, flags=re.M):
        assert f">{heading}</h" in page, heading
    for game_id in GAMES:
        assert f'href="/games/{game_id}/starter.zip"' in page
        assert f'href="/games/{game_id}/reference/"' in page
    assert "<!-- games -->" not in page
    assert 'href="/account/signup/"' in page and 'href="/challenges/"' in page


def test_every_page_links_to_the_first_bot_page(client: Client, db) -> None:
    assert 'href="/first-bot/"' in client.get("/").content.decode()


def test_markdown_is_escaped_and_keeps_its_structure() -> None:
    html = render_markdown(
        "# Title\n\nA <script>x</script> and `<b>` and **bold** [link](/x/) [bad](javascript:alert(1)).\n\n"
        "[repo](../docs/protocol.md) [guide](first-bot.md#x)\n\n"
        '- one\n- two\n  continued\n\n| a | b |\n|---|---|\n| `1 \\| 2` | *it* |\n\n```json\n{"a": "<"}\n```\n'
    )
    assert '<h1 id="title">Title</h1>' in html
    assert "&lt;script&gt;" in html and "<script>" not in html
    assert "<code>&lt;b&gt;</code>" in html and "<strong>bold</strong>" in html
    assert '<a href="/x/">link</a>' in html and "javascript:" not in html.replace("(javascript:", "")
    # Links to repository files: a site page where there is one, else plain text (no path to follow or show).
    assert "repo" in html and "protocol.md" not in html and '<a href="/first-bot/#x">guide</a>' in html
    assert "<li>two\ncontinued</li>" in html
    assert "<td><code>1 | 2</code></td>\n<td><em>it</em></td>" in html
    assert '<code class="language-json">{&quot;a&quot;: &quot;&lt;&quot;}\n</code>' in html


def _sandboxed_kit_match(tmp_path: Path) -> dict:
    """A real sandboxed match of the love_letter kit's SDK bot (it writes notes and logs) against a built-in."""
    archive = zipfile.ZipFile(io.BytesIO(starter.build_kit("love_letter")))
    archive.extractall(tmp_path)
    bot = tmp_path / "love_letter-bot"
    (bot / "bot.toml").write_text('command = ["python3", "main_sdk.py"]\n')
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    seats = [BotSeat(label="kit", code_dir=bot), BotSeat(label="builtin:random", builtin="random")]
    # A grace period after `end`, so that the kit's on_end log line is in its stderr (by default the runner kills
    # bots as soon as it has sent `end`: docs/protocol.md).
    limits = Limits.for_game("love_letter", end_grace_ms=2000)
    return play_match("love_letter", seats, seed=5, limits=limits).to_json()


@pytest.mark.skipif(_bwrap_problem() is not None, reason=_bwrap_problem() or "")
def test_an_owner_sees_each_move_with_cpu_time_and_note_and_the_stderr(client: Client, alice, bob, tmp_path) -> None:
    do_register_builtin_bots(["love_letter"])
    mine = do_create_bot(alice, "love_letter", "kit", b"print()\n", "main.py").versions.get()
    random_version = BotVersion.objects.get(bot__name="random", bot__game="love_letter", bot__is_builtin=True)
    match = do_create_match("love_letter", [mine, random_version], seed=5, kind=Match.Kind.CHALLENGE)
    do_claim_match(match.pk)
    result = _sandboxed_kit_match(tmp_path)
    do_record_match_result(match.pk, runner_result(result))

    client.force_login(alice)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="own-seat-0"' in page and 'id="own-seat-1"' not in page
    own = page[page.index('id="own-seat-0"') :]
    own = own[: own.index("</details>")]
    moves = [m for m in result["replay"]["moves"] if m["seat"] == 0]
    assert moves and all("cpu_ms" in m for m in moves)
    assert own.count("<tr") == len(moves) + 1  # the header and one row per move of seat 0
    first = moves[0]
    assert f"{first['cpu_ms']:.1f}" in own and first["note"] in own
    assert "the match is over after" in own  # the SDK bot's on_end log line, from its stderr

    client.force_login(bob)
    assert 'id="own-seat-0"' not in client.get(f"/matches/{match.pk}/").content.decode()
    client.logout()
    assert "only you can see this" not in client.get(f"/matches/{match.pk}/").content.decode()


def test_an_owner_sees_why_their_bot_faulted(client: Client, alice) -> None:
    do_register_builtin_bots(["love_letter"])
    mine = do_create_bot(alice, "love_letter", "slow", b"print()\n", "main.py").versions.get()
    random_version = BotVersion.objects.get(bot__name="random", bot__game="love_letter", bot__is_builtin=True)
    match = do_create_match("love_letter", [mine, random_version], seed=1, kind=Match.Kind.CHALLENGE)
    do_claim_match(match.pk)
    fault = {"cause": "timeout", "detail": "no action within 1650 ms (per-move 1000 ms + bank left)", "move": 2}
    moves = [
        {"seat": 0, "action": {"card": 1}, "ms": 3.2, "cpu_ms": 2.5, "note": "thinking", "auto": False},
        {"seat": 1, "action": {"card": 2}, "ms": 0.1, "note": None, "auto": False},
        {"seat": 0, "action": {"card": 4}, "ms": 0.1, "note": None, "auto": True},
    ]
    result = {
        "seats": [
            {"rank": 2, "score": 0.0, "fault": fault, "stderr": "pondering...\n", "moves": 1, "time_ms": 1650},
            {"rank": 1, "score": 7.0, "fault": None, "stderr": "", "moves": 1, "time_ms": 0},
        ],
        "replay": {"format": "parlour-replay/1", "game": "love_letter", "moves": moves, "faults": [fault]},
        "wall_ms": 2000,
    }
    do_record_match_result(match.pk, runner_result(result))
    client.force_login(alice)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    own = page[page.index('id="own-seat-0"') :]
    assert "<details" in page[page.index('id="own-seat-0"') - 60 : page.index('id="own-seat-0"')]
    assert "open" in page[page.index('id="own-seat-0"') : page.index('id="own-seat-0"') + 30]
    assert "Fault: ran out of time" in own and "no action within 1650 ms" in own
    assert "2.5" in own and "thinking" in own and 'class="auto"' in own and "pondering..." in own


def test_the_kit_readme_and_the_reference_show_every_declared_field_with_its_meaning() -> None:
    """The reference reads the game's declaration, not a sample of play: every declared field, each with a meaning,
    and the example act sends no field the declaration does not name."""
    for game_id in GAMES:
        ref = starter.reference(game_id)
        assert [f.name for f in ref.fields] == list(schemas(game_id).observation["properties"])
        assert all(f.description for f in ref.fields), f"{game_id}: a declared field without a meaning"
        assert set(ref.messages["act"]["obs"]) <= {f.name for f in ref.fields}


def test_the_api_game_list_and_the_references_cover_the_same_games(client: Client, db) -> None:
    games = [game["id"] for game in json.loads(client.get("/api/games/").content)["results"]]
    assert games == list(GAMES)


def test_the_search_guide_is_a_page_of_the_guide(client: Client, db) -> None:
    """docs/search.md on the site, linked from the first-bot page: the general part and every game's section."""
    assert 'href="/first-bot/search/"' in client.get("/first-bot/").content.decode()
    response = client.get("/first-bot/search/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Information-set MCTS" in html and "main_search.py" in html and "docs/search.md" not in html
