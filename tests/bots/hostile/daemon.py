# Leaves a daemonised grandchild (double fork + setsid) that tries to outlive the match, then plays normally.
import json
import os
import sys

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        os.execv("/bin/sleep", ["sleep", "{TOKEN}"])
    os._exit(0)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
