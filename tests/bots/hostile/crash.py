import json
import sys

for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print('{"type": "ready"}', flush=True)
    else:
        raise RuntimeError("deliberate crash on the first move")
