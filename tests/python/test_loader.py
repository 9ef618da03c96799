"""gpufeed.Loader: every sample once per epoch across ranks, the order, resume, errors."""
import errno
import os
import shutil
import subprocess
import sys
import threading

import pytest

import gpufeed
from conftest import SMALL, epoch_samples

N = 1000  # records_ds


def global_order(per_rank):
    """Rank r's k-th sample is global position k * W + r (include/gpufeed/loader.h)."""
    world = len(per_rank)
    assert len({len(seq) for seq in per_rank}) == 1, "ranks got different counts"
    return [per_rank[p % world][p // world] for p in range(world * len(per_rank[0]))]


def run_ranks(path, world, batch=32, **kw):
    per_rank = []
    for rank in range(world):
        with gpufeed.Loader(path, batch, rank=rank, world_size=world, **kw) as loader:
            got = epoch_samples(loader)
            assert len(got) == loader.samples_per_epoch
            per_rank.append(got)
    return per_rank


@pytest.mark.parametrize("world", [1, 2, 3, 4, 7])
def test_every_sample_once_per_epoch_across_ranks_pad(records_ds, world):
    whole = global_order(run_ranks(records_ds, 1, seed=5, **SMALL))
    assert sorted(whole) == list(range(N))
    order = global_order(run_ranks(records_ds, world, seed=5, **SMALL))
    pad = (-N) % world
    # The same global sequence whatever the world size; the padding repeats its first samples.
    assert order == whole + whole[:pad]


@pytest.mark.parametrize("world", [3, 7])
def test_every_sample_at_most_once_with_drop(records_ds, world):
    whole = global_order(run_ranks(records_ds, 1, seed=5, **SMALL))
    order = global_order(run_ranks(records_ds, world, seed=5, uneven="drop", **SMALL))
    assert order == whole[: N - N % world]


def test_variable_size_samples_across_ranks(lines_ds):
    per_rank = run_ranks(lines_ds, 3, batch=10, seed=1, **SMALL)
    order = global_order(per_rank)
    assert sorted(order[:997]) == list(range(997)) and order[997:] == order[:2]


def test_order_is_a_function_of_seed_and_epoch(records_ds):
    def epoch(seed, e):
        with gpufeed.Loader(records_ds, 50, seed=seed, **SMALL) as loader:
            loader.set_epoch(e)
            return epoch_samples(loader)

    a = epoch(11, 0)
    assert a == epoch(11, 0)
    assert a != sorted(a), "not shuffled"
    assert a != epoch(12, 0) and a != epoch(11, 1)
    assert sorted(epoch(11, 1)) == list(range(N))


def test_no_shuffle_is_dataset_order(records_ds):
    with gpufeed.Loader(records_ds, 64, shuffle=False) as loader:
        assert epoch_samples(loader) == list(range(N))


def test_passes_walk_epochs_and_set_epoch_picks_one(records_ds):
    with gpufeed.Loader(records_ds, 100, seed=3, **SMALL) as loader:
        first = [b.epoch for b in loader]
        second_order = epoch_samples(loader)
        assert first == [0] * len(loader)
        assert loader.epoch == 1
        loader.set_epoch(1)
        assert epoch_samples(loader) == second_order
        loader.set_epoch(7)
        assert {b.epoch for b in loader} == {7}


def test_len_batches_and_drop_last(records_ds):
    with gpufeed.Loader(records_ds, 64, world_size=3, rank=1) as loader:
        counts = [b.count for b in loader]
        assert len(loader) == len(counts) == -(-loader.samples_per_epoch // 64)
        assert counts[-1] == loader.samples_per_epoch % 64 and set(counts[:-1]) == {64}
    with gpufeed.Loader(records_ds, 64, drop_last=True) as loader:
        counts = [b.count for b in loader]
        assert len(loader) == len(counts) == N // 64 and set(counts) == {64}


def test_resume_on_another_world_size(records_ds):
    kw = dict(seed=9, **SMALL)
    whole = global_order(run_ranks(records_ds, 1, batch=16, **kw))
    loaders = [gpufeed.Loader(records_ds, 16, rank=r, world_size=4, **kw) for r in range(4)]
    seen = [[] for _ in loaders]
    for _ in range(5):
        for rank, loader in enumerate(loaders):
            with next(loader) as batch:
                seen[rank].extend(int(s) for s in batch.samples)
    states = [loader.state_dict() for loader in loaders]
    assert all(s == states[0] for s in states)
    state = states[0]
    assert state == {"seed": 9, "epoch": 0, "position": 5 * 16 * 4, "world_size": 4, "batch_size": 16}
    for loader in loaders:
        loader.close()
    rest = []
    for rank in range(2):
        with gpufeed.Loader(records_ds, 16, rank=rank, world_size=2, **kw) as loader:
            loader.load_state_dict(state)
            rest.append(epoch_samples(loader))
    assert global_order(seen) + global_order(rest) == whole


def test_resume_refuses_another_seed(records_ds):
    with gpufeed.Loader(records_ds, 16, seed=1) as loader:
        state = loader.state_dict()
    with gpufeed.Loader(records_ds, 16, seed=2) as loader:
        with pytest.raises(gpufeed.Error) as e:
            loader.load_state_dict(state)
        assert e.value.errno == errno.EINVAL
        with pytest.raises(ValueError, match="position"):
            loader.load_state_dict({"seed": 2, "epoch": 0})


def test_rank_and_world_size_come_from_the_environment(records_ds, monkeypatch):
    monkeypatch.setenv("RANK", "2")
    monkeypatch.setenv("WORLD_SIZE", "3")
    with gpufeed.Loader(records_ds, 8) as loader:
        assert (loader.rank, loader.world_size) == (2, 3)
    with gpufeed.Loader(records_ds, 8, rank=0, world_size=1) as loader:
        assert (loader.rank, loader.world_size) == (0, 1)
    monkeypatch.setenv("RANK", "3")
    with pytest.raises(ValueError, match="RANK"):
        gpufeed.Loader(records_ds, 8)
    monkeypatch.setenv("WORLD_SIZE", "x")
    with pytest.raises(ValueError, match="WORLD_SIZE"):
        gpufeed.Loader(records_ds, 8)


def test_bad_arguments(records_ds):
    with pytest.raises(ValueError):
        gpufeed.Loader(records_ds, 0)
    with pytest.raises(ValueError):
        gpufeed.Loader(records_ds, 8, rank=2, world_size=2)
    with pytest.raises(ValueError):
        gpufeed.Loader(records_ds, 8, device="tpu")
    with pytest.raises(ValueError):
        gpufeed.Loader(records_ds, 8, uneven="spread")
    with pytest.raises(ValueError):
        gpufeed.Loader(records_ds, 8, slots=1)
    with pytest.raises(TypeError):
        gpufeed.Loader(records_ds, 8, 0)  # rank is keyword-only


def test_a_corrupt_record_reaches_next_with_verify(records_ds, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(records_ds, copy)
    with gpufeed.Dataset(copy) as ds:
        shard = ds.shards[2]
        loc = ds.sample(shard["first_sample"])
    with open(shard["data_path"], "r+b") as f:
        f.seek(loc["offset"] + 9)
        f.write(b"\x00\x01")
    with gpufeed.Loader(copy, 50, shuffle=False, verify=True) as loader:
        with pytest.raises(gpufeed.Error) as e:
            for _ in loader:
                pass
        assert e.value.errno == errno.EBADMSG
        assert shard["data_path"].rsplit("/", 1)[1] in e.value.strerror


def test_counters_and_shuffle_quality(records_ds):
    with gpufeed.Loader(records_ds, 40, slots=3, seed=4, **SMALL) as loader:
        epoch_samples(loader)
        c = loader.counters()
        assert c["slots"] == 3 and c["samples_delivered"] == N and c["batches_delivered"] == len(loader)
        assert c["next_calls"] >= len(loader) and c["bytes_read"] >= N * 256
        shuffled = loader.shuffle_quality()
    with gpufeed.Loader(records_ds, 40, shuffle=False, **SMALL) as loader:
        ordered = loader.shuffle_quality()
    assert 0 <= ordered["score"] < shuffled["score"] <= shuffled["full"] + 1e-9


def test_release_close_and_batches_after_close(records_ds):
    loader = gpufeed.Loader(records_ds, 10, shuffle=False)
    a = next(loader)
    assert not a.released and len(a) == a.count == 10 and a.nbytes == 2560 and a.record_size == 256
    a.release()
    a.release()
    assert a.released
    with pytest.raises(ValueError, match="released"):
        a.tobytes()
    b = next(loader)
    data = b.tobytes()
    loader.close()
    loader.close()
    assert b.released and loader.closed
    with pytest.raises(ValueError, match="closed"):
        b.tobytes()
    with pytest.raises(ValueError, match="closed"):
        next(loader)
    assert len(data) == 2560 and repr(b).endswith("released>")


def test_a_python_transform_runs_on_the_loaders_threads(records_ds):
    threads, kept = set(), []

    def stamp(sample, data):
        threads.add(threading.get_ident())
        kept.append(data)
        data[8:12] = b"SEEN"  # in place

    with gpufeed.Loader(records_ds, 100, shuffle=False, transform=stamp, threads=2) as loader:
        for batch in loader:
            with batch:
                payload = batch.tobytes()
                assert all(payload[k * 256 + 8:k * 256 + 12] == b"SEEN" for k in range(batch.count))
                assert batch.record_size == 256
    assert threads and threading.get_ident() not in threads
    assert len(kept) == N
    with pytest.raises(ValueError):
        kept[0][0]  # released after the call: no view into a reused slot


def test_a_transform_may_return_new_bytes(records_ds):
    def shorten(sample, data):
        return b"%d" % sample

    with gpufeed.Loader(records_ds, 64, shuffle=False, transform=shorten) as loader:
        got = []
        for batch in loader:
            with batch:
                payload, offsets = batch.tobytes(), batch.offsets
                assert batch.record_size == 0 and offsets[-1] == batch.nbytes
                got += [int(payload[offsets[k]:offsets[k + 1]]) for k in range(batch.count)]
    assert got == list(range(N))


def test_a_transforms_exception_reaches_next(records_ds):
    def picky(sample, data):
        if sample == 517:
            raise KeyError("no sample 517 today")

    with gpufeed.Loader(records_ds, 50, transform=picky, seed=2) as loader:
        with pytest.raises(KeyError, match="517"):
            for _ in loader:
                pass
    for bad, error in ((lambda s, d: b"x" * 300, ValueError), (lambda s, d: 5, TypeError)):
        with gpufeed.Loader(records_ds, 50, transform=bad) as loader:
            with pytest.raises(error):
                next(loader)
    with pytest.raises(TypeError, match="callable"):
        gpufeed.Loader(records_ds, 50, transform="upper")


def test_a_loader_with_a_transform_left_open_at_exit(records_ds):
    # The loader's threads are in the (slow) transform when the script ends.
    code = ("import sys, time, gpufeed\n"
            "loader = gpufeed.Loader(sys.argv[1], 10, transform=lambda s, d: time.sleep(0.002), slots=4)\n"
            "batch = next(loader)\n"
            "print('read', batch.count)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gpufeed.__file__)))
    out = subprocess.run([sys.executable, "-c", code, records_ds], capture_output=True, text=True, env=env,
                         timeout=60)
    assert out.returncode == 0 and out.stdout == "read 10\n", out.stderr


def test_a_loader_in_a_cycle_with_its_transform_is_collected(records_ds):
    import gc
    import weakref

    def make():
        box = {}

        def f(sample, data):
            # The transform refers to its loader through box (the cycle).  The
            # loader's threads start reading at open, so the first calls may
            # come before box is filled: look, never insist.
            box.get("loader")

        loader = gpufeed.Loader(records_ds, 10, transform=f)
        box["loader"] = loader
        next(loader).release()
        return weakref.ref(f)

    ref = make()
    gc.collect()
    assert ref() is None


def test_a_loader_dropped_inside_its_own_transform(records_ds):
    """Its last reference goes on one of its threads: closing there would join
    that thread; it is left open (a ResourceWarning) and closed at exit."""
    code = ("import sys, threading, time, gpufeed\n"
            "ready, box = threading.Event(), {}\n"
            "def drop(sample, data):\n"
            "    ready.wait()\n"
            "    box.pop('loader', None)\n"
            "box['loader'] = gpufeed.Loader(sys.argv[1], 10, transform=drop)\n"
            "box['loader'].set_epoch(0)\n"  # the threads read (and transform) once asked
            "ready.set()\n"
            "time.sleep(0.3)\n"
            "print('dropped', 'loader' not in box)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gpufeed.__file__)))
    out = subprocess.run([sys.executable, "-W", "always", "-c", code, records_ds], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 0 and out.stdout == "dropped True\n", out.stderr
    assert "left open" in out.stderr
