# Keeps a thread spinning to compute on the other players' time; reports how much CPU it got between its moves.
import json
import sys
import threading
import time


def spin():
    while True:
        pass


threading.Thread(target=spin, daemon=True).start()
replied_cpu = replied_wall = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        if replied_cpu is not None:
            cpu_ms = (time.process_time() - replied_cpu) * 1000
            wall_ms = (time.monotonic() - replied_wall) * 1000
            print(f"IDLE cpu_ms={cpu_ms:.0f} wall_ms={wall_ms:.0f}", file=sys.stderr, flush=True)
        # measured before replying: once the reply is out, the bot may be frozen at any instant
        replied_cpu, replied_wall = time.process_time(), time.monotonic()
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
