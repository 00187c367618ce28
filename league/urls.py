"""The league's own pages; parlour/urls.py mounts them at the site's root beside the project's routes."""

from __future__ import annotations

from django.urls import path

from league.accounts import views as views_accounts
from league.authors import views as views_authors
from league.live import views as views_watch
from league.site import views
from league.tables import views as views_tables
from league.tournaments import views as views_tournaments

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<str:game>/", views.leaderboard_page, name="leaderboard"),
    path("games/<str:game>/board/", views.leaderboard_board, name="leaderboard-board"),
    path("bots/new/", views.bot_new, name="bot-new"),
    path("bots/<int:pk>/", views.bot_page, name="bot"),
    path("bots/<int:pk>/status/", views.bot_status_fragment, name="bot-status"),
    path("bots/<int:pk>/activity/", views.bot_activity, name="bot-activity"),
    path("bots/<int:pk>/versions/", views.bot_version_new, name="bot-version-new"),
    path("bots/<int:pk>/ladder/", views.bot_ladder, name="bot-ladder"),
    path("matches/", views.matches_page, name="matches"),
    path("matches/<int:pk>/", views.match_page, name="match"),
    path("matches/<int:pk>/live/", views_watch.match_live_page, name="match-live"),
    path("matches/<int:pk>/live/events/", views_watch.match_live_events, name="match-live-events"),
    path("first-bot/", views_authors.first_bot, name="first-bot"),
    path("games/<str:game>/reference/", views_authors.game_reference, name="game-reference"),
    path("games/<str:game>/starter.zip", views_authors.starter_zip, name="starter-kit"),
    path("sdk/<str:filename>", views_authors.kit_wheel, name="kit-wheel"),
    path("challenges/", views_authors.challenge_list, name="challenges"),
    path("challenges/<int:pk>/", views_authors.challenge_page, name="challenge"),
    path("challenges/<int:pk>/results/", views_authors.challenge_results, name="challenge-results"),
    path("bots/<int:pk>/challenge/", views_authors.challenge_new, name="challenge-new"),
    path("tournaments/", views_tournaments.tournament_list, name="tournaments"),
    path("tournaments/<int:pk>/", views_tournaments.tournament_page, name="tournament"),
    path("tournaments/<int:pk>/standings/", views_tournaments.tournament_standings, name="tournament-standings"),
    path("play/", views_tables.play_page, name="play"),
    path("live/", views_watch.live_page, name="live"),
    path("live/lists/", views_watch.live_lists, name="live-lists"),
    path("live/next/", views_watch.live_next, name="live-next"),
    path("live/broadcasts/<int:pk>/frames/", views_watch.live_broadcast_frames, name="live-broadcast-frames"),
    path("tables/<int:pk>/", views_tables.table_page, name="table"),
    path("tables/<int:pk>/cancel/", views_tables.cancel_table, name="table-cancel"),
    path("tables/<int:pk>/resign/", views_tables.resign_table, name="table-resign"),
    path("tables/<int:pk>/events/", views_tables.table_events, name="table-events"),
    path("tables/<int:pk>/frames/", views_tables.table_frames, name="table-frames"),
    path("tables/<int:pk>/replay.json", views_tables.table_replay, name="table-replay"),
    path("account/tables/", views_tables.my_tables, name="my-tables"),
    path("account/signup/", views_accounts.signup, name="signup"),
    path("account/welcome/", views_accounts.welcome, name="welcome"),
    path("account/verify-email/", views_accounts.verify_email, name="verify-email"),
    path("account/verify-email/<str:key>/", views_accounts.verify_email_link, name="verify-email-link"),
    path("account/bots/", views.my_bots, name="my-bots"),
    path("account/tokens/", views.tokens, name="tokens"),
    path("account/tokens/<int:pk>/revoke/", views.token_revoke, name="token-revoke"),
]
