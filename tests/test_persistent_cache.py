"""The disk cache of generated code (srcad/cache/), across processes."""

import importlib
import json
import os
import stat
import subprocess
import sys
import textwrap
import tempfile
import time

import numpy as np
import pytest

import srcad
from srcad import cache, serialize
from srcad.cache import disk, generated_files, prune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKLOAD = '''\
import numpy as np

import {helpers} as helpers


def loss(w, x):
    total = 0.0
    for t in range(x.shape[0]):
        h = np.tanh(x[t] * w)
        total = total + helpers.energy(h)
    return total + 0.01 * np.sum(w * w)
'''

HELPERS = '''\
import numpy as np

SCALE = {scale}


def energy(h):
    return SCALE * np.sum(h * h)
'''

CHILD = textwrap.dedent('''\
    import json, os, sys
    import numpy as np
    import srcad
    from srcad import pipeline
    from srcad.cache import disk, keys
    # srcad's own files are part of the key: pin that part, so that editing srcad while
    # the tests run (a developer at work) does not turn the expected hits into misses
    keys._build = "pinned by tests/test_persistent_cache.py"
    if os.environ.get("FORBID_GENERATION"):
        def forbidden(*args, **kwargs):
            raise AssertionError("the pipeline ran: parse/normalize/transform were not skipped")
        pipeline._generate = forbidden
    if os.environ.get("START_AT"):  # processes started together wait for one another
        import time
        time.sleep(max(0.0, float(os.environ["START_AT"]) - time.time()))
    module = __import__(sys.argv[1])
    w = np.array([0.3, -0.2, 0.5])
    x = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    gradient = srcad.grad(module.loss)(w, x)
    print(json.dumps({"gradient": gradient.tolist(), "statistics": disk.statistics,
                      "error": repr(disk.last_error)}))
''')


@pytest.fixture
def workload(tmp_path, request):
    """A module with a loss that loops and calls a helper of another module; and a runner."""
    stem = "pc_%s" % request.node.name.replace("[", "_").replace("]", "").replace("-", "_")
    helpers = stem + "_helpers"
    (tmp_path / (stem + ".py")).write_text(WORKLOAD.format(helpers=helpers))
    (tmp_path / (helpers + ".py")).write_text(HELPERS.format(scale=3.0))
    cache_dir = tmp_path / "cache"

    class Workload:
        module = stem
        helpers_path = tmp_path / (helpers + ".py")
        directory = cache_dir

        def run(self, **env):
            return run_child(tmp_path, stem, cache_dir, **env)

        def start(self, **env):
            return start_child(tmp_path, stem, cache_dir, **env)

        def entries(self):
            return disk.entries(str(cache_dir))

    return Workload()


