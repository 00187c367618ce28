"""A newcomer's first steps in Chromium, clicked as a person clicks them: sign up and be shown what to do next (13);
from the home page, play the bots yourself (41) and read a missing Elo in words (14); the first-bot page for a
signed-in reader (40); the upload form on the game of the kit just downloaded (18); copy buttons for a new token and
its curl line (39). Screenshots on a laptop and a phone."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from league.bots.models import Bot, BotVersion
from league.ratings.models import Rating
from tests.browser.conftest import LAPTOP, PHONE, Tab

PASSWORD = "a long enough passphrase 42"


@pytest.fixture(autouse=True)
def _no_mail_step(settings) -> None:
    settings.REQUIRE_EMAIL_VERIFICATION = False


def _fill_sign_up(tab: Tab, username: str) -> None:
    tab.page.fill("input[name=username]", username)
    tab.page.fill("input[name=password1]", PASSWORD)
    tab.page.fill("input[name=password2]", PASSWORD)
    tab.page.click("text=Create my account")
    tab.page.wait_for_load_state()


@pytest.mark.parametrize(("device", "viewport"), [("laptop", LAPTOP), ("phone", PHONE)])
def test_a_newcomer_signs_up_and_is_shown_the_next_steps(
    open_tab: Callable[..., Tab], device: str, viewport: dict[str, int]
) -> None:
    tab = open_tab(viewport=viewport)
    tab.goto("/")
    tab.page.click("main >> text=Sign up and upload a bot")
    _fill_sign_up(tab, f"newcomer-{device}")
    assert tab.page.url.endswith("/account/welcome/")
    assert tab.page.inner_text("main h1") == f"Welcome to Parlour, newcomer-{device}"
    steps = tab.page.locator("#next-steps li")
    assert steps.count() == 4
    for name in ("Write your first bot", "Upload it", "Create an API token", "play against the bots yourself"):
        assert tab.page.locator("#next-steps a", has_text=name).count() == 1, name
    tab.assert_fits(viewport["width"])
    tab.shot(f"first-steps-welcome-{device}")

    # The first step: the guide, which no longer asks a signed-in reader to sign up, and links the tokens page.
    tab.page.click("#next-steps >> text=Write your first bot")
    assert tab.page.url.endswith("/first-bot/")
    main = tab.page.locator("main")
    assert main.locator("a[href='/account/signup/']").count() == 0
    assert "You are signed in" in main.inner_text()
    tab.shot(f"first-steps-first-bot-signed-in-{device}")
    tab.page.click("main a:text-is('API tokens')")
    assert tab.page.url.endswith("/account/tokens/") and tab.page.inner_text("main h1") == "API tokens"
    tab.assert_no_errors()


def test_from_the_home_page_a_visitor_goes_to_play_the_bots(open_tab: Callable[..., Tab]) -> None:
    tab = open_tab()
    tab.goto("/")
    assert "You can also play the bots yourself" in tab.page.inner_text("#play-them")
    tab.page.click("main >> text=Play against the bots")
    assert tab.page.url.endswith("/play/")  # no account needed: a visitor plays as a guest (test_guests.py)
    assert "No account needed" in tab.page.inner_text("main")
    tab.page.click("main >> text=Sign up")
    _fill_sign_up(tab, "player")
    assert tab.page.url.endswith("/play/"), tab.page.url  # where the visitor was going, not a dead end
    assert "Welcome to Parlour, player!" in tab.page.inner_text("main")
    tab.assert_no_errors()


@pytest.mark.parametrize(("device", "viewport"), [("laptop", LAPTOP), ("phone", PHONE)])
def test_the_home_page_says_in_words_that_a_bot_gets_its_elo_soon(
    open_tab: Callable[..., Tab], device: str, viewport: dict[str, int]
) -> None:
    owner = User.objects.create(username="house")
    bot = Bot.objects.create(owner=owner, game="love_letter", name="fresh")
    BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
    Rating.objects.create(bot=bot, elo=1512, games=3)  # it has played rated games; the next refit gives its Elo
    tab = open_tab(viewport=viewport)
    tab.goto("/")
    text = tab.page.inner_text("main")
    assert "fitted" not in text.lower()
    assert tab.page.locator(".elo-soon", has_text="Elo soon").is_visible()
    assert "its Elo is worked out from all of them once a minute" in text
    tab.assert_fits(viewport["width"])
    tab.shot(f"first-steps-home-{device}")
    tab.assert_no_errors()


def test_the_upload_form_opens_on_the_game_of_the_kit_just_downloaded(open_tab: Callable[..., Tab], alice) -> None:
    tab = open_tab().sign_in(alice)
    tab.goto("/first-bot/")
    row = tab.page.locator("table.kits tr", has_text="Love Letter")
    with tab.page.expect_download() as download:
        row.locator("text=Download the kit").click()
    assert download.value.suggested_filename == "parlour-love_letter-starter.zip"
    tab.page.click("header >> text=Upload a bot")
    assert tab.page.url.endswith("/bots/new/")
    assert tab.page.eval_on_selector("select[name=game]", "(s) => s.value") == "love_letter"
    # The kit's reference page sends its reader to the form on its own game.
    tab.goto("/games/ten/reference/")
    tab.page.click("main >> text=Upload a TEN bot")
    assert tab.page.eval_on_selector("select[name=game]", "(s) => s.value") == "ten"
    tab.assert_no_errors()


@pytest.mark.parametrize(("device", "viewport"), [("laptop", LAPTOP), ("phone", PHONE)])
def test_the_new_token_and_its_curl_line_each_have_a_copy_button(
    open_tab: Callable[..., Tab], alice, device: str, viewport: dict[str, int]
) -> None:
    tab = open_tab(viewport=viewport).sign_in(alice)
    tab.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=tab.base)
    tab.goto("/account/tokens/")
    tab.page.fill("input[name=name]", "laptop")
    tab.page.click("text=Create a token")
    key = tab.page.inner_text("#new-key").strip()
    curl = tab.page.inner_text("#new-curl").strip()

    tab.page.click("text=Copy the token")
    tab.page.locator("#new-key-copied", has_text="Copied.").wait_for()  # said where the button is, and to a reader
    assert tab.page.evaluate("navigator.clipboard.readText()") == key
    tab.page.click("text=Copy the curl line")
    tab.page.locator("#new-curl-copied", has_text="Copied.").wait_for()
    assert tab.page.evaluate("navigator.clipboard.readText()") == curl
    assert curl.startswith("curl -H") and key in curl
    tab.assert_fits(viewport["width"])
    tab.shot(f"first-steps-token-copy-{device}")
    tab.assert_no_errors()
