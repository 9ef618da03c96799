"""A job that sleeps each step (host-bound): N steps of SECONDS, a marker each."""
import sys
import time

import gpufeed

steps, seconds = int(sys.argv[1]), float(sys.argv[2])
for _ in range(steps):
    time.sleep(seconds)
    gpufeed.step()
