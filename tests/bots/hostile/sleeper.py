# Says ready, then becomes a long sleep (findable on the host by its unique argument).
import os
import sys

sys.stdin.readline()
print('{"type": "ready"}', flush=True)
os.execv("/bin/sleep", ["sleep", "{TOKEN}"])
