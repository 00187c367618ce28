"""The site with the direct route for remote bots' replies in front, as parlour/asgi.py serves it once it wraps its
application (league/remote/views.py, ``with_remote_replies``): for the tests and bench/remote.py."""

# ruff: noqa: I001  (the order matters: counting_asgi sets Django up, league.remote.views needs it set up)
from __future__ import annotations

from tests.serve.counting_asgi import application as counted
from league.remote.views import with_remote_replies

application = with_remote_replies(counted)
