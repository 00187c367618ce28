# Never sends ready: writes one endless line at start-up instead.
import sys

while True:
    sys.stdout.write("z" * 65536)
