"""Memory stays bounded over many epochs: the slots are reused, nothing piles up."""
import gc
import os

import numpy
import pytest

import gpufeed
from conftest import SMALL


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def under_asan():
    with open("/proc/self/maps") as f:
        return "libasan" in f.read()


def test_rss_is_flat_over_many_epochs(records_ds, lines_ds):
    if under_asan():
        pytest.skip("under ASan the RSS holds its quarantine of freed memory")
    loaders = [gpufeed.Loader(records_ds, 32, slots=4, **SMALL), gpufeed.Loader(lines_ds, 32, slots=4, **SMALL)]
    samples = 0

    def epoch():
        nonlocal samples
        for loader in loaders:
            for batch in loader:
                arr = numpy.from_dlpack(batch)
                samples += len(batch.offsets) - 1
                assert arr.size == batch.nbytes

    for _ in range(3):
        epoch()
    gc.collect()
    start = rss_bytes()
    for _ in range(200):
        epoch()
    gc.collect()
    grown = rss_bytes() - start
    for loader in loaders:
        assert loader.counters()["slots_in_use"] <= 4
        loader.close()
    assert samples == 203 * (1000 + 997)
    assert grown < 4 << 20, "RSS grew by %d KiB over 200 epochs" % (grown >> 10)
