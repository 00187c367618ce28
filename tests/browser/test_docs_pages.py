"""The pages for bot authors read like a site, not like the repository: every link on them leads somewhere, no
repository path (``docs/…``, ``….md``) is shown, and a code block wraps inside the page on a phone."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from games.registry import GAMES
from tests.browser.conftest import PHONE, Tab

DOC_PAGES = ["/first-bot/", *(f"/games/{game_id}/reference/" for game_id in GAMES)]
REPO_PATH = re.compile(r"docs/|[\w./<>-]+\.md\b")


@pytest.mark.parametrize("path", DOC_PAGES)
def test_every_link_on_a_doc_page_leads_somewhere(open_tab: Callable[..., Tab], path: str) -> None:
    tab = open_tab()
    assert tab.goto(path).status == 200
    hrefs = tab.page.eval_on_selector_all("main a[href]", "links => links.map((a) => a.getAttribute('href'))")
    assert len(hrefs) >= 5, hrefs
    for href in sorted(set(hrefs)):
        if href.startswith("#"):
            assert tab.page.locator(f"[id='{href[1:]}']").count() == 1, f"{path}: no target for {href}"
            continue
        assert href.startswith("/"), f"{path} links off the site or to a file: {href}"
        response = tab.page.request.get(tab.base + href)
        assert response.status == 200, f"{path}: {href} answers {response.status}"
    tab.assert_no_errors()


@pytest.mark.parametrize("path", DOC_PAGES)
def test_a_doc_page_shows_no_repository_paths(open_tab: Callable[..., Tab], path: str) -> None:
    tab = open_tab()
    tab.goto(path)
    text = tab.page.inner_text("main")
    assert REPO_PATH.findall(text) == [], f"{path} shows repository paths"
    tab.assert_no_errors()


def test_code_blocks_wrap_inside_a_phone_screen(open_tab: Callable[..., Tab]) -> None:
    tab = open_tab(viewport=PHONE)
    tab.goto("/first-bot/")
    blocks = tab.page.eval_on_selector_all(
        "pre.doc",
        "blocks => blocks.map((pre) => ({right: pre.getBoundingClientRect().right, scroll: pre.scrollWidth,"
        " client: pre.clientWidth}))",
    )
    assert len(blocks) >= 3
    for block in blocks:
        assert block["right"] <= PHONE["width"], block  # the box stays on the page
        assert block["scroll"] <= block["client"], block  # and its text wraps inside it, nothing cut off
    tab.assert_fits(PHONE["width"])
    tab.shot("first-bot-phone-code")
    tab.assert_no_errors()
