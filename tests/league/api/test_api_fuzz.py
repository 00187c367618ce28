"""A property-based fuzz of the whole API from its own schema (schemathesis) against a live server, on real data.

A seeded world (bots of two owners, finished matches with real replays, a finished and a draft tournament, a
challenge, spare tokens) gives the path parameters and the ids in request bodies real values most of the time, so
the fuzz reaches past the 404s; every operation, DELETE and the writes included, runs as anonymous, as a user with a
token and as staff with a token. Checks: no 5xx, documented status codes and content types, answers that conform
to the schema. Then a hostile pass goes beyond the schema (HOSTILE: huge ids, deep nesting, a browser's Accept,
unknown paths): JSON 4xx answers in the error shape. Bounded: a few examples an operation and actor, about a minute
and a half."""

from __future__ import annotations

import io
import random
import time
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
from django.conf import settings
from django.contrib.auth.models import User
from django.test import override_settings
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from games.registry import GAMES
from league.accounts.tokens import do_create_token
from league.bots.models import Bot
from league.bots.services import do_create_bot, do_record_validation, do_register_builtin_bots
from league.challenges.services import do_create_challenge
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.browser.recorded import record_match
from tests.conftest import EXAMPLE_BOT
from tests.league.tournaments.tournament_helpers import by_strength, make_bots, play_out

schemathesis = pytest.importorskip("schemathesis")
from schemathesis import checks as st_checks  # noqa: E402  (after the import check)

CHECKS = [
    st_checks.not_a_server_error,
    st_checks.status_code_conformance,
    st_checks.content_type_conformance,
    st_checks.response_schema_conformance,
]

MAX_EXAMPLES = 10
ACTORS = ("anonymous", "user", "staff")
KEEP_GENERATED = 3  # of 10 draws, those that keep schemathesis's own value of a path parameter or body id


@dataclass
class World:
    tokens: dict[str, str]  # actor -> key
    ids: dict[str, list[Any]]  # path resource ("bots", "matches", ...) -> real ids
    body: dict[str, list[Any]]  # body field -> real values (a list field takes a prefix of its list)
    protected_tokens: set[int]  # the actors' own tokens: revoking them would leave the rest of the run anonymous
    spare_tokens: list[int]
    statuses: dict[str, Counter[int]] = field(default_factory=dict)
    hostile: Counter[int] = field(default_factory=Counter)  # the answers to HOSTILE requests
    succeeded: set[str] = field(default_factory=set)  # operations that answered 2xx at least once


def _seed() -> World:
    do_register_builtin_bots()
    alice = User.objects.create_user("alice", "alice@example.org", "x")
    bob = User.objects.create_user("bob", "bob@example.org", "x")
    staff = User.objects.create_user("carol", "carol@example.org", "x", is_staff=True)
    ready = do_create_bot(alice, "love_letter", "mine", EXAMPLE_BOT, "main.py", "alice's")
    do_record_validation(ready.versions.get().pk, True, "ok", "alice's stderr")
    pending = do_create_bot(alice, "love_letter", "pending", EXAMPLE_BOT, "main.py")
    bobs = do_create_bot(bob, "love_letter", "bobs", EXAMPLE_BOT, "main.py")
    matches = [record_match("love_letter", players=players, seed=seed) for players, seed in ((2, 1), (3, 2), (4, 3))]
    matches.append(record_match("ten", seed=4))
    entrants = make_bots(staff, "love_letter", 4, prefix="cup")
    finished = do_create_tournament(staff, "love_letter", "cup", "round_robin", {}, entrants)
    finished = play_out(do_start_tournament(finished), by_strength({}))
    running = do_start_tournament(do_create_tournament(staff, "love_letter", "running", "round_robin", {}, entrants))
    drafts = [
        do_create_tournament(staff, "love_letter", f"draft{n}", fmt, {}, entrants[: 2 + n])
        for n, fmt in enumerate(("swiss", "round_robin", "knockout"))
    ]
    builtins = list(Bot.objects.filter(game="love_letter", is_builtin=True).values_list("pk", flat=True))
    challenge = do_create_challenge(alice, ready.pk, builtins[:1], 2)
    own = {"user": do_create_token(alice, "fuzz"), "staff": do_create_token(staff, "fuzz")}
    spare = [do_create_token(alice, f"spare{n}")[0].pk for n in range(6)]
    bob_token = do_create_token(bob, "bob's")[0].pk
    bots = [ready.pk, ready.pk, pending.pk, bobs.pk, builtins[0], entrants[0].pk]  # alice's own most often
    return World(
        tokens={actor: key for actor, (_, key) in own.items()},
        ids={
            "games": list(GAMES),
            "leaderboards": list(GAMES),
            "bots": bots,
            "matches": [match.pk for match in matches],
            "tournaments": [finished.pk, running.pk, *(draft.pk for draft in drafts)],
            "challenges": [challenge.pk],
            "tokens": [*spare, bob_token],
        },
        body={
            "bot": [ready.pk, ready.pk, *bots],  # alice's ready bot most often: a challenge can be made
            "opponents": builtins,
            "field": builtins,
            "bots": [entrant.pk for entrant in entrants],
            "game": ["love_letter"],
            "games": [1, 2],
            "settings": [{}],
            "file": [_zipped(EXAMPLE_BOT)],  # a zip: schemathesis names a file part by its content's type
        },
        protected_tokens={token.pk for token, _ in own.values()},
        spare_tokens=spare,
    )