def child_env(folder, cache_dir, **extra):
    env = dict(os.environ, SRCAD_CACHE_DIR=str(cache_dir),
               PYTHONPATH=os.pathsep.join([str(folder), ROOT]))
    env.pop("SRCAD_CACHE", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def start_child(folder, module, cache_dir, **extra):
    return subprocess.Popen([sys.executable, "-c", CHILD, module], cwd=str(folder),
                            env=child_env(folder, cache_dir, **extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process):
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return json.loads(out)


def run_child(folder, module, cache_dir, **extra):
    return finish(start_child(folder, module, cache_dir, **extra))


def expected_gradient(scale=3.0):
    w = np.array([0.3, -0.2, 0.5])
    x = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    gradient = 0.02 * w
    for t in range(4):
        h = np.tanh(x[t] * w)
        gradient = gradient + scale * 2 * h * (1 - h * h) * x[t]
    return gradient


# ---- across processes


def test_second_process_gets_a_hit_and_skips_the_pipeline(workload):
    first = workload.run()
    assert first["statistics"]["hits"] == 0
    assert first["statistics"]["stored"] == 2  # the generic code and the specialized code
    assert first["statistics"]["errors"] == 0, first["error"]
    assert len(workload.entries()) == 2
    np.testing.assert_allclose(first["gradient"], expected_gradient())

    second = workload.run(FORBID_GENERATION=1)  # the pipeline raises if it runs at all
    assert second["statistics"]["hits"] == 2
    assert second["statistics"]["misses"] == 0
    assert second["statistics"]["stored"] == 0
    assert second["gradient"] == first["gradient"]


def test_changing_a_callee_or_its_constants_is_a_miss(workload, fresh, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(workload.directory))
    monkeypatch.syspath_prepend(str(workload.helpers_path.parent))
    module = importlib.import_module(workload.module)
    helpers = sys.modules[module.helpers.__name__]
    w = np.array([0.3, -0.2, 0.5])
    x = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    try:
        np.testing.assert_allclose(srcad.grad(module.loss)(w, x), expected_gradient())
        assert disk.statistics["stored"] == 2

        workload.helpers_path.write_text(HELPERS.format(scale=5.0))  # the same source
        importlib.reload(helpers)
        cache.clear()
        np.testing.assert_allclose(srcad.grad(module.loss)(w, x), expected_gradient(5.0))
        assert disk.statistics["hits"] == 0

        workload.helpers_path.write_text(HELPERS.format(scale=5.0).replace(
            "SCALE * np.sum(h * h)", "SCALE * np.sum(h * h) * 2.0"))
        importlib.reload(helpers)
        cache.clear()
        np.testing.assert_allclose(srcad.grad(module.loss)(w, x), expected_gradient(10.0))
        assert disk.statistics["hits"] == 0
        assert disk.statistics["stale"] >= 1  # found by the caller's key, then
        # refused: the callee's source is not the one the code was generated from
    finally:
        for name in (workload.module, helpers.__name__):
            sys.modules.pop(name, None)


def test_a_corrupted_entry_is_regenerated_never_executed(workload, tmp_path):
    workload.run()
    marker = tmp_path / "executed"
    altered, truncated = workload.entries()
    with open(altered) as stream:
        document = json.load(stream)
    payload = json.loads(document["payload"])
    head, newline, rest = payload["source"].partition("\n")
    # code that would leave a file behind if it ever ran; the stored hash is left as it was
    payload["source"] = head + newline + "    open(%r, 'w').close()\n" % str(marker) + rest
    document["payload"] = json.dumps(payload, sort_keys=True)
    with open(altered, "w") as stream:
        json.dump(document, stream)
    with open(truncated, "rb") as stream:
        data = stream.read()
    with open(truncated, "wb") as stream:
        stream.write(data[: len(data) // 2])
    assert srcad_cache_info(workload.directory)["invalid"] == 2

    result = workload.run()
    assert result["statistics"]["rejected"] == 2, result
    assert result["statistics"]["hits"] == 0
    assert result["statistics"]["stored"] == 2
    assert not marker.exists()
    np.testing.assert_allclose(result["gradient"], expected_gradient())
    assert srcad_cache_info(workload.directory)["invalid"] == 0  # rewritten, valid again
    assert workload.run(FORBID_GENERATION=1)["statistics"]["hits"] == 2


def test_processes_filling_one_entry_at_once(workload):
    start_at = time.time() + 0.7  # every process imports srcad first, then they all go
    processes = [workload.start(START_AT=start_at) for _ in range(4)]
    results = [finish(p) for p in processes]
    for result in results:
        assert result["statistics"]["errors"] == 0, result["error"]
        np.testing.assert_allclose(result["gradient"], expected_gradient())
    entries = workload.entries()
    assert len(entries) == 2  # one entry per generated code, however many wrote it
    assert not [n for n in os.listdir(workload.directory) if n.endswith(".tmp")]
    info = srcad_cache_info(workload.directory)
    assert info["entries"] == 2 and info["invalid"] == 0
    assert workload.run(FORBID_GENERATION=1)["statistics"]["hits"] == 2


def srcad_cache_info(directory):
    return disk.info(str(directory))


# ---- in one process


def cubic_loop(x, y):
    s = 0.0
    for i in range(5):
        s = s + x * x * y + np.sin(y * i)
    return np.sum(s)


def forward_target(x, y):
    return np.sin(x) * y


def with_array_default(x, v=np.array([1.0, 2.0])):  # noqa: B008  (the point of the test)
    return np.sum(v * x)


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(directory))
    monkeypatch.delenv("SRCAD_CACHE", raising=False)
    cache.clear()
    disk.reset_statistics()
    yield directory
    cache.clear()


def test_in_process_hit_after_the_memory_cache_is_cleared(fresh):
    expected = srcad.grad(cubic_loop, wrt=(0, 1))(1.5, 0.5)
    assert disk.statistics["stored"] == 2
    cache.clear()
    again = srcad.grad(cubic_loop, wrt=(0, 1))(1.5, 0.5)
    assert disk.statistics["hits"] == 2
    assert again == expected
    assert srcad.grad(cubic_loop, wrt=(0, 1)).source == srcad.source(cubic_loop, wrt=(0, 1))


def scaled_energy(x, scale=2.5, shift=-0.5):
    return scale * np.sum(np.sin(x + shift) ** 2)


def scaled_energy_gradient(x, scale=2.5, shift=-0.5):
    return scale * np.sin(2.0 * (x + shift))


def test_gradient_code_from_the_cache_keeps_the_functions_defaults(fresh):
    """The compiled gradient (``.generated_for(...).function``, which users call and
    differentiate again) takes the defaults of the function, whether generated now or
    read back from the cache."""
    x = np.array([0.3, -0.5, 1.1])
    for attempt in ("generated", "read from the cache"):
        gradient = srcad.grad(scaled_energy)
        compiled = gradient.generated_for(x).function
        np.testing.assert_allclose(compiled(x), scaled_energy_gradient(x), rtol=1e-12)
        np.testing.assert_allclose(compiled(x, 1.0), scaled_energy_gradient(x, 1.0), rtol=1e-12)
        np.testing.assert_allclose(gradient(x, shift=0.25),
                                   scaled_energy_gradient(x, shift=0.25), rtol=1e-12)
        cache.clear()
    assert disk.statistics["hits"] == 2  # the generic and the specialized code


def test_argument_kinds_and_options_are_part_of_the_key(fresh):
    gradient = srcad.grad(cubic_loop)
    gradient(1.5, 0.5)
    gradient(np.ones(3), 0.5)
    assert disk.statistics["stored"] == 3  # generic, (float, float), (array, float)
    srcad.grad(cubic_loop, optimize=False)(1.5, 0.5)
    srcad.value_and_grad(cubic_loop)(1.5, 0.5)
    assert disk.statistics["hits"] == 0
    assert len(disk.entries(str(fresh))) == 7


def test_jvp_and_vjp_use_the_cache(fresh):
    out, tangent = srcad.jvp(forward_target, (0.7, 2.0), (1.0, None))
    _, vjp_fn = srcad.vjp(forward_target, 0.7, 2.0)
    cotangents = vjp_fn(1.0)
    stored = disk.statistics["stored"]
    assert stored == 2
    cache.clear()
    assert srcad.jvp(forward_target, (0.7, 2.0), (1.0, None)) == (out, tangent)
    assert srcad.vjp(forward_target, 0.7, 2.0)[1](1.0) == cotangents
    assert disk.statistics["hits"] == 2


def test_code_whose_aliases_cannot_be_described_is_not_cached(fresh):
    assert np.allclose(srcad.grad(lambda_free_caller)(2.0), 3.0)
    assert disk.statistics["uncacheable"] >= 1
    assert disk.statistics["errors"] == 0
    assert disk.statistics["stored"] == 0


def lambda_free_caller(x):
    return with_array_default(x)


@pytest.mark.parametrize("value", ["0", "off", "false"])
def test_the_cache_can_be_switched_off(fresh, monkeypatch, value):
    monkeypatch.setenv("SRCAD_CACHE", value)
    assert srcad.grad(cubic_loop)(1.5, 0.5) == pytest.approx(cubic_loop_gradient(1.5, 0.5))
    assert not fresh.exists()
    assert disk.statistics == dict.fromkeys(disk.statistics, 0)


def cubic_loop_gradient(x, y):
    return 5 * 2 * x * y


def test_garbage_entries_are_rejected_without_being_read_as_code(fresh):
    srcad.grad(cubic_loop)(1.5, 0.5)
    for path, data in zip(disk.entries(str(fresh)),
                          [b"\x00\xff not json at all", b'{"format": 1, "payload": 3}']):
        with open(path, "wb") as stream:
            stream.write(data)
    cache.clear()
    assert srcad.grad(cubic_loop)(1.5, 0.5) == pytest.approx(cubic_loop_gradient(1.5, 0.5))
    assert disk.statistics["rejected"] == 2
    assert disk.info(str(fresh))["invalid"] == 0


def test_directory_is_created_owner_only(tmp_path, monkeypatch, fresh):
    directory = tmp_path / "deeper" / "srcad"
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(directory))
    srcad.grad(cubic_loop)(1.5, 0.5)
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    for path in disk.entries(str(directory)):
        assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_directory_others_can_write_is_not_used(tmp_path, monkeypatch, fresh):
    directory = tmp_path / "shared"
    directory.mkdir()
    os.chmod(directory, 0o777)
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(directory))
    monkeypatch.setattr(disk, "_warned", set())
    with pytest.warns(RuntimeWarning, match="writable by others"):
        srcad.grad(cubic_loop)(1.5, 0.5)
    assert os.listdir(directory) == []


def test_default_location_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("SRCAD_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert disk.directory() == str(tmp_path / "xdg" / "srcad")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert disk.directory() == str(tmp_path / "home" / ".cache" / "srcad")


def test_the_test_session_never_uses_the_home_cache():
    home = os.path.join(os.path.expanduser("~"), ".cache", "srcad")
    assert os.path.abspath(disk.directory()) != os.path.abspath(home)


def test_an_entry_under_another_name_is_ignored(fresh):
    srcad.grad(cubic_loop)(1.5, 0.5)
    first, second = disk.entries(str(fresh))
    os.replace(first, second)  # a valid entry, but in the file of another key
    cache.clear()
    disk.reset_statistics()
    srcad.grad(cubic_loop)(1.5, 0.5)
    assert disk.statistics["hits"] == 0
    assert disk.statistics["stored"] == 2
    cache.clear()
    srcad.grad(cubic_loop)(1.5, 0.5)
    assert disk.statistics["hits"] == 2


def test_clear_and_info(fresh):
    srcad.grad(cubic_loop)(1.5, 0.5)
    info = disk.info()
    assert info["directory"] == str(fresh)
    assert info["entries"] == 2 and info["bytes"] > 0 and info["enabled"]
    assert disk.clear() == 2
    assert disk.info()["entries"] == 0


def test_literals_round_trip():
    for value in (1.5, -0.0, float("inf"), float("-inf"), 3, True, None, "a'b\"c",
                  complex(1, -2), (1, (2.5, "x")), (), (1,)):
        text = serialize.literal_text(value)
        assert repr(serialize.literal_value(text)) == repr(value)
    nan = serialize.literal_value(serialize.literal_text(float("nan")))
    assert nan != nan
    with pytest.raises(ValueError):
        serialize.literal_value("__import__('os').system('true')")


WRITER = textwrap.dedent('''\
    import sys
    from srcad.cache import disk
    path, tag = sys.argv[1], sys.argv[2]
    for i in range(60):
        disk.write_entry(path, {"lookup": "k", "writer": tag, "i": i,
                                            "source": "x" * 5000})
''')


def test_readers_never_see_half_an_entry_while_processes_write_it(tmp_path):
    path = str(tmp_path / "entry.json")
    disk.write_entry(path, {"lookup": "k", "writer": "parent"})
    env = dict(os.environ, PYTHONPATH=ROOT)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, path, str(n)], env=env)
               for n in range(3)]
    reads = 0
    while any(w.poll() is None for w in writers):
        assert disk.read_entry(path)["lookup"] == "k"  # never CorruptEntry
        reads += 1
    assert all(w.wait() == 0 for w in writers)
    assert disk.read_entry(path)["writer"] in ("0", "1", "2")
    assert os.listdir(tmp_path) == ["entry.json"]  # no temporary file left behind
    assert reads > 0


