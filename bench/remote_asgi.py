"""The site with the direct route for remote bots' replies in front (``league.remote.views.with_remote_replies``), as
parlour/asgi.py serves it once it wraps its application: bench/remote.py measures it beside the plain site."""

# ruff: noqa: I001  (the order matters: parlour.asgi sets Django up, league.remote.views needs it set up)
from __future__ import annotations

from parlour.asgi import application as site
from league.remote.views import with_remote_replies

application = with_remote_replies(site)
