"""Bad input to the API and the forms, sent to a live server as a stranger's script would (docs/security.md, "Bad
input to the API"): ids past a bigint, negative, fractional or boolean; JSON nested 10,000 deep; a browser's Accept
header on every GET of the schema; paths no route takes (DEBUG on and off); methods a route does not take; altered
cursors. Each answer must be a 4xx (or, for Accept, the JSON answer itself), JSON, in the one error shape."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import pytest
import requests
from django.contrib.auth.models import User

from league.accounts.tokens import do_create_token
from league.api.parsers import MAX_DEPTH
from league.bots.models import Bot
from league.bots.services import do_create_bot, do_record_validation, do_register_builtin_bots
from league.challenges.models import Challenge
from league.tournaments.models import Tournament
from league.tournaments.services import do_create_tournament
from tests.browser.recorded import record_match
from tests.conftest import EXAMPLE_BOT
from tests.security.conftest import form_csrf, log_in_for_api

HUGE = [2**63, 2**64, 10**30]
NOT_IDS = [*HUGE, -1, 0, 1.5, 12.0, True, False, "12x", "²", "1e3", None, [], {}]
TIMEOUT = 30


def assert_error(answer: requests.Response, status: int | None = None, field: str | None = None) -> dict[str, Any]:
    """A 4xx (``status`` if given), JSON, in the one error shape; ``field``: named in ``fields``."""
    where = f"{answer.request.method} {answer.url} → {answer.status_code} {answer.text[:300]!r}"
    assert 400 <= answer.status_code < 500, where
    assert status is None or answer.status_code == status, where
    assert answer.headers["Content-Type"].startswith("application/json"), where
    error = answer.json()["error"]
    assert isinstance(error["code"], str) and isinstance(error["message"], str) and error["message"], where
    if field is not None:
        assert field in error.get("fields", {}), where
    return error


def ready_bot(owner: User, name: str) -> Bot:
    bot = do_create_bot(owner, "love_letter", name, EXAMPLE_BOT, "main.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    return bot


def token_session(user: User) -> requests.Session:
    session = requests.Session()
    session.headers["Authorization"] = f"Token {do_create_token(user, 'attack')[1]}"
    return session


@pytest.fixture
def alice(site: str, signed_in: Callable[[str], requests.Session]) -> tuple[User, requests.Session]:
    """alice, signed in through the login form, with a ready bot."""
    session = signed_in("alice")
    user = User.objects.get(username="alice")
    ready_bot(user, "mine")
    return user, session


@pytest.fixture
def staff(transactional_db) -> User:
    return User.objects.create_user("carol", "carol@example.org", "correct horse battery", is_staff=True)


# ----- ids in JSON bodies ------------------------------------------------------------------------------------------


def test_ids_out_of_range_in_a_challenge_body_are_400s_naming_the_field(site: str, alice) -> None:
    user, _ = alice
    do_register_builtin_bots(["love_letter"])
    mine = Bot.objects.get(owner=user, name="mine").pk
    builtin = Bot.objects.filter(game="love_letter", is_builtin=True).first().pk
    api = token_session(user)
    url = f"{site}/api/challenges/"
    for bad in NOT_IDS:
        cases = {
            "bot": {"bot": bad, "opponents": [builtin], "games": 2},
            "opponents": {"bot": mine, "opponents": [bad], "games": 2},
            "field": {"kind": "version_test", "bot": mine, "games": 2, "field": [bad]},
        }
        for field, body in cases.items():
            assert_error(api.post(url, json=body, timeout=TIMEOUT), 400, field)
    # The same body with real ids is taken: the 400s above are the ids', nothing else's.
    created = api.post(url, json={"bot": mine, "opponents": [builtin], "games": 2}, timeout=TIMEOUT)
    assert created.status_code == 201, created.text
    assert Challenge.objects.count() == 1


def test_ids_out_of_range_in_tournament_bodies_are_400s_naming_the_field(site: str, staff: User) -> None:
    entrant = ready_bot(staff, "entrant")
    draft = do_create_tournament(staff, "love_letter", "draft", "round_robin", {}, [])
    api = token_session(staff)
    for bad in NOT_IDS:
        new = {"name": "cup", "game": "love_letter", "format": "round_robin", "bots": [bad]}
        assert_error(api.post(f"{site}/api/tournaments/", json=new, timeout=TIMEOUT), 400, "bots")
        assert_error(api.patch(f"{site}/api/tournaments/{draft.pk}/", json={"bots": [bad]}, timeout=TIMEOUT), 400)
        entries = f"{site}/api/tournaments/{draft.pk}/entries/"
        assert_error(api.post(entries, json={"bot": bad}, timeout=TIMEOUT), 400, "bot")
        if bad is not None:  # version may be null: "no pinned version"
            assert_error(api.post(entries, json={"bot": entrant.pk, "version": bad}, timeout=TIMEOUT), 400, "version")
    for huge in HUGE:  # numbers inside the settings are the service's to bound
        new = {"name": "cup", "game": "love_letter", "format": "round_robin", "settings": {"table_size": huge}}
        assert_error(api.post(f"{site}/api/tournaments/", json=new, timeout=TIMEOUT), 400)
    assert Tournament.objects.count() == 1
    added = api.post(f"{site}/api/tournaments/{draft.pk}/entries/", json={"bot": entrant.pk}, timeout=TIMEOUT)
    assert added.status_code == 201, added.text


def test_ids_out_of_range_in_paths_and_query_strings_are_4xx(site: str, alice) -> None:
    user, _ = alice
    api = token_session(user)
    match = record_match("love_letter", players=2, seed=1)
    for huge in HUGE:
        for path in ("bots", "matches", "tournaments", "challenges"):
            assert_error(api.get(f"{site}/api/{path}/{huge}/", timeout=TIMEOUT), 404)
        assert_error(api.get(f"{site}/api/bots/{huge}/ratings/", timeout=TIMEOUT), 404)
        assert_error(api.delete(f"{site}/api/tokens/{huge}/", timeout=TIMEOUT), 404)
    for bad in [*HUGE, -1, 0, 1.5, "²", "1e3", "0x10"]:
        for name in ("bot", "tournament"):
            assert_error(api.get(f"{site}/api/matches/", params={name: bad}, timeout=TIMEOUT), 400, name)
    for seat in ("²", "-1", "1.5", str(2**64)):
        assert_error(api.get(f"{site}/api/matches/{match.pk}/frames/", params={"seat": seat}, timeout=TIMEOUT), 400)


# ----- ids in the site's forms ---------------------------------------------------------------------------------------


def test_ids_out_of_range_in_the_challenge_form_are_form_errors(site: str, alice) -> None:
    user, session = alice
    mine = Bot.objects.get(owner=user, name="mine")
    page = f"{site}/bots/{mine.pk}/challenge/"
    for bad in [*(str(n) for n in HUGE), "-1", "1.5", "²", "١٢", "0", "x"]:
        form = {"csrfmiddlewaretoken": form_csrf(session, page), "kind": "challenge", "opponents": [bad], "games": "2"}
        answer = session.post(page, data=form, headers={"Referer": page}, timeout=TIMEOUT, allow_redirects=False)
        assert answer.status_code == 400, (bad, answer.status_code)
        assert "Enter an id: a whole number from 1 to 9223372036854775807" in answer.text, bad
    for games in (str(2**64), "1" * 5000, "²"):
        form = {"csrfmiddlewaretoken": form_csrf(session, page), "kind": "version_test", "games": games}
        answer = session.post(page, data=form, headers={"Referer": page}, timeout=TIMEOUT, allow_redirects=False)
        assert answer.status_code == 400, (games[:30], answer.status_code)
    assert Challenge.objects.count() == 0


def test_ids_out_of_range_in_the_tournament_admin_form_are_form_errors(site: str, signed_in) -> None:
    session = signed_in("root")
    User.objects.filter(username="root").update(is_staff=True, is_superuser=True)
    page = f"{site}/admin/league/tournament/add/"
    for bad in [*(str(n) for n in HUGE), "-1", "²"]:
        form = {
            "csrfmiddlewaretoken": form_csrf(session, page),
            "name": "cup",
            "game": "love_letter",
            "format": "round_robin",
            "bots": [bad],
        }
        answer = session.post(page, data=form, headers={"Referer": page}, timeout=TIMEOUT, allow_redirects=False)
        assert answer.status_code == 200, (bad, answer.status_code)  # the admin shows the form again, with the error
        assert "is not a valid value" in answer.text, bad
    assert Tournament.objects.count() == 0


# ----- nesting --------------------------------------------------------------------------------------------------------


def nested(depth: int, kind: str = "array") -> str:
    if kind == "array":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def test_json_nested_10000_deep_is_a_400_naming_the_limit(site: str, staff: User) -> None:
    api = token_session(staff)
    headers = {"Content-Type": "application/json"}
    bodies = [nested(10_000), nested(10_000, "object"), "[" * 10_000, '{"name": ' + nested(10_000) + "}"]
    signed_in = log_in_for_api(site, staff.username, "correct horse battery")
    for url, client in (("/api/tokens/", signed_in), ("/api/challenges/", api), ("/api/tournaments/", api)):
        for body in bodies:
            error = assert_error(client.post(f"{site}{url}", data=body, headers=headers, timeout=TIMEOUT), 400)
            assert error["code"] == "parse_error" and f"deeper than {MAX_DEPTH} levels" in error["message"]
    # At the limit the body is read (and refused for what it says, not for its depth); one deeper is not read.
    at_limit = json.dumps({"name": json.loads(nested(MAX_DEPTH - 1))})
    assert_error(signed_in.post(f"{site}/api/tokens/", data=at_limit, headers=headers), 400, "name")
    past = json.dumps({"name": json.loads(nested(MAX_DEPTH))})
    answer = signed_in.post(f"{site}/api/tokens/", data=past, headers=headers)
    assert assert_error(answer, 400)["code"] == "parse_error"


def test_other_malformed_json_is_a_400(site: str, staff: User) -> None:
    api = log_in_for_api(site, staff.username, "correct horse battery")
    for body, content_type in [
        ("1" * 5000, "application/json"),  # more digits than Python reads
        ("[1e999]", "application/json"),
        ("NaN", "application/json"),
        ('{"name": "x"} trailing', "application/json"),
        (b'{"name": "\xff"}', "application/json"),
        ("   ", "application/json"),
        ('{"name": "\\ud800"}', "application/json"),  # half a surrogate pair: no character, not storable
        ('"' + "\\" * 10_001, "application/json"),  # an unterminated string of escapes: still one quick scan
        ('["' + '\\"' * 50_000 + "[" * 40, "application/json"),
    ]:
        answer = api.post(f"{site}/api/tokens/", data=body, headers={"Content-Type": content_type})
        assert assert_error(answer, 400)["code"] == "parse_error", body[:30]
    plain = api.post(f"{site}/api/tokens/", data="name=x", headers={"Content-Type": "text/plain"})
    assert assert_error(plain, 415)["code"] == "unsupported_media_type"
    empty = api.post(f"{site}/api/tokens/", data="", headers={"Content-Type": "application/json"})
    assert_error(empty, 400, "name")  # no body: no data, so the name is missing
    utf16 = api.post(
        f"{site}/api/tokens/",
        data='{"name": "wide"}'.encode("utf-16"),
        headers={"Content-Type": "application/json; charset=utf-16"},
    )
    assert utf16.status_code == 201 and utf16.json()["name"] == "wide"


# ----- Accept headers -------------------------------------------------------------------------------------------------


def test_every_get_of_the_schema_answers_json_whatever_the_accept_header(site: str, alice) -> None:
    user, _ = alice
    api = token_session(user)
    schema = requests.get(f"{site}/api/schema/?format=json", timeout=TIMEOUT).json()
    values = {"id": Bot.objects.get(owner=user).pk, "game": "love_letter"}
    urls = [
        site + re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), path)
        for path, operations in schema["paths"].items()
        if "get" in operations
    ]
    assert len(urls) >= 15, urls
    answered: dict[int, int] = {}
    for url in urls:
        for accept in ("text/html", "text/html,application/xhtml+xml", "application/xml", "image/png", "*/*;q=0"):
            answer = api.get(url, headers={"Accept": accept}, timeout=TIMEOUT)
            where = f"{url} Accept: {accept} → {answer.status_code}"
            assert answer.status_code < 500, where
            assert answer.headers["Content-Type"] == "application/json", where
            body = answer.json()
            if answer.status_code >= 400:
                assert_error(answer)
            else:
                assert "error" not in body, where
            answered[answer.status_code] = answered.get(answer.status_code, 0) + 1
        for fmt in ("api", "html", "yaml"):
            answer = api.get(url, params={"format": fmt}, timeout=TIMEOUT)
            assert answer.status_code < 500 and answer.headers["Content-Type"] == "application/json", (url, fmt)
    assert answered.get(200, 0) >= 5 * 10, answered  # the data itself, not only errors


# ----- paths and methods ----------------------------------------------------------------------------------------------

UNKNOWN = [
    "/api/nope/",
    "/api/nope",
    "/api/bots",
    "/api/bots/abc/",
    "/api/bots/-1/",
    "/api/bots/1.5/",
    "/api/bots/1/nope/",
    "/api/games/love_letter/nope/",
    "/api/games/NOPE/",
    "/api/leaderboards/",
    "/api/schema/nope/",
    "/api/docs/nope/",
    "/api/%ff/",
    "/api/" + "a/" * 500,
]


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])
def test_unknown_api_paths_are_404s_in_the_error_shape(site: str, settings, debug: bool) -> None:
    settings.DEBUG = debug
    stranger = requests.Session()
    for path in UNKNOWN:
        for method in ("GET", "POST", "DELETE", "PATCH"):
            answer = stranger.request(method, f"{site}{path}", json={"a": 1}, timeout=TIMEOUT, allow_redirects=False)
            error = assert_error(answer, 404)
            assert error["code"] == "not_found"
            assert "urlpatterns" not in answer.text and "URLconf" not in answer.text, path


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])
def test_methods_a_route_does_not_take_are_405s_in_the_error_shape(site: str, staff: User, settings, debug) -> None:
    settings.DEBUG = debug
    api = token_session(staff)
    bot = ready_bot(staff, "mine")
    for method, path in [
        ("DELETE", "/api/games/"),
        ("PUT", "/api/games/love_letter/"),
        ("POST", "/api/leaderboards/love_letter/"),
        ("PUT", f"/api/bots/{bot.pk}/"),
        ("DELETE", f"/api/bots/{bot.pk}/"),
        ("POST", "/api/me/"),
        ("PUT", "/api/tournaments/"),
        ("GET", f"/api/bots/{bot.pk}/disable/"),
        ("DELETE", "/api/matches/"),
        ("POST", "/api/schema/"),
        ("DELETE", "/api/"),
    ]:
        assert_error(api.request(method, f"{site}{path}", timeout=TIMEOUT), 405)


# ----- cursors --------------------------------------------------------------------------------------------------------


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def test_tampered_cursors_are_400s_naming_the_cursor(site: str) -> None:
    stranger = requests.Session()
    url = f"{site}/api/matches/"
    for cursor, ordering in [
        ("%%%", None),
        ("!!!", None),
        ("abc", None),  # not base64 (its length)
        ("é", None),
        (b64("x=1"), None),
        (b64("o=1&o=2"), None),
        (b64("o=-1"), None),
        (b64("o=²"), None),
        (b64("r=2"), None),
        (b64("p=yesterday"), None),
        (b64("p=2026-13-45 00:00:00"), None),
        (b64("p=abc"), "id"),
        (b64("p=²"), "-id"),
        (b64(f"p={2**64}"), "id"),
        (b64(b"p=\xff"), None),
        (b64("p=1") + "==", None),
        ("A" * 10_000, None),
    ]:
        params = {"cursor": cursor, **({"ordering": ordering} if ordering else {})}
        assert_error(stranger.get(url, params=params, timeout=TIMEOUT), 400, "cursor")
    # Hand-written but well-formed cursors are read: the 400s above are the tampering's.
    well_formed = [(b64(urlencode({"p": "2026-01-01 00:00:00+00:00"})), None), (b64("o=1&r=1&p=5"), "id"), ("", None)]
    for cursor, ordering in well_formed:
        answer = stranger.get(url, params={"cursor": cursor, "ordering": ordering}, timeout=TIMEOUT)
        assert answer.status_code == 200, (cursor, answer.text)


def test_a_real_cursor_still_pages(site: str) -> None:
    for seed in range(3):
        record_match("love_letter", players=2, seed=seed + 1)
    stranger = requests.Session()
    first = stranger.get(f"{site}/api/matches/?limit=2", timeout=TIMEOUT).json()
    second = stranger.get(first["next"], timeout=TIMEOUT).json()
    assert len(first["results"]) == 2 and len(second["results"]) == 1
    back = stranger.get(second["previous"], timeout=TIMEOUT).json()
    assert [m["id"] for m in back["results"]] == [m["id"] for m in first["results"]]