def _zipped(source: bytes) -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("main.py", source)
    return archive.getvalue()


def _with_real_ids(case: Any, world: World, draws: list[int]) -> None:
    """Most of the time, a real id where the schema has an id (a path parameter, ``bot``, ``opponents``, ...) and
    a value the league accepts in the body fields that lead to one (``game``, ``file``, ...), so that the writes
    succeed too. Never the actors' own tokens."""
    resource = case.operation.path.split("/")[2]
    for name in list(case.path_parameters or {}):
        choices = world.ids.get(resource, [])
        draw = draws.pop() if draws else 0
        if choices and draw >= KEEP_GENERATED:
            case.path_parameters[name] = choices[draw % len(choices)]
        if resource == "tokens" and case.path_parameters[name] in world.protected_tokens:
            case.path_parameters[name] = world.spare_tokens[draw % len(world.spare_tokens)]
    if isinstance(case.body, dict):
        for key, pool in world.body.items():
            draw = draws.pop() if draws else 0
            if key not in case.body or draw < KEEP_GENERATED:
                continue
            if isinstance(pool[0], bytes) and "multipart" not in (case.media_type or ""):
                continue  # a real archive only fits a multipart body; a JSON body cannot carry bytes
            listed = isinstance(case.body[key], list)
            case.body[key] = pool[: 1 + draw % len(pool)] if listed else pool[draw % len(pool)]


@pytest.mark.django_db(transaction=True)
def test_the_api_survives_its_own_schema_on_real_data(live_server: Any) -> None:
    world = _seed()
    unthrottled = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": None, "user": None, "token": None}}
    failures: list[str] = []
    started = time.monotonic()
    with override_settings(REST_FRAMEWORK=unthrottled):
        schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/?format=json")
        operations = [result.ok() for result in schema.get_all_operations()]
        # What removes or ends things last for each actor: the other operations had their turn with it first.
        operations.sort(key=lambda op: op.method.upper() == "DELETE" or op.path.endswith("/cancel/"))
        for actor in ACTORS:
            world.statuses[actor] = Counter()
            headers = {"Authorization": f"Token {world.tokens[actor]}"} if actor in world.tokens else {}
            for operation in operations:
                _fuzz(operation, live_server.url, headers, world, world.statuses[actor], actor, failures)
    total = sum(sum(counts.values()) for counts in world.statuses.values())
    summary = ", ".join(f"{actor} {sorted(counts.items())}" for actor, counts in world.statuses.items())
    print(f"fuzz: {len(operations)} operations, {total} requests in {time.monotonic() - started:.0f} s: {summary}")
    never = sorted({f"{op.method.upper()} {op.path}" for op in operations} - world.succeeded)
    print(f"fuzz: never a 2xx: {', '.join(never) or 'none'}")
    print(f"fuzz: {sum(world.hostile.values())} hostile requests: {sorted(world.hostile.items())}")
    assert total >= len(operations) * len(ACTORS) * 3, "the fuzz hardly ran"
    assert sum(world.hostile.values()) >= len(operations) * len(ACTORS), "hardly a hostile request"
    assert not failures, f"{len(failures)} failures:\n\n" + "\n\n".join(failures[:10])


