"""Shared set-up of the Python binding's tests (run by tests/cli/test_python.sh).

GPUFEED_PYTHONPATH names the directory holding the gpufeed package under
test (default: the tree's python/, after `make python`); GPUFEED the CLI
binary the results are compared with; GPUFEED_FIXTURES the unpacked fixture
recordings.  Datasets are packed once per session with gpufeed.pack: every
sample's bytes say its number, so a test can tell which sample it got."""
import os
import struct
import subprocess
import sys

import pytest

SRC = os.environ.get("GPUFEED_SRC") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.environ.get("GPUFEED_PYTHONPATH") or os.path.join(SRC, "python"))

import gpufeed  # noqa: E402


def record(i, size):
    """Fixed-size sample i: its number as 8 little-endian bytes, repeated."""
    return (struct.pack("<Q", i) * (size // 8 + 1))[:size]


def line(i):
    """Variable-size sample i (one text line): 'sample <i> ' then i % 61 letters."""
    return ("sample %d " % i + "abcdefghijklmnopqrstuvwxyz" * 3)[: len("sample %d " % i) + i % 61].encode()


def sample_number(data):
    """The number a sample made by record() or line() carries."""
    if data.startswith(b"sample "):
        return int(data.split(b" ")[1])
    return struct.unpack("<Q", bytes(data[:8]))[0]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("GPUFEED") or os.path.join(SRC, "build", "gpufeed")
    if not os.access(path, os.X_OK):
        pytest.skip("no gpufeed binary at %s (make cli)" % path)
    return path


@pytest.fixture(scope="session")
def machines():
    """The fixture recordings, unpacked: machines/<name>/root."""
    where = os.environ.get("GPUFEED_FIXTURES") or os.path.join(SRC, "build", "fixtures", "machines")
    if not os.environ.get("GPUFEED_FIXTURES"):
        subprocess.run([os.path.join(SRC, "tests", "fixtures", "tools", "unpack.sh"), where], check=True,
                       stdout=subprocess.DEVNULL)
    return where


def pack_records(outdir, n, size, **kw):
    flat = str(outdir) + ".records"
    with open(flat, "wb") as f:
        for i in range(n):
            f.write(record(i, size))
    result = gpufeed.pack(flat, str(outdir), input="records", record_size=size, **kw)
    os.unlink(flat)
    return result


def pack_lines(outdir, n, **kw):
    text = str(outdir) + ".txt"
    with open(text, "wb") as f:
        for i in range(n):
            f.write(line(i) + b"\n")
    result = gpufeed.pack(text, str(outdir), input="lines", **kw)
    os.unlink(text)
    return result


@pytest.fixture(scope="session")
def records_ds(tmp_path_factory):
    """1000 records of 256 bytes in shards of about 32 KiB (8 records of 4 KiB each)."""
    path = tmp_path_factory.mktemp("ds") / "records"
    pack_records(path, 1000, 256, shard_size=32 << 10)
    return str(path)


@pytest.fixture(scope="session")
def lines_ds(tmp_path_factory):
    """997 variable-size lines (9 to 72 bytes) packed with 64-byte alignment, shards of 8 KiB."""
    path = tmp_path_factory.mktemp("ds") / "lines"
    pack_lines(path, 997, align=64, shard_size=8 << 10)
    return str(path)


# Small blocks, so even these small datasets have many blocks to shuffle.
SMALL = dict(block_bytes=16 << 10, window_blocks=4)


def epoch_samples(loader):
    """The sample numbers of one pass over loader, in order, read from the bytes."""
    import numpy

    got = []
    for batch in loader:
        with batch:
            data = numpy.from_dlpack(batch)
            offsets = batch.offsets
            flat = data.reshape(-1)
            numbers = [sample_number(flat[offsets[k]:offsets[k + 1]].tobytes()) for k in range(batch.count)]
            assert numbers == [int(s) for s in batch.samples]
            del data, offsets, flat
            got.extend(numbers)
    return got
