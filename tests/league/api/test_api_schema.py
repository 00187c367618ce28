"""The OpenAPI schema is generated without a warning, and its pages are served from our own static files."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient


def test_the_schema_generates_and_validates_without_warnings(tmp_path) -> None:
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert "/api/tokens/" in (tmp_path / "schema.yaml").read_text()


def test_the_schema_is_served_as_openapi_3(anon_api: APIClient) -> None:
    response = anon_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.") and "/api/matches/" in schema["paths"]
    assert "tokenAuth" in schema["components"]["securitySchemes"]


@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_the_docs_pages_load_their_scripts_locally(anon_api: APIClient, url: str) -> None:
    response = anon_api.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "cdn." not in html and "unpkg" not in html


def _operations(schema: dict) -> list[tuple[str, str, dict]]:
    methods = ("get", "post", "put", "patch", "delete")
    return [
        (method, path, op) for path, item in schema["paths"].items() for method, op in item.items() if method in methods
    ]


def _integers(node: object) -> list[dict]:
    if isinstance(node, dict):
        found = [node] if node.get("type") == "integer" else []
        return found + [i for value in node.values() for i in _integers(value)]
    if isinstance(node, list):
        return [i for value in node for i in _integers(value)]
    return []


def test_every_game_parameter_is_a_choice_of_the_games(anon_api: APIClient) -> None:
    # Issue 32, stumble 33: the docs offered a free text box for the game although the games are known.
    from games.registry import GAMES

    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    enums = schema["components"]["schemas"]
    found = []
    for method, path, op in _operations(schema):
        for parameter in op.get("parameters", []):
            if parameter["name"] == "game" or (path.startswith("/api/games/") and parameter["name"] == "id"):
                ref = parameter["schema"].get("$ref", "")
                values = enums[ref.rsplit("/", 1)[-1]]["enum"] if ref else parameter["schema"].get("enum")
                found.append((f"{method.upper()} {path}", sorted(values or [])))
    assert len(found) >= 3 and all(values == sorted(GAMES) for _where, values in found), found


def test_every_operation_has_a_summary_and_no_example_is_a_huge_number(anon_api: APIClient) -> None:
    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = _operations(schema)
    assert len(operations) >= 30
    missing = [f"{method.upper()} {path}" for method, path, op in operations if not op.get("summary", "").strip()]
    assert missing == []
    # Swagger UI shows a field's maximum as its example when it has none: 2**63 - 1 reads as 9223372036854776000.
    huge = [i for i in _integers(schema) if i.get("maximum", 0) > 2**53 and not 0 <= i.get("example", -1) < 2**53]
    assert len(_integers(schema)) > 20 and huge == []
    # Swagger UI fills a patterned string with random text matching it, unless it has an example.
    patterned = [n for n in _nodes(schema) if n.get("type") == "string" and "pattern" in n]
    assert patterned and all("example" in n for n in patterned)


def test_every_json_request_body_has_an_example(anon_api: APIClient) -> None:
    """(Uploads are multipart forms: Swagger UI builds those field by field, from the fields' own examples above.)"""
    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    bodies = [
        (f"{method.upper()} {path}", op["requestBody"]["content"]["application/json"])
        for method, path, op in _operations(schema)
        if "application/json" in op.get("requestBody", {}).get("content", {})
    ]
    assert len(bodies) >= 5
    assert [name for name, media in bodies if not media.get("examples")] == []


def _nodes(node: object) -> list[dict]:
    if isinstance(node, dict):
        return [node] + [n for value in node.values() for n in _nodes(value)]
    if isinstance(node, list):
        return [n for value in node for n in _nodes(value)]
    return []


def _media(op: dict) -> list[tuple[str, dict]]:
    """(where, media object) of an operation's request body and answers."""
    found = [("request", media) for media in op.get("requestBody", {}).get("content", {}).values()]
    return found + [
        (code, media) for code, answer in op["responses"].items() for media in answer.get("content", {}).values()
    ]


def _shape_errors(value: object, schema: dict, components: dict, where: str) -> list[str]:
    """Where an example's objects have keys the schema does not name, or lack keys it requires."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    if isinstance(value, dict) and "properties" in schema:
        named, required = set(schema["properties"]), set(schema.get("required", []))
        errors = [f"{where}: {sorted(set(value) - named)} not in the schema"] if set(value) - named else []
        errors += [f"{where}: lacks {sorted(required - set(value))}"] if required - set(value) else []
        return errors + [
            e
            for key in set(value) & named
            for e in _shape_errors(value[key], schema["properties"][key], components, f"{where}.{key}")
        ]
    if isinstance(value, list) and "items" in schema:
        return [e for item in value for e in _shape_errors(item, schema["items"], components, f"{where}[]")]
    return []


def test_every_operation_has_an_example_shaped_like_its_schema(anon_api: APIClient) -> None:
    """league/api/examples.py: Swagger UI and Redoc show a real-looking answer (or body) for every operation."""
    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = _operations(schema)
    without = [
        f"{m.upper()} {p}" for m, p, op in operations if not any(media.get("examples") for _w, media in _media(op))
    ]
    assert without == []
    errors = [
        error
        for method, path, op in operations
        for where, media in _media(op)
        for name, example in media.get("examples", {}).items()
        for error in _shape_errors(
            example["value"],
            media["schema"],
            schema["components"]["schemas"],
            f"{method.upper()} {path} {where} {name}",
        )
        if "schema" in media and "value" in example
    ]
    assert errors == []
    assert "api.example.org/accounts" not in str(schema)  # DRF's placeholder links: each list's own instead


def test_the_owner_only_validation_stderr_is_in_the_schema(anon_api: APIClient) -> None:
    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    field = schema["components"]["schemas"]["BotVersion"]["properties"]["validation_stderr"]
    assert field["readOnly"] and "owner" in field["description"]
    assert "validation_stderr" not in schema["components"]["schemas"]["BotVersion"].get("required", [])


def test_counts_are_bounded_by_their_column_whatever_database_made_the_schema(anon_api: APIClient) -> None:
    """SQLite bounds every integer column at 2**63 - 1, which Swagger UI showed as 9223372036854776000; the schema
    states PostgreSQL's bounds instead. Only ids (league.core.ids.MAX_ID, with a small example) stay above 2**31."""
    components = anon_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["components"]
    rating, seat = components["schemas"]["Rating"]["properties"], components["schemas"]["Seat"]["properties"]
    assert rating["games"]["maximum"] == 2**31 - 1 and seat["number"]["maximum"] == 2**15 - 1
    huge = [
        f"{name}.{key}"
        for name, schema in components["schemas"].items()
        for key, field in schema.get("properties", {}).items()
        if field.get("readOnly") and field.get("maximum", 0) > 2**31
    ]
    assert huge == []
