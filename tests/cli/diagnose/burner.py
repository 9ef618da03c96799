"""A job that burns its CPU each step (host-bound on its own CPU work)."""
import sys
import time

import gpufeed

end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    x = 0
    for i in range(200000):
        x += i * i
    gpufeed.step()
