"""The GIL is released while the loader waits or works: another Python thread runs."""
import sys
import threading
import time

import pytest

import gpufeed
from conftest import pack_records


@pytest.fixture(scope="module")
def big_ds(tmp_path_factory):
    """64 MiB of 64 KiB records: a batch of 64 is 4 MiB to read and check."""
    path = tmp_path_factory.mktemp("gil") / "big"
    pack_records(path, 1024, 64 << 10)
    return str(path)


class Counter:
    """A thread that counts as long as it holds the GIL and lets it go every step."""

    def __init__(self):
        self.n = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop:
            self.n += 1
            time.sleep(0)  # drops the GIL, so the main thread gets it back


@pytest.fixture
def counter():
    """With a switch interval of 1000 s the main thread never hands the GIL over on
    its own: the counter moves only while the main thread is in a call that
    released it."""
    old = sys.getswitchinterval()
    c = Counter()
    sys.setswitchinterval(1000)
    try:
        c.thread.start()
        while c.n == 0:
            time.sleep(0.001)
        yield c
    finally:
        c.stop = True
        c.thread.join()
        sys.setswitchinterval(old)


def test_counter_stands_still_while_the_gil_is_held(counter):
    """The method can fail: a call that keeps the GIL lets nobody count."""
    stood_still = 0
    for _ in range(5):
        before = counter.n
        data = b"\x01" * (64 << 20)  # memset with the GIL held
        after = counter.n
        stood_still += after == before
        del data
    assert stood_still == 5


def test_next_releases_the_gil(big_ds, counter):
    ran = []
    with gpufeed.Loader(big_ds, 64, threads=1, slots=2, verify=True) as loader:
        for _ in range(12):
            before = counter.n
            batch = next(loader)
            ran.append(counter.n - before)
            batch.release()
        assert loader.counters()["wait_ns"] > 0
    assert any(ran), "the counting thread never ran during next(): %s" % ran


def test_open_and_pack_release_the_gil(big_ds, counter, tmp_path):
    before = counter.n
    with gpufeed.Dataset(big_ds) as ds:
        ds.verify()  # reads and hashes 64 MiB
    assert counter.n > before
    flat = tmp_path / "flat"
    flat.write_bytes(b"\x02" * (32 << 20))
    before = counter.n
    gpufeed.pack(flat, tmp_path / "out", input="records", record_size=1 << 20)
    assert counter.n > before
