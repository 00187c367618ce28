"""One owner's bots never meet in a rated game (docs/security.md, Bots that game the rules): the ladder's pairing and
settling, placement bursts, and rated tournaments (one bot per owner unless staff allow it). Built-in players are
nobody's: they meet anyone, each other included."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.test.utils import override_settings
from rest_framework.test import APIClient

from league.bots.models import Bot, BotVersion
from league.bots.services import do_create_bot, do_record_validation, do_register_builtin_bots
from league.core.errors import ServiceError
from league.ladder.pairing import Candidate, Policy, plan_tables
from league.ladder.scheduling import do_schedule_ladder
from league.ladder.settling import plan_settling_tables
from league.play.matches import do_claim_match
from league.play.models import Match, MatchSeries
from league.play.recording import do_record_match_result
from league.ratings.elo import PROVISIONAL_GAMES
from league.ratings.models import Rating
from league.tournaments.models import Entry, Round, Tournament
from league.tournaments.services import do_add_entry, do_create_tournament, do_start_tournament, do_update_tournament
from tests.results import runner_result

GAME = "love_letter"


def _owners_clash(seats: list[tuple[int, bool]]) -> bool:
    """Whether (owner id, is built-in) seats hold two bots of one owner (built-in players are nobody's)."""
    owners = Counter(owner for owner, builtin in seats if not builtin)
    return any(count > 1 for count in owners.values())


def _match_seats(match: Match) -> list[tuple[int, bool]]:
    return list(match.seats.values_list("bot_version__bot__owner_id", "bot_version__bot__is_builtin"))


# ----- pure pairing -------------------------------------------------------------------------------------------


def _candidates(owners: list[int | None], games: int = 0) -> list[Candidate]:
    rng = random.Random(len(owners))
    return [
        Candidate(bot_id=i, version=None, elo=rng.gauss(1500, 100), games=games, sigma=60.0, owner=owner)
        for i, owner in enumerate(owners)
    ]


@pytest.mark.parametrize("uncertainty", [True, False])
def test_planned_tables_never_hold_two_bots_of_one_owner(uncertainty: bool) -> None:
    policy = Policy(table_sizes=(2, 3, 4), uncertainty=uncertainty, max_in_flight=1_000)
    for seed in range(200):
        league = _candidates([1, 1, 1, 2, 2, 3, None, None])
        for table in plan_tables(league, 4, policy, random.Random(seed)):
            owners = [c.owner for c in table if c.owner is not None]
            assert len(owners) == len(set(owners)), [c.owner for c in table]


def test_settled_tables_never_hold_two_bots_of_one_owner_even_when_neighbours_share_one() -> None:
    policy = Policy(table_sizes=(2, 3), max_in_flight=1_000)
    for seed in range(200):
        # The three best bots are one owner's: every pair of neighbours at the top is theirs.
        league = _candidates([7, 7, 7, 8, 9, None], games=PROVISIONAL_GAMES + 10)
        for bot, elo in zip(league, [1900, 1890, 1880, 1500, 1400, 1300], strict=True):
            bot.elo = elo
        tables = plan_settling_tables(league, {}, 3, policy, random.Random(seed))
        assert tables
        for table in tables:
            owners = [c.owner for c in table if c.owner is not None]
            assert len(owners) == len(set(owners)), [c.owner for c in table]


def test_built_in_players_meet_each_other_and_one_owners_bots_alone_get_no_table() -> None:
    policy = Policy(table_sizes=(2,), max_in_flight=1_000)
    assert plan_tables(_candidates([None, None]), 1, policy, random.Random(1))  # nobody's: they may meet
    assert plan_tables(_candidates([5, 5, 5, 5]), 3, policy, random.Random(1)) == []
    league = _candidates([5, 5, 5, 5], games=PROVISIONAL_GAMES + 10)
    assert plan_settling_tables(league, {}, 3, policy, random.Random(1)) == []


# ----- the ladder ---------------------------------------------------------------------------------------------


def _ready_bot(owner: User, name: str) -> Bot:
    bot = do_create_bot(owner, GAME, name, b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    return bot


def _finish_queued() -> None:
    for match in Match.objects.filter(status=Match.Status.QUEUED).order_by("id"):
        do_claim_match(match.pk)
        seats = [{"rank": n + 1, "score": 0.0, "fault": None} for n in range(match.seats.count())]
        assert do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {"moves": []}, "wall_ms": 1}))


