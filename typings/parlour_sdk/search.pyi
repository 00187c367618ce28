# parlour_sdk.search as a bot imports it (bots/sdk/search.py).
from bots.sdk.search import DEFAULT_TIME_MS as DEFAULT_TIME_MS
from bots.sdk.search import Evaluate as Evaluate
from bots.sdk.search import Filled as Filled
from bots.sdk.search import Node as Node
from bots.sdk.search import OutOfTime as OutOfTime
from bots.sdk.search import Playout as Playout
from bots.sdk.search import SearchResult as SearchResult
from bots.sdk.search import concrete_actions as concrete_actions
from bots.sdk.search import ismcts as ismcts
from bots.sdk.search import random_playout as random_playout
from bots.sdk.search import rank_rewards as rank_rewards
from bots.sdk.search import step as step
