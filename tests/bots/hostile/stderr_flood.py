# Writes 1 MB to stderr (more than is kept), then plays normally.
import json
import sys

sys.stderr.write("BEGIN\n" + "e" * 1_000_000 + "\nEND\n")
sys.stderr.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
