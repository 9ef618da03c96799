"""gpufeed.pack and gpufeed.Dataset: what pack wrote reads back, and bad shards are named."""
import errno
import os
import shutil

import pytest

import gpufeed
from conftest import line, pack_lines, pack_records, record


def test_pack_records_then_read_every_sample(tmp_path):
    result = pack_records(tmp_path / "ds", 300, 100, shard_size=16 << 10, checksum="crc32c", name="three-hundred")
    assert result["samples"] == 300 and result["data_bytes"] == 300 * 100
    with gpufeed.Dataset(tmp_path / "ds") as ds:
        info = ds.info
        assert len(ds) == info["samples"] == 300
        assert info["kind"] == "gpufeed" and info["name"] == "three-hundred" and info["checksum"] == "crc32c"
        assert info["record_size"] == 100 and info["min_size"] == info["max_size"] == 100
        assert info["shards"] == result["shards"] == len(ds.shards) > 1
        first = 0
        for shard in ds.shards:
            assert shard["first_sample"] == first and os.path.exists(shard["data_path"])
            first += shard["samples"]
        assert first == 300
        for i in range(300):
            data = ds.read(i)
            assert data == record(i, 100)
            ds.check(i, data)
            assert ds.sample(i)["size"] == 100
        ds.verify()


def test_pack_lines_keeps_every_line_and_its_size(tmp_path):
    pack_lines(tmp_path / "ds", 200)
    with gpufeed.Dataset(str(tmp_path / "ds")) as ds:
        sizes = [len(line(i)) for i in range(200)]
        assert ds.info["record_size"] == 0
        assert (ds.info["min_size"], ds.info["max_size"]) == (min(sizes), max(sizes))
        assert [ds.read(i) for i in range(200)] == [line(i) for i in range(200)]
        keys = [ds.key(i) for i in range(200)]
        assert len(set(keys)) == 200 and all(keys)


def test_pack_a_tree_of_files_keys_are_paths(tmp_path):
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    files = {"a.bin": b"alpha", "sub/b.bin": b"beta" * 1000, "sub/c.bin": b""}
    for name, data in files.items():
        (tree / name).write_bytes(data)
    result = gpufeed.pack([tree], tmp_path / "ds")
    assert result["samples"] == 3
    with gpufeed.Dataset(tmp_path / "ds") as ds:
        got = {ds.key(i).decode(): ds.read(i) for i in range(len(ds))}
    assert got == files


def test_pack_refuses_bad_arguments_naming_them(tmp_path):
    pack_records(tmp_path / "ds", 10, 64)
    with pytest.raises(gpufeed.Error) as e:
        pack_records(tmp_path / "ds", 10, 64)
    assert e.value.errno == errno.EEXIST
    (tmp_path / "odd").write_bytes(b"x" * 100)
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.pack(tmp_path / "odd", tmp_path / "out", input="records", record_size=64)
    assert e.value.errno == errno.EINVAL and "odd" in e.value.strerror
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.pack(tmp_path / "odd", tmp_path / "out2", checksum="md5")
    assert "md5" in e.value.strerror
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.pack(tmp_path / "missing", tmp_path / "out3")
    assert e.value.errno == errno.ENOENT and "missing" in e.value.strerror
    with pytest.raises(ValueError):
        gpufeed.pack([], tmp_path / "out4")


@pytest.fixture
def damaged(records_ds, tmp_path):
    """A copy of records_ds that a test may break, and its first shard's data file."""
    copy = tmp_path / "copy"
    shutil.copytree(records_ds, copy)
    with gpufeed.Dataset(copy) as ds:
        return str(copy), ds.shards[1]["data_path"], ds.sample(ds.shards[1]["first_sample"] + 2)


def test_a_corrupt_record_is_named_by_verify_and_check(damaged):
    path, data_path, loc = damaged
    with open(data_path, "r+b") as f:
        f.seek(loc["offset"] + 5)
        f.write(b"\xff")
    with gpufeed.Dataset(path) as ds:
        with pytest.raises(gpufeed.Error) as e:
            ds.verify()
        assert e.value.errno == errno.EBADMSG
        assert os.path.basename(data_path) in e.value.strerror and str(loc["record"]) in e.value.strerror


def test_a_truncated_shard_is_refused_at_open(damaged):
    path, data_path, _ = damaged
    os.truncate(data_path, os.path.getsize(data_path) - 4096)
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.Dataset(path)
    assert os.path.basename(data_path) in e.value.strerror
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.Loader(path, 8)
    assert os.path.basename(data_path) in e.value.strerror


def test_a_missing_shard_is_named(damaged):
    path, data_path, _ = damaged
    os.unlink(data_path)
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.Dataset(path)
    assert e.value.errno == errno.ENOENT and os.path.basename(data_path) in e.value.strerror


def test_closed_dataset_and_bad_sample_numbers(records_ds):
    ds = gpufeed.Dataset(records_ds)
    with pytest.raises(gpufeed.Error) as e:
        ds.sample(len(ds))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(OverflowError):
        ds.read(-1)
    ds.close()
    with pytest.raises(ValueError, match="closed"):
        len(ds)
