"""A job that reads a file in random pieces of 1 MiB, the file's pages dropped
from the page cache before each step (posix_fadvise DONTNEED on this file
alone), so the reads go to the disk: input-bound on the disk."""
import os
import random
import sys
import time

import gpufeed

path, seconds = sys.argv[1], float(sys.argv[2])
fd = os.open(path, os.O_RDONLY)
size = os.fstat(fd).st_size
rng = random.Random(7)
buf = bytearray(1 << 20)
end = time.monotonic() + seconds
while time.monotonic() < end:
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    for _ in range(4):
        os.preadv(fd, [buf], rng.randrange(0, size >> 20) << 20)
    gpufeed.step()
os.close(fd)
