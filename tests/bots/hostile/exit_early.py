import json
import sys

line = sys.stdin.readline()
assert json.loads(line)["type"] == "start"
print('{"type": "ready"}', flush=True)
sys.exit(0)