@pytest.mark.parametrize("matchmaking", ["settle", "uncertainty", "random"])
def test_the_ladder_never_seats_two_bots_of_one_owner(matchmaking: str, alice: User, bob: User) -> None:
    for name in "abc":
        _ready_bot(alice, name)
    for name in "de":
        _ready_bot(bob, name)
    do_register_builtin_bots([GAME])  # owned by the system user, but nobody's as far as pairing goes
    ladder = {GAME: {"table_sizes": [2, 3, 4], "series": 1, "matchmaking": matchmaking}}
    with override_settings(LADDER_GAMES=ladder, LADDER_WORKER_CAPACITY=6, LADDER_QUEUE_DEPTH=6):
        for round_ in range(12):
            do_schedule_ladder(random.Random(round_), games=[GAME])
            _finish_queued()
    tables = [_match_seats(match) for match in Match.objects.filter(kind=Match.Kind.LADDER)]
    assert len(tables) >= 30
    assert not [table for table in tables if _owners_clash(table)]
    assert any(sum(builtin for _owner, builtin in table) >= 2 for table in tables)  # built-ins meet each other
    owners = {owner for table in tables for owner, builtin in table if not builtin}
    assert owners == {alice.pk, bob.pk}  # both owners' bots still play


@pytest.mark.parametrize("matchmaking", ["settle", "uncertainty", "random"])
def test_one_owners_bots_alone_on_a_ladder_get_no_game(matchmaking: str, alice: User) -> None:
    for name in "abcd":
        _ready_bot(alice, name)
    with override_settings(LADDER_GAMES={GAME: {"table_sizes": [2, 3, 4], "matchmaking": matchmaking}}):
        assert do_schedule_ladder(random.Random(1), games=[GAME]) == []
    assert not Match.objects.exists()


def test_a_game_where_only_one_owner_has_bots_takes_no_share_of_the_workers(alice: User, bob: User) -> None:
    for name in "abcd":
        _ready_bot(alice, name)  # Love Letter: only Alice's bots
    ranczo = [do_create_bot(owner, "ranczo", "r", b"print('hi')\n", "bot.py") for owner in (alice, bob)]
    for bot in ranczo:
        do_record_validation(bot.versions.get().pk, True, "ok", "")
    games = {GAME: {"series": 1}, "ranczo": {"table_sizes": [2], "series": 1}}
    with override_settings(LADDER_GAMES=games, LADDER_WORKER_CAPACITY=1, LADDER_QUEUE_DEPTH=1):
        for seed in range(8):  # whichever game the shuffle puts first, the one share goes to the game that can play
            (match,) = do_schedule_ladder(random.Random(seed), games=[GAME, "ranczo"])
            assert match.game == "ranczo"
            Match.objects.update(status=Match.Status.FINISHED)


# ----- placement ----------------------------------------------------------------------------------------------


def _ready(owner: User, name: str, builtin: bool = False) -> Bot:
    """A ready bot on the ladder (a built-in random player's version: placement only seats it)."""
    bot = Bot.objects.create(owner=owner, game=GAME, name=name, is_builtin=builtin)
    Rating.objects.create(bot=bot)
    BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
    return bot


def test_a_placement_never_seats_its_owners_other_bot_nor_two_bots_of_another_owner(
    settings, alice: User, bob: User
) -> None:
    house = User.objects.create(username="house")
    # Unrated, the board is in id order: [bob's first, house, alice's old bot, bob's second, house]. Today's spread
    # over a board of five meets every position, and its three-seat tables take positions (0, 3) and (1, 4).
    first = _ready(bob, "first")
    _ready(house, "house0", builtin=True)
    old = _ready(alice, "old")
    second = _ready(bob, "second")
    _ready(house, "house1", builtin=True)
    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 30, 6
    settings.LADDER_GAMES = {GAME: {"table_sizes": [2, 3]}}
    new = do_create_bot(alice, GAME, "new", b"print('hi')\n", "bot.py")
    do_record_validation(new.versions.get().pk, True, "ok", "")

    series = list(MatchSeries.objects.filter(placing_version__bot=new))
    assert len(series) == 5 and Match.objects.filter(kind=Match.Kind.PLACEMENT).count() == 30
    met: set[int] = set()
    for one in series:
        for match in one.matches.all():
            bots = list(match.seats.values_list("bot_version__bot_id", flat=True))
            assert old.pk not in bots, "the owner's other bot is never its opponent"
            assert not {first.pk, second.pk} <= set(bots), "nor two bots of one other owner at one table"
            met |= set(bots)
    assert {first.pk, second.pk} <= met  # bob's bots are still met, one at a time


