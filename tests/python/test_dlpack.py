"""Batches through DLPack into numpy and torch, without a copy, and the tensors' lifetime."""
import errno
import faulthandler

import numpy
import pytest

import gpufeed
from conftest import line, record


@pytest.fixture(autouse=True)
def no_hang():
    """A slot that never comes back makes next() wait for ever: fail instead."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def test_fixed_size_batch_into_numpy(records_ds):
    with gpufeed.Loader(records_ds, 32, shuffle=False) as loader:
        with next(loader) as batch:
            assert batch.__dlpack_device__() == (1, 0)
            arr = numpy.from_dlpack(batch)
            assert arr.dtype == numpy.uint8 and arr.shape == (32, 256)
            assert arr.ctypes.data == batch.ptr, "numpy copied the batch"
            assert [arr[k].tobytes() for k in range(32)] == [record(i, 256) for i in range(32)]
            offsets = batch.offsets
            assert offsets.dtype == numpy.int64 and list(offsets) == [256 * k for k in range(33)]
            assert batch.samples.dtype == numpy.uint64 and list(batch.samples) == list(range(32))


def test_variable_size_batch_into_numpy(lines_ds):
    with gpufeed.Loader(lines_ds, 20, shuffle=False) as loader:
        with next(loader) as batch:
            arr = numpy.from_dlpack(batch)
            offsets = batch.offsets
            assert batch.record_size == 0 and arr.shape == (batch.nbytes,) and arr.ctypes.data == batch.ptr
            assert offsets.shape == (21,) and offsets[0] == 0 and offsets[-1] == batch.nbytes
            got = [arr[offsets[k]:offsets[k + 1]].tobytes() for k in range(20)]
            assert got == [line(i) for i in range(20)]


def test_batch_into_torch_shares_the_memory(records_ds, lines_ds):
    torch = pytest.importorskip("torch")
    with gpufeed.Loader(records_ds, 16, shuffle=False) as loader:
        with next(loader) as batch:
            t = torch.from_dlpack(batch)
            a = numpy.from_dlpack(batch)
            assert t.dtype == torch.uint8 and tuple(t.shape) == (16, 256) and t.device.type == "cpu"
            assert t.data_ptr() == a.ctypes.data == batch.ptr, "a copy was made"
            t[0, 0] = 0xAB  # one memory: numpy sees torch's write
            assert a[0, 0] == 0xAB
    with gpufeed.Loader(lines_ds, 16, shuffle=False) as loader:
        with next(loader) as batch:
            data = torch.from_dlpack(batch)
            offsets = torch.from_dlpack(batch.offsets_dlpack())
            assert offsets.dtype == torch.int64 and int(offsets[-1]) == batch.nbytes == data.numel()
            assert bytes(data[int(offsets[3]):int(offsets[4])].tolist()) == line(3)


def test_a_tensor_keeps_its_slot_after_release_and_close(records_ds):
    loader = gpufeed.Loader(records_ds, 25, shuffle=False, slots=3)
    batch = next(loader)
    kept = numpy.from_dlpack(batch)
    want = kept.copy()
    batch.release()
    # Two slots left to cycle through the whole epoch (the loop's last batch
    # holds one while next() fills the other): the kept one is not reused.
    rest = sum(b.count for b in loader)
    assert rest == 1000 - 25
    assert (kept == want).all()
    loader.close()
    assert (kept == want).all()
    del kept


def test_next_refuses_when_every_slot_is_held(records_ds):
    with gpufeed.Loader(records_ds, 10, slots=2) as loader:
        held = [numpy.from_dlpack(b) for b in (next(loader), next(loader))]
        with pytest.raises(gpufeed.Error) as e:
            next(loader)
        assert e.value.errno == errno.ENOBUFS and "slots" in e.value.strerror
        del held
        assert next(loader).count == 10


def test_a_capsule_nobody_took_gives_its_slot_back(records_ds):
    with gpufeed.Loader(records_ds, 10, slots=2) as loader:
        for batch in loader:  # 100 batches through 2 slots
            capsule = batch.__dlpack__()
            assert type(capsule).__name__ == "PyCapsule"
            del capsule
            batch.release()
        assert loader.counters()["batches_delivered"] == 100


def test_consumers_may_take_each_tensor_once(records_ds):
    with gpufeed.Loader(records_ds, 10) as loader:
        with next(loader) as batch:
            offsets = batch.offsets_dlpack()
            assert offsets.__dlpack_device__() == (1, 0)
            numpy.from_dlpack(offsets)
            with pytest.raises(BufferError):
                numpy.from_dlpack(offsets)
            with pytest.raises(BufferError):
                batch.__dlpack__(copy=True)
            numpy.from_dlpack(batch)
            numpy.from_dlpack(batch)  # a batch exports as often as asked
        with pytest.raises(ValueError, match="released"):
            numpy.from_dlpack(batch)
