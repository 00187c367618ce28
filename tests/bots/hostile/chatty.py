# Answers every request twice (in one write, so both lines reach the runner together).
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        reply = json.dumps({"type": "action", "action": message["legal"][0]}) + "\n"
        sys.stdout.write(reply + reply)
        sys.stdout.flush()
    else:
        break
