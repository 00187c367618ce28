"""Hidden information and visibility, attacked over real sockets (docs/security.md, same heading).

A match's seed fixes every seat's hand, so while a deal is being played its seed, replay and frames must reach no
one: not the API (matches, a tournament's rounds, a challenge), not the match page, not the admin. Drafts are staff's
alone, on the site and the API alike. Owners' data and new keys carry Cache-Control private / no-store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import requests
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied

from games.frames import expand_views
from games.registry import get_game
from league.accounts.tokens import do_create_token
from league.bots.models import Bot, BotVersion
from league.bots.services import do_create_bot, do_record_validation, do_register_builtin_bots
from league.challenges.services import do_create_challenge
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.site import visibility
from league.tournaments.models import Tournament
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.browser.recorded import play_replay
from tests.conftest import EXAMPLE_BOT
from tests.results import runner_result
from tests.security.conftest import form_csrf, log_in, log_in_for_api

GAME = "love_letter"
PASSWORD = "correct horse battery"


def _house(*names: str) -> list[BotVersion]:
    do_register_builtin_bots([GAME])
    return [Bot.objects.get(game=GAME, name=name, is_builtin=True).current_version() for name in names]


def _finish(match: Match) -> None:
    """Record ``match`` as played: a real game of its seed by the built-in players, through the league's service."""
    do_claim_match(match.pk)
    names = ["random"] * match.seats.count()
    assert do_record_match_result(match.pk, runner_result(play_replay(GAME, names, match.seed)))


def _token(username: str, **flags: Any) -> dict[str, str]:
    user = User.objects.create_user(username, f"{username}@example.org", PASSWORD, **flags)
    return {"Authorization": f"Token {do_create_token(user, 'attack')[1]}"}


def _get(session: requests.Session, url: str, **kwargs: Any) -> requests.Response:
    return session.get(url, timeout=10, allow_redirects=False, **kwargs)


def _match_in(listing: dict[str, Any], match: Match) -> dict[str, Any]:
    return next(row for row in listing["results"] if row["id"] == match.pk)


# ----- why: the seed is the hidden information ---------------------------------------------------------------------


def test_a_matchs_seed_gives_away_every_seats_hidden_hand(site: str, stranger: requests.Session) -> None:
    """The leak that hiding is for: from the seed alone, the engine deals the hands no spectator is shown."""
    match = do_create_match(GAME, _house("random", "heuristic"))
    _finish(match)
    seed = _get(stranger, f"{site}/api/matches/{match.pk}/").json()["seed"]
    assert seed == match.seed
    spectator = expand_views(_get(stranger, f"{site}/api/matches/{match.pk}/frames/").json())[0]
    assert "hand" not in spectator and "hands" not in spectator  # the public view hides the hands ...
    dealt = get_game(GAME).new_state(2, seed)
    for seat in range(2):
        seen = expand_views(_get(stranger, f"{site}/api/matches/{match.pk}/frames/?seat={seat}").json())[0]
        assert seen["hand"] == dealt.observation(seat)["hand"]  # ... and the seed alone deals them


# ----- a deal in play shows no seed, replay or frames -------------------------------------------------------------


@pytest.mark.parametrize("status", ["queued", "running"])
def test_an_unfinished_matchs_seed_reaches_no_one(
    site: str, stranger: requests.Session, signed_in: Callable[[str], requests.Session], status: str
) -> None:
    match = do_create_match(GAME, _house("random", "heuristic"), seed=1_234_567_891)
    if status == "running":
        do_claim_match(match.pk)
    secret = str(match.seed)
    mallory = signed_in("mallory")
    for who in (stranger, mallory):
        detail = _get(who, f"{site}/api/matches/{match.pk}/")
        assert detail.status_code == 200 and detail.json()["status"] == status
        assert detail.json()["seed"] is None and secret not in detail.text
        listing = _get(who, f"{site}/api/matches/?status={status}")
        assert _match_in(listing.json(), match)["seed"] is None and secret not in listing.text
        page = _get(who, f"{site}/matches/{match.pk}/")
        assert page.status_code == 200 and secret not in page.text and "seed" not in page.text
        for endpoint in ("replay/", "frames/", "frames/?seat=0"):
            answer = _get(who, f"{site}/api/matches/{match.pk}/{endpoint}")
            assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_ready"
            assert secret not in answer.text
    # The admin is staff's: a signed-in stranger is sent to its login page, the seed unseen.
    admin = _get(mallory, f"{site}/admin/league/match/{match.pk}/change/")
    assert admin.status_code == 302 and "/admin/login/" in admin.headers["Location"] and secret not in admin.text


