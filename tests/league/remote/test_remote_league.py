"""A remote bot in the league (docs/remote.md): scheduled only while connected, paused when it keeps dropping,
created and given its token through the API, marked remote on its pages and in the API, not seated in a tournament's
games while offline. Real Redis for presence."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from bots import remote
from league.bots.models import Bot, BotVersion
from league.bots.services import do_add_version, do_create_remote_bot, do_register_builtin_bots, do_resume_bot
from league.challenges.services import do_create_challenge
from league.core.errors import BotUnavailable, RemoteBotHasNoCode
from league.ladder.scheduling import do_schedule_ladder, ladder_bots
from league.play.models import Match, Seat
from league.remote.models import RemoteToken
from league.remote.services import authenticate, do_connected
from league.tournaments.admin import entrant_label
from league.tournaments.models import Tournament
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.conftest import EXAMPLE_BOT
from tests.league.tournaments.tournament_helpers import by_strength, make_bots, play_out
from tests.real_redis import cleaned_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def presence() -> Iterator[redis.Redis]:
    yield from cleaned_client(remote.PREFIX)


def _ready_remote_bot(owner: User, name: str = "far") -> Bot:
    bot = do_create_remote_bot(owner, "love_letter", name)
    bot.versions.update(status=BotVersion.Status.READY, validated=timezone.now())
    return bot


def _connect(client: redis.Redis, bot: Bot) -> None:
    client.set(remote.conn_key(bot.pk), "test", ex=remote.PRESENCE_TTL_S)


def test_an_offline_remote_bot_is_not_scheduled_and_an_online_one_is(alice: User, presence: redis.Redis, sent) -> None:
    do_register_builtin_bots(["love_letter"])
    bot = _ready_remote_bot(alice)
    assert bot not in ladder_bots(["love_letter"])
    for _ in range(5):
        do_schedule_ladder(random.Random(3), games=["love_letter"])
    assert not Seat.objects.filter(bot_version__bot=bot).exists()
    Match.objects.all().delete()  # (the queue is full of the others' games: empty it for the next round)
    _connect(presence, bot)
    assert bot in ladder_bots(["love_letter"])
    for seed in range(20):
        do_schedule_ladder(random.Random(seed), games=["love_letter"])
        if Seat.objects.filter(bot_version__bot=bot).exists():
            break
    assert Seat.objects.filter(bot_version__bot=bot).exists()


def test_an_offline_remote_bot_cannot_be_challenged(alice: User, bob: User, presence: redis.Redis, sent) -> None:
    do_register_builtin_bots(["love_letter"])
    far = _ready_remote_bot(bob)
    mine = do_create_remote_bot(alice, "love_letter", "mine")
    mine.versions.update(status=BotVersion.Status.READY)
    _connect(presence, mine)
    with pytest.raises(BotUnavailable, match="not connected"):
        do_create_challenge(alice, mine.pk, [far.pk], 2)
    _connect(presence, far)
    assert do_create_challenge(alice, mine.pk, [far.pk], 2).pk


def test_a_bot_that_keeps_dropping_is_paused_and_its_owner_resumes_it(
    alice: User, presence: redis.Redis, sent, settings
) -> None:
    settings.REMOTE_DROPS_PER_HOUR = 3
    bot = _ready_remote_bot(alice)
    now = time.time()
    presence.zadd(remote.drops_key(bot.pk), {f"drop{n}": now - n for n in range(3)})
    do_connected(bot.pk)
    assert Bot.objects.get(pk=bot.pk).paused_at is None  # three is the limit, not past it
    presence.zadd(remote.drops_key(bot.pk), {"drop3": now})
    do_connected(bot.pk)
    paused = Bot.objects.get(pk=bot.pk)
    assert paused.paused_at is not None and "dropped 4 times" in paused.paused_reason
    assert paused not in ladder_bots(["love_letter"])
    do_resume_bot(paused, alice)
    do_connected(bot.pk)  # the drops before the resume are forgiven
    assert Bot.objects.get(pk=bot.pk).paused_at is None


def test_a_remote_bot_has_no_code_to_upload(alice: User, sent) -> None:
    bot = do_create_remote_bot(alice, "love_letter", "far")
    with pytest.raises(RemoteBotHasNoCode):
        do_add_version(bot, EXAMPLE_BOT, "main.py")


def test_the_api_creates_a_remote_bot_issues_and_revokes_its_token(alice_api: APIClient, bob_api: APIClient, sent):
    created = alice_api.post("/api/bots/", {"game": "love_letter", "name": "far", "remote": True}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["is_remote"] and body["versions"][0]["remote"] and body["online"] is False
    bot_id = body["id"]
    assert bob_api.post(f"/api/bots/{bot_id}/remote-token/").status_code == 403
    issued = alice_api.post(f"/api/bots/{bot_id}/remote-token/")
    assert issued.status_code == 201 and issued["Cache-Control"].startswith("private")
    key = issued.json()["key"]
    assert authenticate(key) == bot_id
    assert alice_api.delete(f"/api/bots/{bot_id}/remote-token/").status_code == 204
    with pytest.raises(Exception, match="revoked"):
        authenticate(key)
    listed = alice_api.get("/api/bots/?game=love_letter").json()["results"]
    assert [row["is_remote"] for row in listed if row["id"] == bot_id] == [True]


def test_the_api_refuses_a_bot_with_both_or_neither_file_and_remote(alice_api: APIClient, sent) -> None:
    neither = alice_api.post("/api/bots/", {"game": "love_letter", "name": "x"}, format="json")
    assert neither.status_code == 400 and neither.json()["error"]["code"] == "invalid"


def test_the_bot_page_says_remote_and_whether_it_is_connected(alice: User, presence: redis.Redis, sent) -> None:
    bot = _ready_remote_bot(alice)
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    assert "data-remote" in page and "offline" in page and "data-connect" not in page  # (not its owner)
    _connect(presence, bot)
    owner = Client()
    owner.force_login(alice)
    page = owner.get(f"/bots/{bot.pk}/").content.decode()
    assert "online" in page and "data-connect" in page
    assert settings.REDIS_URL


def test_the_site_creates_a_remote_bot_and_issues_and_revokes_its_token(alice: User, bob: User, sent) -> None:
    owner = Client(enforce_csrf_checks=True)
    owner.force_login(alice)
    form = owner.get("/bots/new/").content.decode()
    assert 'value="remote"' in form
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
    fields = {"game": "love_letter", "name": "far", "runs": "remote", "csrfmiddlewaretoken": token}
    with_file = owner.post("/bots/new/", {**fields, "file": SimpleUploadedFile("bot.py", EXAMPLE_BOT)})
    assert with_file.status_code == 400 and "has no file here" in with_file.content.decode()
    created = owner.post("/bots/new/", fields)
    bot = Bot.objects.get(owner=alice, name="far")
    assert created.status_code == 302 and created["Location"] == f"/bots/{bot.pk}/#connect"
    assert bot.is_remote and bot.versions.get().remote  # do_create_remote_bot's bot, as through the API

    assert owner.post(f"/bots/{bot.pk}/remote-token/", {"action": "issue"}).status_code == 403  # no CSRF token
    nothing = owner.post(f"/bots/{bot.pk}/remote-token/", {"csrfmiddlewaretoken": token})  # no action: none done
    assert nothing.status_code == 302 and not RemoteToken.objects.filter(bot=bot).exists()
    issued = owner.post(f"/bots/{bot.pk}/remote-token/", {"action": "issue", "csrfmiddlewaretoken": token})
    page = issued.content.decode()
    key = re.search(r"id=\"remote-key\">(prb_[^<]+)<", page).group(1)  # type: ignore[union-attr]
    assert issued.status_code == 200 and "no-store" in issued["Cache-Control"]
    assert f"python -m bots connect --token {key} --url http://testserver path/to/bot" in page
    assert "shown this once" in page and "revokes this one" in page
    assert authenticate(key) == bot.pk
    assert key not in owner.get(f"/bots/{bot.pk}/").content.decode()  # shown once
    revoked = owner.post(f"/bots/{bot.pk}/remote-token/", {"action": "revoke", "csrfmiddlewaretoken": token})
    assert revoked.status_code == 302
    with pytest.raises(Exception, match="revoked"):
        authenticate(key)

    other = Client()
    other.force_login(bob)
    assert other.post(f"/bots/{bot.pk}/remote-token/", {"action": "issue"}).status_code == 403
    assert "data-connect" not in other.get(f"/bots/{bot.pk}/").content.decode()


def test_a_tournament_does_not_seat_an_offline_remote_bot_and_says_why(
    alice: User, presence: redis.Redis, sent
) -> None:
    staff = User.objects.create_user("staff", is_staff=True)
    bots = [*make_bots(None, "love_letter", 3), _ready_remote_bot(alice)]
    far = bots[3]
    tournament = do_create_tournament(staff, "love_letter", "RR", "round_robin", {"games_per_pairing": 1}, bots)
    do_start_tournament(tournament)  # round 1 is made while the remote bot is offline
    entry = tournament.entries.get(bot=far)
    (table,) = [t for t in tournament.rounds.get(number=1).plan["tables"] if entry.pk in t["entries"]]
    assert table["offline"] == [entry.pk] and table["absent"] == [entry.pk] and table["walkover"]
    assert not Seat.objects.filter(bot_version__bot=far).exists()
    # Where the rounds are listed (the page, the API): it was not seated because it was offline, not a forfeit.
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert page.count("data-offline") == 1
    rounds = APIClient().get(f"/api/tournaments/{tournament.pk}/rounds/").json()["results"]
    assert [t["offline"] for t in rounds[0]["tables"] if entry.pk in t["entries"]] == [[entry.pk]]

    _connect(presence, far)  # online for the next rounds: seated as any entrant
    tournament = play_out(tournament, by_strength({bot.name: -index for index, bot in enumerate(bots)}))
    assert tournament.status == Tournament.Status.FINISHED
    assert Seat.objects.filter(bot_version__bot=far, match__round__tournament=tournament).count() == 2
    assert not tournament.entries.get(pk=entry.pk).forfeited
    opponent = next(e for e in table["entries"] if e != entry.pk)
    assert tournament.entries.get(pk=opponent).games == 3  # the walkover counts as its game against the absent one


def test_an_offline_remote_bot_cannot_win_a_knockout_series_it_is_not_seated_in(
    alice: User, presence: redis.Redis, sent
) -> None:
    staff = User.objects.create_user("staff", is_staff=True)
    far = _ready_remote_bot(alice)
    bots = [far, *make_bots(None, "love_letter", 3)]  # (far has no Elo yet: it is seeded last, against the first)
    tournament = do_create_tournament(staff, "love_letter", "KO", "knockout", {"best_of": 3}, bots)
    do_start_tournament(tournament)
    entry = tournament.entries.get(bot=far)
    (table,) = [t for t in tournament.rounds.get(number=1).plan["tables"] if entry.pk in t["entries"]]
    assert table["offline"] == [entry.pk] and entry.pk not in table["advancers"] and len(table["advancers"]) == 1
    assert tournament.entries.get(pk=entry.pk).eliminated_in == 1
    _connect(presence, far)  # too late: the series went to the one that was there
    tournament = play_out(tournament, by_strength({bot.name: -index for index, bot in enumerate(bots)}))
    assert tournament.status == Tournament.Status.FINISHED
    assert not Seat.objects.filter(bot_version__bot=far).exists()


def test_staff_see_whether_a_remote_entrant_is_connected(alice: User, presence: redis.Redis, sent) -> None:
    far = _ready_remote_bot(alice)
    assert entrant_label(far, online=False).endswith("remote, offline now: not seated while offline")
    staff = User.objects.create_user("staff", is_staff=True, is_superuser=True)
    tournament = do_create_tournament(
        staff, "love_letter", "RR", "round_robin", {}, [far, *make_bots(None, "love_letter", 1)]
    )
    admin = Client()
    admin.force_login(staff)
    page = admin.get(f"/admin/league/tournament/{tournament.pk}/change/").content.decode()
    assert "remote, offline now: not seated while offline" in page  # the draft's entrant picker
    do_start_tournament(tournament)
    page = admin.get(f"/admin/league/tournament/{tournament.pk}/change/").content.decode()
    assert "remote, offline: not seated while offline" in page  # the running tournament's entries
    _connect(presence, far)
    page = admin.get(f"/admin/league/tournament/{tournament.pk}/change/").content.decode()
    assert "remote, offline" not in page and "remote, online" in page
