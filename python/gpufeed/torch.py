"""gpufeed for PyTorch: a DataLoader drop-in and an IterableDataset adapter.

    from gpufeed.torch import DataLoader      # was: from torch.utils.data import DataLoader
    loader = DataLoader("/data/train", batch_size=256, shuffle=True, num_workers=8, pin_memory=True)
    for epoch in range(epochs):
        for x in loader:                      # uint8 [256, record_size] tensors
            ...

Batches come from gpufeed.Loader (the C library's threads, pinned slots,
O_DIRECT reads on the GPU's NUMA node) as torch tensors made with
torch.from_dlpack, without a copy: a dataset of fixed-size records gives one
uint8 tensor [batch, record_size]; variable-size samples give a pair
(data, offsets): data uint8 [bytes], offsets int64 [count + 1] (host memory).
With device="cuda" (LOCAL_RANK's GPU) or "cuda:N" the data is in GPU memory
and ready on the current stream; a batch's GPU memory is not written again
until the work queued on that stream before the next batch was asked for is
done (keep a tensor for later work and you must clone it).  RANK /
WORLD_SIZE / LOCAL_RANK are read as
torchrun and gpufeed launch set them, so each rank gets its share of every
epoch.  A tensor holds its slot of the loader until it is deleted: keep
fewer than `slots` (default 4) alive at once, or copy what you keep.
"""
try:
    import torch
    import torch.utils.data
except ImportError as e:  # pragma: no cover - exercised where torch is missing
    raise ImportError("gpufeed.torch needs PyTorch (Debian: apt-get install python3-torch); "
                      "the rest of gpufeed works without it (%s)" % e) from e

import os
import warnings

import gpufeed

__all__ = ["DataLoader", "GpufeedDataset", "collate"]


def collate(batch):
    """A gpufeed.Batch as torch tensors, without a copy.

    Fixed-size records: a uint8 tensor [count, record_size].  Variable-size
    samples: (data uint8 [nbytes], offsets int64 [count + 1]); sample i is
    data[offsets[i]:offsets[i + 1]].
    """
    data = torch.from_dlpack(batch)
    if batch.record_size:
        return data
    return data, torch.from_dlpack(batch.offsets_dlpack())


def _device(device):
    if isinstance(device, torch.device):
        if device.type == "cuda" and device.index is None:
            return "cuda"
        return str(device)
    return device


class GpufeedDataset(torch.utils.data.IterableDataset):
    """A packed dataset read by gpufeed.Loader, as an IterableDataset of batches.

    Each item is a whole batch (see collate()), so wrap it with
    ``torch.utils.data.DataLoader(ds, batch_size=None)`` and num_workers=0, or
    use gpufeed.torch.DataLoader.  len() is the number of batches this rank
    yields per epoch; ``samples`` the dataset's samples.  The keywords are
    gpufeed.Loader's.
    """

    def __init__(self, path, batch_size=1, **loader_kwargs):
        super().__init__()
        self.path = os.fspath(path)
        self.batch_size = batch_size
        self.loader_kwargs = dict(loader_kwargs)
        self._loader = None

    @property
    def loader(self):
        """The gpufeed.Loader, opened on first use (so the dataset pickles before)."""
        if self._loader is None:
            info = torch.utils.data.get_worker_info()
            if info is not None:
                raise RuntimeError("GpufeedDataset in a DataLoader worker process: use num_workers=0 "
                                   "(gpufeed reads with its own threads; each worker would read the whole epoch)")
            self._loader = gpufeed.Loader(self.path, self.batch_size, **self.loader_kwargs)
        return self._loader

    @property
    def samples(self):
        """Samples in the dataset (all ranks)."""
        with gpufeed.Dataset(self.path) as ds:
            return len(ds)

    def __iter__(self):
        # A batch is released when the next one is asked for, not as soon as
        # its tensor is made: on a GPU, release records an event on the stream
        # torch.from_dlpack gave (the current stream), and the slot is copied
        # into again only after that event, i.e. after the training step that
        # was queued on this batch before the loop came back for the next.
        held = None
        try:
            for batch in self.loader:
                if held is not None:
                    held.release()
                held = batch
                yield collate(batch)
        finally:
            if held is not None:
                held.release()

    def __len__(self):
        return len(self.loader)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_loader"] = None
        return state

    def set_epoch(self, epoch):
        self.loader.set_epoch(epoch)

    def state_dict(self):
        return self.loader.state_dict()

    def load_state_dict(self, state):
        self.loader.load_state_dict(state)

    def close(self):
        if self._loader is not None:
            self._loader.close()