def test_a_finished_matchs_seed_and_replay_are_public(site: str, stranger: requests.Session) -> None:
    match = do_create_match(GAME, _house("random", "heuristic"), seed=1_234_567_892)
    _finish(match)
    assert _get(stranger, f"{site}/api/matches/{match.pk}/").json()["seed"] == match.seed
    assert _match_in(_get(stranger, f"{site}/api/matches/?status=finished").json(), match)["seed"] == match.seed
    assert f"seed {match.seed}" in _get(stranger, f"{site}/matches/{match.pk}/").text
    replay = _get(stranger, f"{site}/api/matches/{match.pk}/replay/")
    assert replay.status_code == 200 and replay.json()["seed"] == match.seed
    assert "public" in replay.headers["Cache-Control"]


def test_a_tournaments_deals_stay_hidden_until_every_seating_of_them_is_played(
    site: str, stranger: requests.Session
) -> None:
    """Duplicate: both seatings of one deal share its seed, so the first one played must not show it either."""
    staff = User.objects.create_user("staff", password=PASSWORD, is_staff=True)
    bots = [version.bot for version in _house("random", "heuristic")]
    cup = do_create_tournament(staff, GAME, "Cup", "round_robin", {"duplicate": True}, bots)
    cup = do_start_tournament(cup)
    first, second = Match.objects.filter(round__tournament=cup).order_by("id")
    assert first.seed == second.seed and Match.objects.filter(round__tournament=cup).count() == 2

    def seeds_shown() -> tuple[list[int | None], str]:
        rounds = _get(stranger, f"{site}/api/tournaments/{cup.pk}/rounds/")
        detail = _get(stranger, f"{site}/api/tournaments/{cup.pk}/")
        shown = [m["seed"] for r in rounds.json()["results"] for t in r["tables"] for m in t["matches"]]
        assert str(cup.seed) not in rounds.text + detail.text  # the tournament's own seed: never published
        return shown, rounds.text + detail.text

    shown, text = seeds_shown()
    assert shown == [None, None] and str(first.seed) not in text
    _finish(first)  # one seating played, the other still to play: its replay would show the other's hands
    shown, text = seeds_shown()
    assert shown == [None, None] and str(first.seed) not in text
    assert _get(stranger, f"{site}/api/matches/{first.pk}/").json()["seed"] is None
    assert _get(stranger, f"{site}/api/matches/{first.pk}/replay/").status_code == 409
    assert "Moves" in (page := _get(stranger, f"{site}/matches/{first.pk}/").text) and "move-1" not in page
    _finish(second)
    shown, _text = seeds_shown()
    assert shown == [first.seed, first.seed]
    assert _get(stranger, f"{site}/api/matches/{first.pk}/replay/").status_code == 200


