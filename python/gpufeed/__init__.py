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
import os as _os

from ._gpufeed import Batch, Dataset, Error, Loader, Tensor, bind, pack, topo, version

__all__ = ["Batch", "Dataset", "Error", "Loader", "Tensor", "bind", "bind_worker", "pack", "topo", "version",
           "local_rank"]
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


def bind_worker(worker_id=None, **kwargs):
    """Binds the calling process to the CPUs and memory of LOCAL_RANK's GPU.

    Made to be a DataLoader's ``worker_init_fn`` (the worker id it is given
    is ignored): a worker re-asserts the binding after fork or spawn.  The
    keywords are bind()'s (cpu, mem, mem_optional).  Returns bind()'s dict.
    """
    del worker_id
    return bind(local_rank(), **kwargs)
