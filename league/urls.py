"""The league's own pages; parlour/urls.py mounts them at the site's root beside the project's routes."""

from __future__ import annotations

from django.urls import path

from league.accounts import views as accounts_views
from league.authors import views as authors_views
from league.live import views as live_views
from league.site import views as site_views
from league.tables import views as tables_views
from league.tournaments import views as tournaments_views

urlpatterns = [
    path("", site_views.home, name="home"),
    path("games/<str:game>/", site_views.leaderboard_page, name="leaderboard"),
    path("games/<str:game>/board/", site_views.leaderboard_board, name="leaderboard-board"),
    path("bots/new/", site_views.bot_new, name="bot-new"),
    path("bots/<int:pk>/", site_views.bot_page, name="bot"),
    path("bots/<int:pk>/status/", site_views.bot_status_fragment, name="bot-status"),
    path("bots/<int:pk>/activity/", site_views.bot_activity, name="bot-activity"),
    path("bots/<int:pk>/versions/", site_views.bot_version_new, name="bot-version-new"),
    path("bots/<int:pk>/ladder/", site_views.bot_ladder, name="bot-ladder"),
    path("bots/<int:pk>/remote-token/", site_views.bot_remote_token, name="bot-remote-token"),
    path("matches/", site_views.matches_page, name="matches"),
    path("matches/<int:pk>/", site_views.match_page, name="match"),
    path("matches/<int:pk>/live/", live_views.match_live_page, name="match-live"),
    path("matches/<int:pk>/live/events/", live_views.match_live_events, name="match-live-events"),
    path("first-bot/", authors_views.first_bot, name="first-bot"),
    path("first-bot/search/", authors_views.search_guide, name="search-guide"),
    path("games/<str:game>/reference/", authors_views.game_reference, name="game-reference"),
    path("games/<str:game>/starter.zip", authors_views.starter_zip, name="starter-kit"),
    path("sdk/<str:filename>", authors_views.kit_wheel, name="kit-wheel"),
    path("challenges/", authors_views.challenge_list, name="challenges"),
    path("challenges/<int:pk>/", authors_views.challenge_page, name="challenge"),
    path("challenges/<int:pk>/results/", authors_views.challenge_results, name="challenge-results"),
    path("bots/<int:pk>/challenge/", authors_views.challenge_new, name="challenge-new"),
    path("tournaments/", tournaments_views.tournament_list, name="tournaments"),
    path("tournaments/<int:pk>/", tournaments_views.tournament_page, name="tournament"),
    path("tournaments/<int:pk>/standings/", tournaments_views.tournament_standings, name="tournament-standings"),
    path("play/", tables_views.play_page, name="play"),
    path("live/", live_views.live_page, name="live"),
    path("live/lists/", live_views.live_lists, name="live-lists"),
    path("live/next/", live_views.live_next, name="live-next"),
    path("live/broadcasts/<int:pk>/frames/", live_views.live_broadcast_frames, name="live-broadcast-frames"),
    path("tables/<int:pk>/", tables_views.table_page, name="table"),
    path("tables/<int:pk>/cancel/", tables_views.cancel_table, name="table-cancel"),
    path("tables/<int:pk>/resign/", tables_views.resign_table, name="table-resign"),
    path("tables/<int:pk>/events/", tables_views.table_events, name="table-events"),
    path("tables/<int:pk>/frames/", tables_views.table_frames, name="table-frames"),
    path("tables/<int:pk>/replay.json", tables_views.table_replay, name="table-replay"),
    path("account/tables/", tables_views.my_tables, name="my-tables"),
    path("account/signup/", accounts_views.signup, name="signup"),
    path("account/welcome/", accounts_views.welcome, name="welcome"),
    path("account/verify-email/", accounts_views.verify_email, name="verify-email"),
    path("account/verify-email/<str:key>/", accounts_views.verify_email_link, name="verify-email-link"),
    path("account/bots/", site_views.my_bots, name="my-bots"),
    path("account/bots/live/", site_views.my_bots_live, name="my-bots-live"),
    path("account/tokens/", site_views.tokens, name="tokens"),
    path("account/tokens/<int:pk>/revoke/", site_views.token_revoke, name="token-revoke"),
]
