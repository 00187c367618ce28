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