def test_entries_unused_for_a_month_are_removed(fresh, monkeypatch):
    fresh.mkdir(mode=0o700)
    old, leftover = fresh / ("0" * 64 + ".json"), fresh / ".srcad-crashed.tmp"
    for path in (old, leftover):
        path.write_text("{}")
        long_ago = time.time() - 40 * 24 * 3600
        os.utime(path, (long_ago, long_ago))
    monkeypatch.setattr(prune, "_swept", set())
    srcad.grad(cubic_loop)(1.5, 0.5)
    assert not old.exists() and not leftover.exists()
    assert len(disk.entries(str(fresh))) == 2  # the new ones stay
    # once a day at most: a second process (here: a reset flag) does not scan again
    old.write_text("{}")
    os.utime(old, (long_ago, long_ago))
    monkeypatch.setattr(prune, "_swept", set())
    cache.clear()
    srcad.grad(cubic_loop, wrt=1)(1.5, 0.5)
    assert old.exists()


def test_generated_source_files_unused_for_a_week_are_removed(tmp_path, monkeypatch):
    """The one pruner (srcad/cache/prune.py) sweeps the generated sources' folder too."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(prune, "_swept", set())
    folder = generated_files.source_directory()
    assert folder.startswith(str(tmp_path))
    os.makedirs(folder)
    ages = {"grad_of_old_0123.py": 8 * 24 * 3600, "grad_of_recent_4567.py": 6 * 24 * 3600,
            ".srcad-crashed.tmp": 2 * 3600, "notes.txt": 100 * 24 * 3600}
    for name, age in ages.items():
        path = os.path.join(folder, name)
        with open(path, "w") as stream:
            stream.write("x = 1\n")
        os.utime(path, (time.time() - age, time.time() - age))
    written = generated_files.write_source_file("y = 2\n", "grad of f", "89ab")
    assert os.path.dirname(written) == folder
    with open(written) as stream:
        assert stream.read() == "y = 2\n"
    assert sorted(os.listdir(folder)) == [".last-sweep", "grad_of_f_89ab.py",
                                          "grad_of_recent_4567.py", "notes.txt"]


def test_templates_and_declarations_registered_outside_srcad_change_the_key():
    """registry_fingerprint (part of every lookup key) answers again only while the registry
    holds the same templates and declarations: registering changes it."""
    from srcad import registry
    from srcad.cache import keys

    def halved(x):
        return 0.5 * x

    def jumps(x):
        return np.floor(x)

    before = keys.registry_fingerprint()
    assert keys.registry_fingerprint() == before
    registry.adjoint(halved)(_halved_adjoint)
    with_adjoint = keys.registry_fingerprint()
    assert with_adjoint != before
    registry.adjoint(halved)(_halved_adjoint_again)  # a new template for the same function
    assert keys.registry_fingerprint() not in (before, with_adjoint)
    again = keys.registry_fingerprint()
    registry.nondifferentiable(jumps)
    assert keys.registry_fingerprint() != again
    assert keys.registry_fingerprint() == keys._registry_fingerprint()  # the answer kept is right


def _halved_adjoint(y, x):
    d[x] += 0.5 * d[y]  # noqa: F821 (template notation)


def _halved_adjoint_again(y, x):
    d[x] += d[y] * 0.5  # noqa: F821 (template notation)


def test_the_registry_fingerprint_kept_is_never_one_made_for_another_registry(monkeypatch):
    """An empty registry (before any template is loaded) has a fingerprint of its own too."""
    from srcad import registry
    from srcad.cache import keys

    monkeypatch.setattr(keys, "_registry_read", (None, ""))
    monkeypatch.setattr(registry, "registered", lambda load=True: [])
    assert keys.registry_fingerprint() == keys._registry_fingerprint() == keys.sha("")
