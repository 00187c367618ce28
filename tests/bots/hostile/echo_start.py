# Plays the first legal action; reports every message it receives on stderr (one JSON per line).
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps(message), file=sys.stderr, flush=True)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0], "note": "first"}), flush=True)
    else:
        break
