"""A job whose input comes through a slow pipe from a process it starts
(input-bound on another process): each step reads one record."""
import subprocess
import sys

import gpufeed

records, gap = int(sys.argv[1]), float(sys.argv[2])
writer = subprocess.Popen([sys.executable, "-c", """
import sys, time
for _ in range(%d):
    time.sleep(%f)
    sys.stdout.buffer.write(b"x" * 4096)
    sys.stdout.buffer.flush()
""" % (records, gap)], stdout=subprocess.PIPE)
while writer.stdout.read(4096):
    gpufeed.step()
writer.wait()
