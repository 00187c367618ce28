# A 2 GB allocation must fail (RLIMIT_AS for Python); the bot then plays normally.
import json
import os
import sys

try:
    block = bytearray(2 * 1024 * 1024 * 1024)
    print("ALLOC succeeded", file=sys.stderr, flush=True)
except MemoryError:
    print("ALLOC MemoryError", file=sys.stderr, flush=True)
print(f"UID {os.getuid()}", file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
