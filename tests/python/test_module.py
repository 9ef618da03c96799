"""gpufeed's module-level calls: version, errors, topo() and bind() against the CLI."""
import errno
import json
import os
import struct
import subprocess
import sys

import pytest

import gpufeed


def test_version_is_the_library_and_the_cli(cli):
    out = subprocess.run([cli, "--version"], check=True, capture_output=True, text=True).stdout
    assert gpufeed.version() in out
    assert gpufeed.__version__ == gpufeed.version()


def test_error_is_an_oserror_with_errno_and_the_message(tmp_path):
    missing = tmp_path / "no-such-dataset"
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.Dataset(missing)
    assert isinstance(e.value, OSError)
    assert e.value.errno == errno.ENOENT
    assert str(missing) in e.value.strerror


def test_topo_of_a_recording_is_the_cli_json(cli, machines):
    for name in sorted(os.listdir(machines))[:4]:
        root = os.path.join(machines, name, "root")
        want = json.loads(subprocess.run([cli, "topo", "--root", root, "--json"], check=True, capture_output=True,
                                         text=True).stdout)
        got = gpufeed.topo(root)
        for doc in (want, got):
            doc.pop("generated_at", None)
        assert got == want, name
        assert got["schema"] == "gpufeed-topo/2"


def test_topo_of_a_tarball_and_bad_arguments(machines, tmp_path):
    tarball = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "machines", "ci-2gpu",
                           "root.tar.gz")
    model = gpufeed.topo(tarball)
    assert len(model["gpus"]) == len(gpufeed.topo(os.path.join(machines, "ci-2gpu", "root"))["gpus"])
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.topo(tmp_path / "nothing-here")
    assert e.value.errno == errno.ENOENT and "nothing-here" in e.value.strerror
    with pytest.raises(ValueError):
        gpufeed.topo(nvml="sometimes")


def cli_binding(cli, root, gpu):
    out = subprocess.run([cli, "run", "--dry-run", "--json", "--root", root, "--gpu", str(gpu)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.parametrize("name", ["ci-2gpu", "hgx-h100-8gpu", "dual-8gpu-pcie-switch"])
def test_bind_previews_a_recording_as_gpufeed_run(cli, machines, name):
    root = os.path.join(machines, name, "root")
    got = gpufeed.bind(1, root=root)
    want = cli_binding(cli, root, 1)
    assert got.pop("applied") is False
    for doc in (got, want):
        doc.pop("generated_at", None)
        doc.pop("command", None)
    assert got == want
    assert got["targets"][0]["index"] == 1


def test_bind_worker_takes_local_rank(cli, machines, monkeypatch):
    root = os.path.join(machines, "hgx-h100-8gpu", "root")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("LOCAL_RANK", "5")
    got = gpufeed.bind_worker(3, root=root)  # the worker id is not the GPU
    assert got["targets"][0]["index"] == 5
    assert got["cpus"] == cli_binding(cli, root, 5)["cpus"]
    # gpufeed launch: the rank's own GPU alone, by UUID.
    model = gpufeed.topo(root)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", model["gpus"][6]["uuid"])
    assert gpufeed.bind_worker(root=root)["targets"][0]["index"] == 6
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "7,6,5,4,3,2,1,0")
    assert gpufeed.bind_worker(root=root)["targets"][0]["index"] == 2
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1,2")
    with pytest.raises(ValueError, match="CUDA_VISIBLE_DEVICES"):
        gpufeed.bind_worker(root=root)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    monkeypatch.setenv("LOCAL_RANK", "five")
    with pytest.raises(ValueError, match="LOCAL_RANK"):
        gpufeed.bind_worker(root=root)


def test_bind_refuses_to_apply_a_recording_and_unknown_gpus(machines):
    root = os.path.join(machines, "ci-2gpu", "root")
    with pytest.raises(ValueError, match="previewed"):
        gpufeed.bind(0, root=root, apply=True)
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.bind(7, root=root)
    assert "7" in e.value.strerror
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.bind(0, root=root, cpu="everywhere")
    assert e.value.errno == errno.EINVAL and "everywhere" in e.value.strerror


def test_bind_here_without_a_gpu_is_an_error():
    if gpufeed.topo(nvml="off")["gpus"]:
        pytest.skip("this machine has GPUs")
    before = os.sched_getaffinity(0)
    with pytest.raises(gpufeed.Error) as e:
        gpufeed.bind(0)
    assert e.value.errno == errno.ENOENT or e.value.errno == errno.ENODEV
    assert os.sched_getaffinity(0) == before


def test_gpufeed_torch_without_torch_says_so():
    code = ("import sys; sys.modules['torch'] = None\n"
            "try:\n    import gpufeed.torch\nexcept ImportError as e:\n    print(e)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gpufeed.__file__)))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env).stdout
    assert "gpufeed.torch needs PyTorch" in out and "python3-torch" in out


STEP_CHANNEL = struct.Struct("<8sIIiiQQQQQQQQ")  # src/core/stepchan.h, struct gf_stepchan_page


def read_step_channel(path):
    with open(path, "rb") as f:
        data = f.read()
    fields = STEP_CHANNEL.unpack_from(data)
    names = ("magic", "version", "size", "pid", "tid", "created_ns", "steps", "last_step_ns", "step_sum_ns",
             "step_max_ns", "input_waits", "input_wait_ns", "input_bytes")
    return dict(zip(names, fields))


def test_step_is_silent_outside_diagnose(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "GPUFEED_DIAGNOSE"}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(gpufeed.__file__))
    subprocess.run([sys.executable, "-c", "import gpufeed; gpufeed.step(); gpufeed.step()"], check=True, env=env,
                   cwd=tmp_path)
    assert os.listdir(tmp_path) == []


def test_step_and_the_loader_publish_to_the_channel(tmp_path):
    """gpufeed.step() counts steps, the loader its consumer's waits, in DIR/step-PID.gfs."""
    flat = tmp_path / "flat"
    flat.write_bytes(os.urandom(8 * 512))
    gpufeed.pack(flat, tmp_path / "ds", input="records", record_size=512)
    chan = tmp_path / "chan"
    chan.mkdir()
    env = dict(os.environ, GPUFEED_DIAGNOSE=str(chan),
               PYTHONPATH=os.path.dirname(os.path.dirname(gpufeed.__file__)))
    code = """
import os, sys, time, gpufeed
with gpufeed.Loader(sys.argv[1], 4, shuffle=False) as loader:
    for batch in loader:
        time.sleep(0.002)
        gpufeed.step()
print(os.getpid())
"""
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "ds")], check=True, env=env,
                         capture_output=True, text=True).stdout
    c = read_step_channel(chan / ("step-%s.gfs" % out.strip()))
    assert c["magic"] == b"GFSTEPCH" and c["version"] == 1 and c["size"] == STEP_CHANNEL.size
    assert c["pid"] == int(out)
    assert c["steps"] == 2
    assert c["step_sum_ns"] >= 2_000_000 and c["step_max_ns"] <= c["step_sum_ns"]
    assert c["input_waits"] == 2 and c["input_bytes"] == 8 * 512
