import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    else:
        reply = json.dumps({"type": "action", "action": message["legal"][0]}) + "\n"
        while True:
            sys.stdout.write(reply * 100)
