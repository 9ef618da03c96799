"""gpufeed: keep GPUs fed — the loader, datasets and machine model from Python.

    import gpufeed, torch
    loader = gpufeed.Loader("/data/train", batch_size=256, device="cuda")
    for batch in loader:                      # one epoch; again for the next
        x = torch.from_dlpack(batch)          # uint8 [256, record_size], no copy
        ...

The module is a thin layer over gpufeed's C library (libgpufeed, its public
API: include/gpufeed/*.h).  Every call that reads, waits or computes releases
the GIL.  Errors from the library are gpufeed.Error, an OSError whose errno
and message (strerror) name the file, shard or device.  docs/python.md has
the guide; gpufeed.torch the PyTorch DataLoader drop-in.
"""
import atexit as _atexit
import os as _os

from ._gpufeed import Batch, Dataset, Error, Loader, Tensor, bind, pack, step, topo, version
from ._gpufeed import _close_transforming

# A loader with a Python transform is closed before the interpreter
# finalizes: its threads need the GIL to finish the sample in hand.
_atexit.register(_close_transforming)

__all__ = ["Batch", "Dataset", "Error", "Loader", "Tensor", "bind", "bind_worker", "pack", "step", "topo", "version",
           "local_rank", "local_gpu"]
__version__ = version()


def local_rank():
    """The GPU index of this process: LOCAL_RANK as torchrun and gpufeed launch set it, else 0."""
    value = _os.environ.get("LOCAL_RANK", "")
    if not value:
        return 0
    try:
        rank = int(value)
    except ValueError:
        raise ValueError("LOCAL_RANK=%r in the environment is not an integer" % value) from None
    if rank < 0:
        raise ValueError("LOCAL_RANK=%r in the environment is negative" % value)
    return rank


def local_gpu():
    """This process's GPU as bind() names it: LOCAL_RANK's entry of
    CUDA_VISIBLE_DEVICES (the only one when it shows one, as gpufeed launch
    sets it for each rank: a UUID), else the NVML index LOCAL_RANK."""
    visible = _os.environ.get("CUDA_VISIBLE_DEVICES")
    rank = local_rank()
    if visible is None:
        return rank
    entries = visible.split(",")
    if len(entries) == 1 and entries[0]:
        return entries[0]
    if rank >= len(entries) or not entries[rank]:
        raise ValueError("LOCAL_RANK=%d, but CUDA_VISIBLE_DEVICES=%r shows %d" % (rank, visible, len(entries)))
    return entries[rank]


def bind_worker(worker_id=None, **kwargs):
    """Binds the calling process to the CPUs and memory of its GPU (local_gpu()).

    Made to be a DataLoader's ``worker_init_fn`` (the worker id it is given
    is ignored): a worker re-asserts the binding after fork or spawn.  The
    keywords are bind()'s (cpu, mem, mem_optional).  Returns bind()'s dict.
    """
    del worker_id
    return bind(local_gpu(), **kwargs)
