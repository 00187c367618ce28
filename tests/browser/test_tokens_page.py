"""The API tokens page in Chromium: a new token comes with a curl line that works as shown, and revoking asks first
(a page of its own, so it works without JavaScript under the CSP)."""

from __future__ import annotations

import shlex
from collections.abc import Callable

from league.accounts.models import ApiToken
from league.accounts.tokens import do_create_token
from tests.browser.conftest import Tab


def test_a_new_token_comes_with_a_curl_line_that_works(open_tab: Callable[..., Tab], live_server, alice) -> None:
    tab = open_tab().sign_in(alice)
    tab.goto("/account/tokens/")
    tab.page.fill("input[name=name]", "laptop")
    tab.page.click("text=Create a token")
    key = tab.page.inner_text("#new-key").strip()
    curl = shlex.split(tab.page.inner_text("#new-curl"))
    assert curl[:2] == ["curl", "-H"] and curl[2] == f"Authorization: Token {key}"
    assert curl[3] == f"{live_server.url}/api/me/"
    # What the curl line does, done by the browser's own HTTP client (no cookies: the token alone signs in).
    answer = tab.page.context.request.fetch(curl[3], headers={"Authorization": curl[2].split(": ", 1)[1]})
    assert answer.status == 200 and answer.json()["username"] == alice.username
    tab.shot("tokens-new-curl")
    tab.assert_no_errors()


def test_revoking_a_token_asks_first(open_tab: Callable[..., Tab], live_server, alice, bob) -> None:
    tab = open_tab().sign_in(alice)
    tab.goto("/account/tokens/")
    tab.page.fill("input[name=name]", "ci runner")
    tab.page.click("text=Create a token")
    token = ApiToken.objects.get(user=alice)

    tab.page.click("text=Revoke…")
    assert tab.page.inner_text("main h1") == "Revoke the token “ci runner”?"
    assert ApiToken.objects.filter(pk=token.pk).exists()  # asking revoked nothing
    tab.shot("tokens-revoke-confirm")
    tab.page.click("text=Keep it")
    assert tab.page.url.endswith("/account/tokens/") and ApiToken.objects.filter(pk=token.pk).exists()

    tab.page.click("text=Revoke…")
    tab.page.click("#confirm-revoke")
    assert tab.page.url.endswith("/account/tokens/") and "Token revoked." in tab.page.inner_text("body")
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    tab.assert_no_errors()

    # Nobody else's token can be asked about: bob gets a 404, and alice's other token is untouched.
    other, _key = do_create_token(alice, "other")
    bob_tab = open_tab().sign_in(bob)
    assert bob_tab.goto(f"/account/tokens/{other.pk}/revoke/").status == 404
    assert ApiToken.objects.filter(pk=other.pk).exists()
