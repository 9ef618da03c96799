"""gpufeed.torch: the DataLoader drop-in in a small training loop, the adapter, resume."""
import struct
import warnings

import pytest

torch = pytest.importorskip("torch")
import gpufeed  # noqa: E402
import gpufeed.torch as gt  # noqa: E402
from conftest import line  # noqa: E402

FEATURES = 8


@pytest.fixture(scope="module")
def regression_ds(tmp_path_factory):
    """2048 records of 8 float32 features and a float32 target y = w . x + 0.5."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, FEATURES, generator=g)
    w = torch.arange(1, FEATURES + 1, dtype=torch.float32) / FEATURES
    y = x @ w + 0.5
    rows = torch.cat([x, y[:, None]], dim=1).contiguous()
    base = tmp_path_factory.mktemp("torch")
    flat = base / "rows.f32"
    flat.write_bytes(rows.numpy().tobytes())
    gpufeed.pack(flat, base / "ds", input="records", record_size=(FEATURES + 1) * 4, align=64)
    return str(base / "ds")


def test_a_training_loop_fed_by_the_drop_in(regression_ds):
    torch.manual_seed(0)
    model = torch.nn.Linear(FEATURES, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = gt.DataLoader(regression_ds, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
    assert any("num_workers" in str(w.message) for w in caught)
    assert len(loader) == 2048 // 64
    losses = []
    for epoch in range(4):
        total, steps = 0.0, 0
        for batch in loader:
            assert batch.dtype == torch.uint8 and tuple(batch.shape) == (64, (FEATURES + 1) * 4)
            rows = batch.view(torch.float32)
            x, y = rows[:, :FEATURES], rows[:, FEATURES]
            loss = torch.nn.functional.mse_loss(model(x).squeeze(1), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            steps += 1
        assert steps == len(loader)
        losses.append(total / steps)
    assert losses[-1] < losses[0] / 20, losses
    assert loader.loader.state_dict()["epoch"] == 3
    loader.close()


def test_variable_size_batches_are_data_and_offsets(lines_ds):
    loader = gt.DataLoader(lines_ds, batch_size=7)
    data, offsets = next(iter(loader))
    assert data.dtype == torch.uint8 and offsets.dtype == torch.int64 and offsets.shape == (8,)
    got = [bytes(data[int(offsets[k]):int(offsets[k + 1])].tolist()) for k in range(7)]
    assert got == [line(i) for i in range(7)]  # shuffle defaults to False, as PyTorch's
    loader.close()


def test_resume_from_state_dict_and_epochs(records_ds):
    def ids(t):
        return [struct.unpack("<Q", bytes(row[:8].tolist()))[0] for row in t]

    a = gt.DataLoader(records_ds, batch_size=50, shuffle=True, seed=5)
    it = iter(a)
    first = [ids(next(it)) for _ in range(3)]
    state = a.state_dict()
    rest = [ids(t) for t in it]
    b = gt.DataLoader(records_ds, batch_size=50, shuffle=True, seed=5)
    b.load_state_dict(state)
    assert [ids(t) for t in b] == rest
    assert sorted(sum(first + rest, [])) == list(range(1000))
    b.sampler.set_epoch(0)  # DistributedSampler's call, as scripts make it
    assert [ids(t) for t in b][3:] == rest
    a.close()
    b.close()


def test_ranks_from_the_environment(records_ds, monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("LOCAL_RANK", "1")
    loader = gt.DataLoader(records_ds, batch_size=10)
    assert (loader.loader.rank, loader.loader.world_size) == (1, 4)
    assert len(loader) == 25
    loader.close()


def test_what_cannot_be_honoured_is_refused(records_ds):
    with pytest.raises(TypeError, match="packed dataset"):
        gt.DataLoader(torch.utils.data.TensorDataset(torch.zeros(4)), batch_size=2)
    with pytest.raises(TypeError, match="sampler"):
        gt.DataLoader(records_ds, batch_size=2, sampler=[0, 1])
    with pytest.raises(TypeError, match="collate_fn"):
        gt.DataLoader(records_ds, batch_size=2, collate_fn=list)
    with pytest.raises(TypeError):
        gt.DataLoader(records_ds, batch_size=2, frobnicate=True)


def test_the_adapter_under_torch_dataloader(records_ds):
    ds = gt.GpufeedDataset(records_ds, batch_size=100, shuffle=False)
    loader = torch.utils.data.DataLoader(ds, batch_size=None)
    count = 0
    for batch in loader:  # each tensor holds a slot: look, do not keep
        assert tuple(batch.shape) == (100, 256) and torch.equal(batch[:, :8], batch[:, 8:16])
        count += 1
    assert count == len(ds) == 10
    ds.close()
    bad = gt.GpufeedDataset(records_ds, batch_size=100)
    with pytest.raises(RuntimeError, match="num_workers=0"):
        list(torch.utils.data.DataLoader(bad, batch_size=None, num_workers=1))
