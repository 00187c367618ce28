# A legal but slow bot: it sleeps 1.9 s before every move (almost no CPU), then plays the first legal action.
import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        time.sleep(1.9)
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