def test_no_placement_when_only_the_owners_own_bots_are_on_the_ladder(settings, alice: User) -> None:
    _ready(alice, "old")
    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 30, 6
    new = do_create_bot(alice, GAME, "new", b"print('hi')\n", "bot.py")
    do_record_validation(new.versions.get().pk, True, "ok", "")
    assert not Match.objects.exists()


# ----- rated tournaments --------------------------------------------------------------------------------------


@pytest.fixture
def staff(db) -> User:
    return User.objects.create_user("staff", "staff@example.org", is_staff=True, is_superuser=True)


@pytest.fixture
def entrants(alice: User, bob: User) -> list[Bot]:
    """Alice's two bots, Bob's one and two built-in players (one owner: the league)."""
    house = User.objects.create(username="house")
    return [
        _ready(alice, "a1"),
        _ready(alice, "a2"),
        _ready(bob, "b1"),
        _ready(house, "h1", builtin=True),
        _ready(house, "h2", builtin=True),
    ]


def test_a_rated_tournament_refuses_a_second_bot_of_one_owner(staff: User, entrants: list[Bot]) -> None:
    a1, a2, b1, h1, h2 = entrants
    with pytest.raises(ServiceError) as refused:
        do_create_tournament(staff, GAME, "Cup", "round_robin", {}, entrants, rated=True)
    assert refused.value.code == "same_owner" and "alice/a1, alice/a2" in refused.value.message
    assert not Tournament.objects.exists()
    # Built-in players may enter together; one bot of each owner is fine.
    cup = do_create_tournament(staff, GAME, "Cup", "swiss", {}, [a1, b1, h1, h2], rated=True)
    with pytest.raises(ServiceError, match="one bot per owner"):
        do_add_entry(cup, a2)
    with pytest.raises(ServiceError, match="one bot per owner"):
        do_update_tournament(cup, bots=[a1, a2, b1])
    assert set(cup.entries.values_list("bot_id", flat=True)) == {a1.pk, b1.pk, h1.pk, h2.pk}  # unchanged
    # Unrated: anyone may enter; making it rated afterwards is refused while two of one owner are in.
    friendly = do_create_tournament(staff, GAME, "Friendly", "round_robin", {}, entrants)
    with pytest.raises(ServiceError, match="one bot per owner"):
        do_update_tournament(friendly, rated=True)
    friendly.refresh_from_db()
    assert not friendly.rated
    do_start_tournament(friendly)


def test_staff_can_let_one_owners_bots_meet_in_a_rated_tournament(staff: User, entrants: list[Bot]) -> None:
    cup = do_create_tournament(staff, GAME, "Cup", "round_robin", {}, entrants, rated=True, allow_same_owner=True)
    do_start_tournament(cup)
    a1, a2 = (Entry.objects.get(tournament=cup, bot=bot).pk for bot in entrants[:2])
    tables = [table["entries"] for round_ in Round.objects.filter(tournament=cup) for table in round_.plan["tables"]]
    assert [a1, a2] in [sorted(table) for table in tables]  # they meet, and the game is rated
    # Turning the permission off again is refused while they are both in (and a started one cannot change).
    draft = do_create_tournament(staff, GAME, "Cup 2", "swiss", {}, entrants, rated=True, allow_same_owner=True)
    with pytest.raises(ServiceError, match="one bot per owner"):
        do_update_tournament(draft, allow_same_owner=False)


def test_the_admin_and_the_api_refuse_a_second_bot_of_one_owner_in_a_rated_tournament(
    staff: User, entrants: list[Bot]
) -> None:
    client = Client()
    client.force_login(staff)
    form = {"name": "Cup", "game": GAME, "format": "round_robin", "rated": "on", "bots": [b.pk for b in entrants]}
    page = client.post("/admin/league/tournament/add/", form)
    assert page.status_code == 200 and "one bot per owner" in page.content.decode()
    assert not Tournament.objects.exists()
    page = client.post("/admin/league/tournament/add/", {**form, "allow_same_owner": "on"})
    assert page.status_code == 302
    assert Tournament.objects.get().allow_same_owner

    api = APIClient()
    api.force_authenticate(staff)
    body = {"name": "Cup", "game": GAME, "format": "round_robin", "rated": True, "bots": [b.pk for b in entrants]}
    answer = api.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "same_owner", answer.json()
