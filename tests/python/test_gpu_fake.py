"""The GPU path of the binding against the stand-in libcuda and NVML (tests/fakes/):
batches on device (2, ordinal), the consumer's stream waited on, CUDA errors named.
tests/gpu/ runs the real thing on a GPU machine."""
import errno
import os

import pytest

import gpufeed
from conftest import SRC, record


@pytest.fixture
def fake_gpu(monkeypatch):
    build = os.environ.get("BUILD", "build")
    cuda = os.environ.get("GPUFEED_FAKE_CUDA") or os.path.join(SRC, build, "fakes", "libcuda.so.1")
    nvml = os.environ.get("GPUFEED_FAKE_NVML") or os.path.join(SRC, build, "fakes", "libnvidia-ml.so.1")
    if not (os.path.exists(cuda) and os.path.exists(nvml)):
        pytest.skip("no stand-in libcuda/NVML (make tests builds them)")
    monkeypatch.setenv("GPUFEED_CUDA_LIBRARY", cuda)
    monkeypatch.setenv("GPUFEED_NVML_LIBRARY", nvml)
    for name in ("FAKE_CUDA_FAIL", "FAKE_CUDA_SCENARIO", "FAKE_CUDA_PCI", "GPUFEED_PCI_LOCALITY"):
        monkeypatch.delenv(name, raising=False)


def test_batches_on_the_gpu(records_ds, fake_gpu):
    with gpufeed.Loader(records_ds, 10, shuffle=False, device="cuda:0") as loader:
        assert loader.device == "cuda:0"
        with next(loader) as batch:
            kind, ordinal = batch.__dlpack_device__()
            assert kind == 2 and ordinal >= 0  # kDLCUDA
            assert batch.stream != 0 and batch.ptr != 0
            assert batch.tobytes() == b"".join(record(i, 256) for i in range(10))  # the copy's source
            capsule = batch.__dlpack__(stream=-1)
            assert type(capsule).__name__ == "PyCapsule"
        assert sum(b.count for b in loader) == 990


def test_the_consumers_stream_waits_for_the_copy(records_ds, fake_gpu, monkeypatch):
    with gpufeed.Loader(records_ds, 10, device=0) as loader:
        with next(loader) as batch:
            monkeypatch.setenv("FAKE_CUDA_FAIL", "cuStreamWaitEvent")
            batch.__dlpack__(stream=-1)  # -1: no wait asked, no call made
            with pytest.raises(gpufeed.Error) as e:
                batch.__dlpack__(stream=0x1234)
            assert "cuStreamWaitEvent" in e.value.strerror
            with pytest.raises(gpufeed.Error):
                batch.__dlpack__()  # None: the legacy default stream, waited on too
            monkeypatch.delenv("FAKE_CUDA_FAIL")
            batch.__dlpack__(stream=2)


def test_cuda_means_local_ranks_gpu(records_ds, fake_gpu, monkeypatch):
    monkeypatch.setenv("LOCAL_RANK", "1")
    with gpufeed.Loader(records_ds, 10, device="cuda") as loader:
        assert (loader.device, loader.gpu) == ("cuda:1", 1)
    monkeypatch.setenv("LOCAL_RANK", "9")
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.Loader(records_ds, 10, device="cuda")
    assert e.value.errno in (errno.ENODEV, errno.ENOENT, errno.EINVAL)


def test_cuda_devices_are_numbered_as_this_process_sees_them(records_ds, fake_gpu, monkeypatch):
    """CUDA_VISIBLE_DEVICES by index here (the stand-ins are no GPUs of the
    machine model, which resolves UUIDs: tests/gpu/python_loader.py does)."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1,0")
    with gpufeed.Loader(records_ds, 10, device="cuda:1") as loader:
        assert (loader.device, loader.gpu) == ("cuda:1", 0)
    with gpufeed.Loader(records_ds, 10, device=0) as loader:
        assert (loader.device, loader.gpu) == ("cuda:0", 1)
    monkeypatch.setenv("LOCAL_RANK", "1")
    with gpufeed.Loader(records_ds, 10, device="cuda") as loader:
        assert (loader.device, loader.gpu) == ("cuda:1", 0)
    with pytest.raises(ValueError, match="CUDA_VISIBLE_DEVICES"):
        gpufeed.Loader(records_ds, 10, device="cuda:2")
    # gpufeed launch shows each rank its own GPU alone, as cuda:0, whatever LOCAL_RANK is.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    monkeypatch.setenv("LOCAL_RANK", "3")
    with gpufeed.Loader(records_ds, 10, device="cuda") as loader:
        assert (loader.device, loader.gpu) == ("cuda:0", 1)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-no-such-uuid")
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.Loader(records_ds, 10, device="cuda:0")
    assert "GPU-no-such-uuid" in e.value.strerror
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    with gpufeed.Loader(records_ds, 10, device="cuda:1") as loader:
        assert (loader.device, loader.gpu) == ("cuda:1", 1)
    torch = pytest.importorskip("torch")
    with gpufeed.Loader(records_ds, 10, device=torch.device("cuda", 1)) as loader:
        assert loader.gpu == 1
