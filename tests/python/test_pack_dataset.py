"""gpufeed.pack and gpufeed.Dataset: what pack wrote reads back, and bad shards are named."""
import errno
import os
import shutil
import struct

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
        with pytest.raises(gpufeed.Error) as e:
            ds.check(7, record(8, 100))
        assert e.value.errno == errno.EBADMSG and "shard" in e.value.strerror


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


def write_megatron(prefix, sequences):
    """A Megatron-LM MMIDIDX pair of int32 token sequences (indexed_dataset.py's layout)."""
    with open(prefix + ".bin", "wb") as f:
        pointers = []
        for seq in sequences:
            pointers.append(f.tell())
            f.write(struct.pack("<%di" % len(seq), *seq))
    with open(prefix + ".idx", "wb") as f:
        f.write(b"MMIDIDX\x00\x00" + struct.pack("<QBQQ", 1, 4, len(sequences), len(sequences) + 1))
        f.write(struct.pack("<%di" % len(sequences), *[len(s) for s in sequences]))
        f.write(struct.pack("<%dq" % len(sequences), *pointers))
        f.write(struct.pack("<%dq" % (len(sequences) + 1), *range(len(sequences) + 1)))


def test_a_megatron_pair_is_read_as_it_is(tmp_path):
    sequences = [list(range(i, i + 1 + i % 13)) for i in range(50)]
    prefix = str(tmp_path / "corpus_text_document")
    write_megatron(prefix, sequences)
    with gpufeed.Dataset(prefix) as ds:
        assert ds.info["kind"] == "megatron" and len(ds) == 50 and ds.info["checksum"] == "none"
        assert [ds.read(i) for i in range(50)] == [struct.pack("<%di" % len(s), *s) for s in sequences]
    with gpufeed.Loader(prefix, 8, shuffle=False) as loader:
        import numpy
        got = []
        for batch in loader:
            with batch:
                data, offsets = numpy.from_dlpack(batch), batch.offsets
                got += [data[offsets[k]:offsets[k + 1]].view("<i4").tolist() for k in range(batch.count)]
    assert got == sequences


def test_pack_and_info_agree_with_the_cli(cli, tmp_path):
    import json
    import subprocess

    text = tmp_path / "in.txt"
    text.write_bytes(b"".join(line(i) + b"\n" for i in range(120)))
    gpufeed.pack(text, tmp_path / "py", shard_size=2048, align=128, checksum="crc32c")
    run = subprocess.run([cli, "pack", "--shard-size", "2048", "--align", "128", "--checksum", "crc32c", str(text),
                          str(tmp_path / "cli")], capture_output=True, text=True)
    if run.returncode == 2 and "pack" in run.stderr and "unknown" in run.stderr:
        pytest.skip("this gpufeed has no pack command")
    assert run.returncode == 0, run.stderr
    inspect = json.loads(subprocess.run([cli, "inspect", "--json", str(tmp_path / "py")], check=True,
                                        capture_output=True, text=True).stdout)
    with gpufeed.Dataset(tmp_path / "py") as a, gpufeed.Dataset(tmp_path / "cli") as b:
        mine, theirs = dict(a.info), dict(b.info)
        for doc in (mine, theirs):
            del doc["path"], doc["name"]
        assert mine == theirs
        assert [a.read(i) for i in range(len(a))] == [b.read(i) for i in range(len(b))]
        for key in ("kind", "samples", "data_bytes", "file_bytes", "min_size", "max_size", "checksum", "align"):
            assert inspect[key] == a.info[key], key
        assert inspect.get("record_size", 0) == a.info["record_size"] == 0  # sizes vary
