from __future__ import annotations

import io
import random
import zipfile
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from games.registry import GAMES
from league.accounts.tokens import do_create_token, do_revoke_token, hash_token
from league.bots.models import Bot, BotVersion
from league.bots.services import do_add_version, do_create_bot, do_record_validation, do_register_builtin_bots
from league.bots.validation import do_claim_version
from league.core.errors import ServiceError
from league.ladder.scheduling import do_schedule_ladder
from league.play.matches import do_claim_match, do_create_match, do_release_match, do_requeue_stale_matches
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.ratings.models import Rating, RatingChange
from league.ratings.recompute import do_recompute_ratings
from tests.results import runner_result


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _ready_bot(owner, name: str, game: str = "love_letter") -> Bot:
    bot = do_create_bot(owner, game, name, b"print('hi')\n", "bot.py")
    version = bot.versions.get()
    do_record_validation(version.pk, True, "ok", "")
    return bot


def _result(ranks: list[int], faults: list[dict | None] | None = None) -> dict:
    faults = faults or [None] * len(ranks)
    return {
        "seats": [
            {"rank": rank, "score": float(-rank), "fault": fault, "stderr": "log", "moves": 3, "time_ms": 5}
            for rank, fault in zip(ranks, faults, strict=True)
        ],
        "replay": {"format": "parlour-replay/1", "moves": []},
        "wall_ms": 42,
    }


def test_it_creates_a_bot_with_a_pending_first_version(alice) -> None:
    bot = do_create_bot(alice, "love_letter", "first", b"print('hi')\n", "bot.py")
    version = bot.versions.get()
    assert (version.number, version.status, version.language) == (1, BotVersion.Status.PENDING, "python")
    assert Rating.objects.get(bot=bot).elo == 1500


@pytest.mark.parametrize(
    ("data", "filename", "message"),
    [
        (b"\x00\x01garbage", "bot.exe", "a single Python file"),
        (b"not a zip at all", "bot.zip", "not a valid zip"),
        (_zip({"helper.py": b"x = 1"}), "bot.zip", "no entry point"),
        (_zip({"../evil.py": b"x", "main.py": b""}), "bot.zip", "'..'"),
        (_zip({"/etc/evil.py": b"x", "main.py": b""}), "bot.zip", "absolute paths"),
        (b"x" * (1024 * 1024 + 1), "bot.py", "the limit is"),
        (_zip({"main.py": b"0" * (11 * 1024 * 1024)}), "bot.zip", "unpacks to more than"),
        (b"", "bot.py", "empty"),
    ],
)
def test_it_refuses_bad_uploads_and_stores_nothing(alice, data: bytes, filename: str, message: str) -> None:
    with pytest.raises(ServiceError, match=message) as error:
        do_create_bot(alice, "love_letter", "bad", data, filename)
    assert error.value.status == 400
    assert not Bot.objects.exists() and not BotVersion.objects.exists()


def test_it_refuses_symlinks_in_a_zip(alice) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", b"")
        link = zipfile.ZipInfo("secret")
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/shadow")
    with pytest.raises(ServiceError, match="symbolic links"):
        do_create_bot(alice, "love_letter", "bad", buffer.getvalue(), "bot.zip")


def test_a_duplicate_bot_name_is_a_conflict(alice) -> None:
    do_create_bot(alice, "love_letter", "twin", b"pass\n", "bot.py")
    with pytest.raises(ServiceError) as error:
        do_create_bot(alice, "love_letter", "twin", b"pass\n", "bot.py")
    assert error.value.status == 409


def test_an_unknown_game_is_refused(alice) -> None:
    with pytest.raises(ServiceError, match="no game called"):
        do_create_bot(alice, "chess", "x", b"pass\n", "bot.py")


def test_new_versions_are_numbered_in_order(alice) -> None:
    bot = do_create_bot(alice, "love_letter", "v", b"pass\n", "bot.py")
    assert do_add_version(bot, b"pass\n", "bot.py").number == 2
    assert do_add_version(bot, _zip({"main.py": b"pass\n"}), "bot.zip").number == 3


def test_a_validation_is_recorded_once(alice) -> None:
    version = do_create_bot(alice, "love_letter", "v", b"pass\n", "bot.py").versions.get()
    assert do_record_validation(version.pk, False, "crashed", "Traceback")
    assert not do_record_validation(version.pk, True, "ok", "")
    version.refresh_from_db()
    assert (version.status, version.validation_log) == (BotVersion.Status.REJECTED, "crashed")
    assert do_claim_version(version.pk) is None


def test_builtin_bots_are_registered_once_per_player_per_game(db) -> None:
    first = do_register_builtin_bots()
    assert {(bot.game, bot.name) for bot in first} >= {("love_letter", "random"), ("love_letter", "heuristic")}
    assert do_register_builtin_bots() == []
    for bot in Bot.objects.filter(is_builtin=True):
        assert bot.current_version().builtin == bot.name.split("-")[0]
    for game_id in GAMES:
        assert Bot.objects.filter(game=game_id, is_builtin=True).count() >= GAMES[game_id].max_players


def test_a_match_is_claimed_by_exactly_one_worker(alice) -> None:
    bots = [_ready_bot(alice, "a"), _ready_bot(alice, "b")]
    match = do_create_match("love_letter", [bot.current_version() for bot in bots], seed=5)
    assert do_claim_match(match.pk) is not None
    assert do_claim_match(match.pk) is None
    match.refresh_from_db()
    assert (match.status, match.attempts) == (Match.Status.RUNNING, 1)