def test_a_challenges_seed_and_its_deals_stay_hidden_until_played(site: str, stranger: requests.Session) -> None:
    owner = User.objects.create_user("olive", password=PASSWORD)
    bot = do_create_bot(owner, GAME, "mine", EXAMPLE_BOT, "bot.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    (opponent,) = _house("random")
    challenge = do_create_challenge(owner, bot.pk, [opponent.bot_id], 4)
    matches = list(challenge.matches.order_by("id"))
    assert len({m.seed for m in matches}) == 2  # two deals, each played from both seats
    assert all(m.seed - challenge.seed not in range(4) for m in matches)  # derived one way, not by counting

    def shown() -> str:
        text = _get(stranger, f"{site}/api/challenges/{challenge.pk}/").text
        text += _get(stranger, f"{site}/challenges/{challenge.pk}/").text
        return text + _get(stranger, f"{site}/api/matches/?kind=challenge").text

    assert not any(str(seed) in shown() for seed in (challenge.seed, *(m.seed for m in matches)))
    first = matches[0]
    (sibling,) = [m for m in matches[1:] if m.seed == first.seed]  # the same deal from the other seat
    other = next(m for m in matches if m.seed != first.seed)
    _finish(first)  # its deal is still to be played from the other seat
    assert str(first.seed) not in shown()
    _finish(sibling)
    text = shown()
    assert str(first.seed) in text and str(other.seed) not in text and str(challenge.seed) not in text


# ----- drafts are staff's ------------------------------------------------------------------------------------------


def test_a_draft_tournament_is_staffs_alone(
    site: str, stranger: requests.Session, signed_in: Callable[[str], requests.Session]
) -> None:
    bots = [version.bot for version in _house("random", "heuristic")]
    User.objects.create_user("staff", password=PASSWORD, is_staff=True)
    draft = do_create_tournament(None, GAME, "Secret draft cup", "round_robin", {}, bots)
    shown = do_start_tournament(do_create_tournament(None, GAME, "Open cup", "round_robin", {}, bots))
    mallory_api = requests.Session()
    mallory_api.headers.update(_token("mallory_api"))
    staff_api = requests.Session()
    staff_api.headers.update(_token("staff_api", is_staff=True))
    for who in (stranger, signed_in("mallory"), mallory_api):
        listing = _get(who, f"{site}/api/tournaments/")
        assert [row["id"] for row in listing.json()["results"]] == [shown.pk]
        assert "Secret draft cup" not in listing.text
        assert "Secret draft cup" not in _get(who, f"{site}/tournaments/").text
        assert _get(who, f"{site}/api/tournaments/?status=draft").json()["results"] == []
        for path in ("", "rounds/", "standings/"):
            answer = _get(who, f"{site}/api/tournaments/{draft.pk}/{path}")
            assert answer.status_code == 404 and "Secret draft cup" not in answer.text
        assert _get(who, f"{site}/tournaments/{draft.pk}/").status_code == 404
    staff_page = log_in(site, "staff", PASSWORD)
    assert "Secret draft cup" in _get(staff_page, f"{site}/tournaments/").text
    assert _get(staff_page, f"{site}/tournaments/{draft.pk}/").status_code == 200
    listing = _get(staff_api, f"{site}/api/tournaments/")
    assert {row["id"] for row in listing.json()["results"]} == {draft.pk, shown.pk}
    assert _get(staff_api, f"{site}/api/tournaments/{draft.pk}/").json()["status"] == Tournament.Status.DRAFT


# ----- caches: owners' data is private, a new key is stored nowhere ------------------------------------------------


def _directives(response: requests.Response) -> set[str]:
    return {part.strip() for part in response.headers.get("Cache-Control", "").split(",") if part.strip()}


def test_owner_data_is_private_and_a_new_key_is_never_stored(
    site: str, stranger: requests.Session, signed_in: Callable[[str], requests.Session]
) -> None:
    api = requests.Session()
    api.headers.update(_token("olive"))
    owner = User.objects.get(username="olive")
    bot = do_create_bot(owner, GAME, "mine", EXAMPLE_BOT, "bot.py")
    do_record_validation(bot.versions.get().pk, False, "crashed", "OLIVE-STDERR")

    assert "private" in _directives(_get(api, f"{site}/api/me/"))
    assert "private" in _directives(_get(api, f"{site}/api/tokens/"))
    mine = _get(api, f"{site}/api/bots/{bot.pk}/")
    assert "OLIVE-STDERR" in mine.text and "private" in _directives(mine)
    public = _get(stranger, f"{site}/api/bots/{bot.pk}/")
    assert "OLIVE-STDERR" not in public.text and "private" not in _directives(public)
    created = log_in_for_api(site, "olive", PASSWORD).post(f"{site}/api/tokens/", json={"name": "ci"}, timeout=10)
    assert created.status_code == 201 and {"no-store", "private"} <= _directives(created)

    # The site: the token page that shows a new key, and the owner's fault view of a match.
    session = signed_in("mallory")
    page = f"{site}/account/tokens/"
    csrf = form_csrf(session, page)
    made = session.post(
        page, data={"name": "laptop", "csrfmiddlewaretoken": csrf}, headers={"Referer": page}, timeout=10
    )
    assert "Token created" in made.text or "laptop" in made.text
    assert made.status_code == 200 and "no-store" in _directives(made)
    match = do_create_match(GAME, [bot.versions.get(), *_house("random")])
    do_claim_match(match.pk)
    do_record_match_result(match.pk, runner_result(play_replay(GAME, ["random", "random"], match.seed)))
    owner_page = log_in(site, "olive", PASSWORD)
    fault_view = _get(owner_page, f"{site}/matches/{match.pk}/")
    assert "only you can see this" in fault_view.text and "private" in _directives(fault_view)
    assert "private" not in _directives(_get(stranger, f"{site}/matches/{match.pk}/"))


@pytest.mark.django_db
def test_an_action_for_the_signed_in_refuses_an_anonymous_user() -> None:
    """visibility.signed_in, what views behind login_required or IsAuthenticated hand to the services: should a view
    lose its guard, an anonymous request is refused (a 403), never acted on as nobody."""
    user = User.objects.create_user("ada", password=PASSWORD)
    assert visibility.signed_in(user) is user
    with pytest.raises(PermissionDenied):
        visibility.signed_in(AnonymousUser())
