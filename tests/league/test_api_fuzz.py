"""A property-based fuzz of the whole API from its own schema (schemathesis) against a live server: no 5xx, and
every answer conforms to the schema. Bounded: a few examples per operation, well under a minute."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import override_settings
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings

from league import services

schemathesis = pytest.importorskip("schemathesis")

MAX_EXAMPLES = 8
STATUSES: dict[int, int] = {}


@pytest.mark.django_db(transaction=True)
def test_the_api_survives_its_own_schema(live_server, alice) -> None:  # type: ignore[no-untyped-def]
    services.do_register_builtin_bots()
    token = services.do_create_token(alice, "fuzz")[1]
    unthrottled = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": None, "user": None, "token": None}}
    failures: list[str] = []
    calls = 0
    with override_settings(REST_FRAMEWORK=unthrottled):
        schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/?format=json")
        for result in schema.get_all_operations():
            operation = result.ok()
            if operation.method.upper() == "DELETE":
                continue  # revoking the fuzzer's own token would make the rest anonymous
            calls += _fuzz(operation, live_server.url, token, failures)
    print(f"fuzz: {calls} cases, statuses {sorted(STATUSES.items())}")
    assert not failures, "\n\n".join(failures[:10])


def _fuzz(operation, base_url: str, token: str, failures: list[str]) -> int:  # type: ignore[no-untyped-def]
    from schemathesis import checks as st_checks

    seen = 0

    @hypothesis_settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def run(case) -> None:  # type: ignore[no-untyped-def]
        nonlocal seen
        seen += 1
        response = case.call(base_url=base_url, headers={"Authorization": f"Token {token}"})
        STATUSES[response.status_code] = STATUSES.get(response.status_code, 0) + 1
        try:
            case.validate_response(
                response, checks=[st_checks.not_a_server_error, st_checks.response_schema_conformance]
            )
        except Exception as error:  # collect them all, report together
            failures.append(f"{operation.method.upper()} {operation.path}: {str(error)[:800]}")

    run()
    return seen
