"""A bot that thinks slowly: it sleeps a little before every move, so that a Love Letter match lasts a few seconds
and a fault-injection test can kill its worker in the middle of one. It plays the first legal action."""

import json
import sys
import time

THINK_SECONDS = 0.12

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        time.sleep(THINK_SECONDS)
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
