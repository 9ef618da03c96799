#!/usr/bin/env python3
"""bench/write-test-file.py PATH MIB: a file of MIB MiB of random data for the
storage-to-GPU benchmarks (bench/compare-io-gpu.sh, bench/ab/gds-handles-ab.sh).
No two MiB alike (each starts with its index), so a read served from the
wrong offset shows in a byte check; fsynced, then its pages dropped from the
page cache, so the first read of it is cold."""
import os
import sys

path, mib = sys.argv[1], int(sys.argv[2])
blk = bytearray(os.urandom(1 << 20))
with open(path, "wb") as f:
    for i in range(mib):
        blk[0:8] = i.to_bytes(8, "little")
        f.write(blk)
    f.flush()
    os.fsync(f.fileno())
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)
