"""Relative times on pages: never "0 minutes ago"."""

from __future__ import annotations

import datetime

from django.template import Context, Template
from django.utils import timezone

from league.core.time_ago import time_ago

NOW = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)


def test_under_a_minute_is_just_now_and_later_times_say_ago() -> None:
    assert time_ago(NOW - datetime.timedelta(seconds=59), NOW) == "just now"
    assert time_ago(NOW + datetime.timedelta(seconds=5), NOW) == "just now"  # a clock a little ahead
    assert time_ago(NOW - datetime.timedelta(seconds=61), NOW) == "1\xa0minute ago"
    assert time_ago(NOW - datetime.timedelta(hours=3, minutes=5), NOW) == "3\xa0hours, 5\xa0minutes ago"
    assert time_ago(NOW - datetime.timedelta(hours=3, minutes=5), NOW, depth=1) == "3\xa0hours ago"


def test_the_ago_filter() -> None:
    template = Template("{% load league_time %}[{{ a|ago }}] [{{ b|ago }}] [{{ c|ago }}]")
    text = template.render(Context({"a": timezone.now(), "b": timezone.now() - datetime.timedelta(days=2), "c": None}))
    assert text == "[just now] [2\xa0days ago] []"
