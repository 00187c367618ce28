import json
import sys

for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print('{"type": "ready"}', flush=True)
    else:
        print(json.dumps({"type": "action", "action": {"take": "three"}}), flush=True)
