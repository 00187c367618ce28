# Takes {SLEEP_MS} ms of wall time (almost no CPU) over every move.
import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        time.sleep(float("{SLEEP_MS}") / 1000)
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
