# The SDK as a bot imports it: bots/sdk, mounted in the sandbox as parlour_sdk (bots/sandbox). This lets mypy check
# bots/examples/ against the SDK's own types.
from bots.sdk import Context as Context
from bots.sdk import ProtocolError as ProtocolError
from bots.sdk import engine as engine
from bots.sdk import log as log
from bots.sdk import run as run
from bots.sdk import search as search
