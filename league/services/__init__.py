"""Every write to the league goes through a ``do_<verb>_<noun>`` function of one of these modules, one per concern.

Views, the API and tasks import the function they call from its module (``from league.services.matches import
do_claim_match``); this package re-exports nothing. ``errors`` holds the one exception the services raise (with its
``ErrorCode``); ``outbox`` enqueues tasks by name after the transaction commits (saleor/sentry style), so a worker
never sees a row that is not there yet and the league never imports ``workers``.
"""
