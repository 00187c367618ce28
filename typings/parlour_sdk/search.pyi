from bots.sdk.search import *
