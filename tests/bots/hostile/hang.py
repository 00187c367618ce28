import json
import sys
import time

for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print('{"type": "ready"}', flush=True)
    else:
        time.sleep(3600)