def _fuzz(
    operation: Any,
    base_url: str,
    headers: dict[str, str],
    world: World,
    statuses: Counter[int],
    actor: str,
    failures: list[str],
) -> None:
    checks = CHECKS

    @hypothesis_settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(), draws=st.lists(st.integers(0, 9), min_size=10, max_size=10))
    def run(case: Any, draws: list[int]) -> None:
        _with_real_ids(case, world, list(draws))
        response = case.call(base_url=base_url, headers=headers)
        statuses[response.status_code] += 1
        if response.status_code < 300:
            world.succeeded.add(f"{operation.method.upper()} {operation.path}")
        try:
            case.validate_response(response, checks=checks)
        except (Exception, BaseExceptionGroup) as error:  # schemathesis's FailureGroup is a BaseExceptionGroup
            failures.append(
                f"{actor} {operation.method.upper()} {case.formatted_path} {case.query or ''} → "
                f"{response.status_code}: {str(error)[:700]}"
            )

    run()

    # Then the hostile pass: its own examples, so that the cases above are the ones they were without it (Hypothesis
    # derives a derandomized run's seed from the test function's source).
    @hypothesis_settings(
        max_examples=HOSTILE_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        case=operation.as_strategy(),
        draws=st.lists(st.integers(0, 9), min_size=10, max_size=10),
        kind=st.sampled_from(HOSTILE),
    )
    def run_hostile(case: Any, draws: list[int], kind: str) -> None:
        _with_real_ids(case, world, list(draws))
        _hostile(kind, case, base_url, headers, world, f"{actor} {kind}", failures)

    run_hostile()


# What a hostile client sends beyond the schema (docs/security.md, "Bad input to the API"): ids past a bigint where
# the schema has ids, a body nested 10,000 deep, a browser's Accept header on a read, a path below the operation's
# that no route takes. The answer must be JSON and, but for Accept, a 4xx in the error shape.
HOSTILE = ("huge_id", "deep", "accept_html", "unknown_path")
HOSTILE_EXAMPLES = 4
HUGE_ID = 2**64
ID_FIELDS = ("bot", "version")
ID_LIST_FIELDS = ("opponents", "field", "bots")


def _hostile(
    kind: str, case: Any, base_url: str, headers: dict[str, str], world: World, label: str, failures: list[str]
) -> None:
    response = _call_hostile(kind, case, base_url, headers)
    if response is None:
        return  # nothing of the kind to send for this operation
    world.hostile[response.status_code] += 1
    try:
        if kind == "accept_html":  # a browser's Accept changes nothing: the documented answer, in JSON
            case.validate_response(response, checks=CHECKS)
        else:
            _check_hostile(kind, response)
    except (Exception, BaseExceptionGroup) as error:
        failures.append(f"{label} {case.method.upper()} {case.formatted_path} → {response.status_code}: {error}"[:900])


def _call_hostile(kind: str, case: Any, base_url: str, headers: dict[str, str]) -> Any:
    """The hostile request, or None where it would only repeat the case: each is refused before it changes
    anything (an Accept header only on reads, a deep body only where the operation reads one), so the fuzz's own
    cases find the world as they did without these."""
    url = base_url + case.formatted_path
    method = case.method.upper()
    if kind == "accept_html":
        if method != "GET":
            return None
        return case.call(base_url=base_url, headers={**headers, "Accept": "text/html,application/xhtml+xml"})
    if kind == "unknown_path":
        return requests.request(method, url + "no-such-thing/", headers=headers, timeout=30)
    if kind == "deep":
        if not isinstance(case.body, dict):  # reads and actions without a body would not read it
            return None
        body = "[" * 10_000 + "]" * 10_000
        return requests.request(
            method, url, data=body, headers={**headers, "Content-Type": "application/json"}, timeout=30
        )
    changed = False
    for name in list(case.path_parameters or {}):
        if name == "id" and not case.operation.path.startswith("/api/games/"):
            case.path_parameters[name], changed = HUGE_ID, True
    if isinstance(case.body, dict):
        for key in (*ID_FIELDS, *ID_LIST_FIELDS):
            if key in case.body:
                case.body[key], changed = [HUGE_ID] if key in ID_LIST_FIELDS else HUGE_ID, True
    return case.call(base_url=base_url, headers=headers) if changed else None


def _check_hostile(kind: str, response: Any) -> None:
    assert response.status_code < 500, "a server error"
    content_type = response.headers.get("content-type")  # schemathesis's: lower-case names, lists of values
    content_type = content_type[0] if isinstance(content_type, list) else content_type
    assert content_type == "application/json", content_type
    assert 400 <= response.status_code < 500, "a hostile request was taken"
    if kind == "unknown_path":
        assert response.status_code == 404
    error = response.json()["error"]
    assert isinstance(error["code"], str) and isinstance(error["message"], str)


def test_the_real_id_mapping_never_revokes_an_actors_own_token() -> None:
    class Case:
        class operation:
            path = "/api/tokens/{id}/"

        path_parameters: dict[str, Any]
        body = None

    world = World(tokens={}, ids={"tokens": [5, 6]}, body={}, protected_tokens={1, 2}, spare_tokens=[5, 6])
    rng = random.Random(1)
    for _ in range(200):
        case = Case()
        case.path_parameters = {"id": rng.choice([1, 2, 3, 5])}
        _with_real_ids(case, world, [rng.randrange(10)])
        assert case.path_parameters["id"] not in {1, 2}
