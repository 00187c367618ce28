# Touches more memory than the cgroup allows on its first move: the kernel kills it.
import json
import os
import sys

hoard = []
print(f"UID {os.getuid()}", file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    else:
        while True:
            hoard.append(bytearray(16 * 1024 * 1024))
