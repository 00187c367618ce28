# parlour_sdk.engine as a bot imports it (bots/sdk/engine.py).
from bots.sdk.engine import Game as Game
from bots.sdk.engine import Seen as Seen
from bots.sdk.engine import State as State
from bots.sdk.engine import has_sampler as has_sampler
from bots.sdk.engine import load as load
from bots.sdk.engine import sample as sample
