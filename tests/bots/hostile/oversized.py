import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    else:
        reply = {"type": "action", "action": message["legal"][0], "note": "x" * 1_000_000}
        print(json.dumps(reply), flush=True)