class _Sampler:
    """loader.sampler.set_epoch(e), as scripts written for DistributedSampler call it."""

    def __init__(self, loader):
        self._loader = loader

    def set_epoch(self, epoch):
        self._loader.set_epoch(epoch)


# Arguments of torch.utils.data.DataLoader that concern worker processes and
# pinning, which gpufeed does in its own way: accepted, and said so once.
_IGNORED = ("num_workers", "timeout", "worker_init_fn", "multiprocessing_context", "prefetch_factor",
            "persistent_workers")


class DataLoader:
    """torch.utils.data.DataLoader's common arguments over a gpufeed dataset.

    dataset: the path of a dataset made by ``gpufeed pack`` (or a Megatron
    .bin/.idx prefix), not a torch Dataset.  batch_size, shuffle (default
    False, as PyTorch's) and drop_last mean what they mean in PyTorch;
    shuffling is gpufeed's seeded block-window order (seed, default 0, or
    generator.initial_seed()), a new order each epoch.  pin_memory is
    accepted and ignored (host batches are always pinned); num_workers,
    prefetch_factor, persistent_workers, worker_init_fn, timeout and
    multiprocessing_context are accepted and ignored with a warning
    (gpufeed.Loader's threads and slots stand for them).  sampler,
    batch_sampler and collate_fn cannot be honoured and raise TypeError.
    device ('cpu', 'cuda' = LOCAL_RANK's GPU, 'cuda:N', torch.device) is
    where batches are delivered; other keywords go to gpufeed.Loader
    (threads, slots, verify, uneven, rank, world_size, ...).
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", device="cpu", seed=None, **loader_kwargs):
        if isinstance(dataset, torch.utils.data.Dataset):
            raise TypeError("gpufeed.torch.DataLoader reads a packed dataset: pass its path (gpufeed pack turns "
                            "files, lines, .tar shards or fixed-size records into one), not a torch Dataset")
        for name, value in (("sampler", sampler), ("batch_sampler", batch_sampler), ("collate_fn", collate_fn)):
            if value is not None:
                raise TypeError("gpufeed.torch.DataLoader: %s cannot be honoured (gpufeed orders, shards and "
                                "collates the batches itself); leave it out" % name)
        if batch_size is None or batch_size < 1:
            raise ValueError("gpufeed.torch.DataLoader: batch_size must be a positive int")
        given = {"num_workers": num_workers, "timeout": timeout, "worker_init_fn": worker_init_fn,
                 "multiprocessing_context": multiprocessing_context, "prefetch_factor": prefetch_factor,
                 "persistent_workers": persistent_workers}
        ignored = [n for n in _IGNORED if given[n] not in (None, 0, False)]
        if ignored:
            warnings.warn("gpufeed.torch.DataLoader ignores %s: gpufeed reads with its own threads into pinned "
                          "slots (see gpufeed.Loader's threads= and slots=)" % ", ".join(ignored), stacklevel=2)
        del pin_memory, pin_memory_device  # always pinned
        if seed is None:
            seed = generator.initial_seed() if generator is not None else 0
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.dataset = GpufeedDataset(dataset, batch_size, shuffle=bool(shuffle), drop_last=drop_last,
                                      device=_device(device), seed=seed, **loader_kwargs)
        self.sampler = _Sampler(self)
        self.dataset.loader  # opened now: a bad path or argument fails here, as PyTorch's would

    @property
    def loader(self):
        """The gpufeed.Loader underneath (counters(), shuffle_quality(), ...)."""
        return self.dataset.loader

    def __iter__(self):
        return iter(self.dataset)

    def __len__(self):
        return len(self.dataset)

    def set_epoch(self, epoch):
        """Starts epoch `epoch` (otherwise each pass over the loader is the next epoch)."""
        self.dataset.set_epoch(epoch)

    def state_dict(self):
        """Where the run is (gpufeed.Loader.state_dict): resumes on any number of ranks."""
        return self.dataset.state_dict()

    def load_state_dict(self, state):
        self.dataset.load_state_dict(state)

    def close(self):
        self.dataset.close()
