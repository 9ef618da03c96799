"""One rank of a job under gpufeed launch: rank 1 waits for its input (a
slow pipe from a process it starts), the others sleep briefly a step; every
rank marks its steps.  Runs SECONDS."""
import os
import subprocess
import sys
import time

import gpufeed

seconds = float(sys.argv[1])
end = time.monotonic() + seconds
if os.environ.get("LOCAL_RANK") == "1":
    writer = subprocess.Popen([sys.executable, "-c", """
import sys, time
end = time.monotonic() + %f
while time.monotonic() < end:
    time.sleep(0.1)
    sys.stdout.buffer.write(b"x" * 4096)
    sys.stdout.buffer.flush()
""" % seconds], stdout=subprocess.PIPE)
    while writer.stdout.read(4096):
        gpufeed.step()
    writer.wait()
else:
    while time.monotonic() < end:
        time.sleep(0.02)
        gpufeed.step()
