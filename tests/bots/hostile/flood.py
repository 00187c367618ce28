# Floods stdout with one endless line, then (if still alive) with endless lines.
import json
import sys

for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print('{"type": "ready"}', flush=True)
    else:
        chunk = "y" * 65536
        while True:
            sys.stdout.write(chunk)