def test_a_result_is_recorded_once_with_ratings_moved_for_each_bot(alice, bob) -> None:
    bots = [_ready_bot(alice, "a"), _ready_bot(bob, "b")]
    match = do_create_match("love_letter", [bot.current_version() for bot in bots], seed=5)
    do_claim_match(match.pk)
    assert do_record_match_result(match.pk, runner_result(_result([1, 2])))
    assert not do_record_match_result(match.pk, runner_result(_result([2, 1])))
    winner, loser = (Rating.objects.get(bot=bot) for bot in bots)
    assert winner.elo > 1500 > loser.elo and winner.games == loser.games == 1 and winner.wins == 1
    assert RatingChange.objects.filter(match=match).count() == 2
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.replay == {"format": "parlour-replay/1", "moves": []}


def _statements(captured: CaptureQueriesContext) -> list[str]:
    """What reached the database, less the test's own savepoints (the worker runs outside any transaction)."""
    return [q["sql"] for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]


def test_a_four_seat_match_is_claimed_and_loaded_in_two_statements_and_recorded_in_eight(alice, bob) -> None:
    bots = [_ready_bot(owner, name) for owner, name in ((alice, "a"), (bob, "b"), (alice, "c"), (bob, "d"))]
    for number in range(2):  # the first match creates nothing the second needs: both cost the same
        match = do_create_match("love_letter", [bot.current_version() for bot in bots], seed=number)
        with CaptureQueriesContext(connection) as claim:
            claimed = do_claim_match(match.pk, worker="w")
            seats = claimed.seats
        # The conditional UPDATE, then the match with its seats, versions, bots and owners, without the archives.
        assert len(_statements(claim)) == 2, _statements(claim)
        assert [seat.number for seat in seats] == [0, 1, 2, 3]
        assert '"archive"' not in _statements(claim)[1]
        assert seats[0].label == "alice/a v1"
        with CaptureQueriesContext(connection) as record:
            assert do_record_match_result(
                match.pk, runner_result(_result([1, 2, 3, 4])), claim_token=claimed.claim_token
            )
        # Lock the match and read its seats; one UPDATE for the seats; lock the ratings, insert the changes, one
        # UPDATE for the ratings; the game's recorded-order number (UPDATE ... RETURNING); the match
        # (league/core/rows.py: a VALUES list, not one statement per row); its live row's DELETE.
        assert len(_statements(record)) == 8, _statements(record)
    assert [seat.rank for seat in Match.objects.get(pk=match.pk).seats.order_by("number")] == [1, 2, 3, 4]
    assert Rating.objects.filter(bot__in=bots, games=2).count() == 4
    assert do_recompute_ratings(["love_letter"])[0].differences == []


def test_a_fault_is_recorded_with_its_cause(alice, bob) -> None:
    bots = [_ready_bot(alice, "a"), _ready_bot(bob, "b")]
    match = do_create_match("love_letter", [bot.current_version() for bot in bots], seed=5)
    do_claim_match(match.pk)
    fault = {"cause": "timeout", "detail": "no answer within 1000 ms", "move": 3}
    do_record_match_result(match.pk, runner_result(_result([2, 1], [fault, None])))
    seat = match.seats.get(number=0)
    assert (seat.rank, seat.fault, seat.fault_detail) == (2, "timeout", "no answer within 1000 ms")


@override_settings(MATCH_MAX_ATTEMPTS=2)
def test_a_failed_attempt_is_requeued_then_failed_for_good(alice) -> None:
    bots = [_ready_bot(alice, "a"), _ready_bot(alice, "b")]
    match = do_create_match("love_letter", [bot.current_version() for bot in bots], seed=5)
    do_claim_match(match.pk)
    assert do_release_match(match.pk, "sandbox down").status == Match.Status.QUEUED
    do_claim_match(match.pk)
    released = do_release_match(match.pk, "sandbox down")
    assert released.status == Match.Status.FAILED
    assert released.error == "gave up after 2 attempts; the last: sandbox down"


def test_stale_running_matches_are_requeued(alice) -> None:
    bots = [_ready_bot(alice, "a"), _ready_bot(alice, "b")]
    match = do_create_match("love_letter", [bot.current_version() for bot in bots], seed=5)
    do_claim_match(match.pk)
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert do_requeue_stale_matches() == [match.pk]
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED


@override_settings(LADDER_QUEUE_DEPTH=3)
def test_the_ladder_keeps_each_game_queue_topped_up(db) -> None:
    do_register_builtin_bots()
    created = do_schedule_ladder(random.Random(1))
    love_letter = [match for match in created if match.game == "love_letter"]
    assert len(love_letter) == 3
    for match in love_letter:
        bots = [seat.bot_version.bot_id for seat in match.seats.all()]
        assert len(bots) == len(set(bots)) >= 2
    again = [match for match in do_schedule_ladder(random.Random(2)) if match.game == "love_letter"]
    assert again == []


def test_rejected_and_inactive_bots_are_not_scheduled(alice) -> None:
    do_create_bot(alice, "love_letter", "pending", b"pass\n", "bot.py")
    bot = _ready_bot(alice, "ready")
    Bot.objects.filter(pk=bot.pk).update(is_active=False)
    assert [m for m in do_schedule_ladder(random.Random(1)) if m.game == "love_letter"] == []


def test_tokens_are_stored_hashed_and_revocable(alice, bob) -> None:
    token, key = do_create_token(alice, "laptop")
    assert key.startswith("plr_") and token.prefix == key[:10]
    assert token.key_hash == hash_token(key) != key
    with pytest.raises(ServiceError):
        do_revoke_token(bob, token.pk)
    do_revoke_token(alice, token.pk)
    assert not alice.api_tokens.exists()
