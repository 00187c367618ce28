# Reports its uid on stderr, then takes 100 ms of wall time over every move (so concurrent matches overlap).
import json
import os
import sys
import time

print(f"UID {os.getuid()}", file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        time.sleep(0.1)
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
