"""The suite's own footing: the live server answers, and the login helper signs a user in through the real form."""

from __future__ import annotations


def test_the_login_form_signs_a_user_in(site, signed_in) -> None:
    session = signed_in("mallory")
    assert "mallory" in session.get(f"{site}/", timeout=10).text
