from bots.sdk.engine import *
