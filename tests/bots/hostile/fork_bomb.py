# Starts a fork bomb in a child, then plays normally; reports how far the bomb got.
import json
import os
import sys
import time

bomber = os.fork()
if bomber == 0:
    os.setsid()
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.001)
time.sleep(0.3)
try:
    child = os.fork()
    if child == 0:
        os._exit(0)
    report = "main could still fork"
except OSError as exc:
    report = f"fork refused: {exc.strerror}"
print(f"BOMB uid={os.getuid()} {report}", file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
