import json
import sys

for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print('{"type": "ready"}', flush=True)
    else:
        print("I'd like to take three, please", flush=True)
