"""The srcad command line: show, codegen, cache; its help and its errors."""

import importlib.util
import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad.cli import UsageError, main, parse_wrt

_counter = itertools.count()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODEL = '''\
import numpy as np

W = np.array([1.0, 2.0])


def loss(w, b, x):
    total = 0.0
    for row in x:
        total = total + np.tanh(np.dot(row, w) + b) ** 2
    return total


def uses_global(x):
    return np.sum(W * x * x)


def unsupported(x):
    return x ** 2 if x else (yield x)


VALUE = 3
'''


@pytest.fixture
def model(tmp_path, request):
    """A user module in a file of its own (a unique name), forgotten after the test."""
    name = "cli_%s_%d" % (request.node.originalname, next(_counter))
    path = tmp_path / (name + ".py")
    path.write_text(MODEL)
    saved_path = list(sys.path)
    saved_modules = set(sys.modules)
    old = os.getcwd()
    os.chdir(tmp_path)
    yield path
    os.chdir(old)
    sys.path[:] = saved_path
    for module in set(sys.modules) - saved_modules:
        del sys.modules[module]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(str(path))[:-3], str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- show


def test_show_prints_plain_source_when_not_a_terminal(capsys, model):
    code, out, err = run(capsys, "show", "%s:loss" % model.name, "--wrt", "w,b")
    assert code == 0, err
    assert out.startswith("def grad_loss(w, b, x):")
    assert "\x1b[" not in out  # no colors in a pipe
    compile(out, "<shown>", "exec")


def test_show_colors_on_request(capsys, model):
    pytest.importorskip("pygments")
    code, out, _ = run(capsys, "show", "%s:loss" % model.name, "--color", "always")
    assert code == 0 and "\x1b[" in out


def test_show_forward_and_stages(capsys, model):
    code, out, _ = run(capsys, "show", "%s:loss" % model.name, "--mode", "forward",
                       "--wrt", "b")
    assert code == 0 and out.startswith("def jvp_loss(w, b, x, b_dot):")
    code, out, _ = run(capsys, "show", "%s:loss" % model.name, "--stages")
    assert code == 0
    for stage in ("parse", "normalize", "analyze", "transform", "optimize"):
        assert "# ---- after %s ----" % stage in out


def test_show_a_function_in_a_package(capsys, tmp_path, monkeypatch):
    package = tmp_path / "clipkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "inner.py").write_text("def f(x):\n    return x * x\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        code, out, err = run(capsys, "show", "clipkg/inner.py:f")
        assert code == 0, err
        assert sys.modules["clipkg.inner"].f.__module__ == "clipkg.inner"
    finally:
        for name in ("clipkg", "clipkg.inner"):
            sys.modules.pop(name, None)


# ---- codegen


def test_codegen_writes_a_module(capsys, model, tmp_path):
    out_path = tmp_path / "grads_out.py"
    code, out, err = run(capsys, "codegen", "%s:loss" % model.name, "--wrt", "w,b",
                         "-o", str(out_path))
    assert code == 0, err
    assert out == "" and "wrote" in err and "grad_loss" in err
    text = out_path.read_text()
    assert "srcad codegen %s:loss --wrt w,b -o %s" % (model.name, out_path) in text
    assert "was imported as module `%s`" % model.stem in text
    module = load(out_path)
    x = np.array([[0.1, 0.2], [0.3, -0.4]])
    w = np.array([0.5, -0.5])
    expected = srcad.grad(sys.modules[model.stem].loss, wrt=(0, 1))(w, 0.1, x)
    got = module.grad_loss(w, 0.1, x)
    np.testing.assert_allclose(got[0], expected[0])
    assert got[1] == pytest.approx(expected[1])


def test_codegen_to_stdout_several_functions(capsys, model):
    code, out, err = run(capsys, "codegen", "%s:loss" % model.name,
                         "%s:uses_global" % model.name, "--wrt", "w", "--wrt", "x",
                         "--standalone")
    assert code == 0, err
    assert "def grad_loss(w, b, x):" in out and "def grad_uses_global(x):" in out
    assert "from %s import W" % model.stem in out
    assert "rt = _srcad_runtime()" in out
    compile(out, "<module>", "exec")


def test_codegen_name_and_forward(capsys, model):
    code, out, err = run(capsys, "codegen", "%s:loss" % model.name, "--mode", "forward",
                         "--wrt", "b", "--name", "loss_jvp")
    assert code == 0, err
    assert "def loss_jvp(w, b, x, b_dot):" in out


def test_codegen_standalone_recursion_is_an_error(capsys, tmp_path, monkeypatch):
    (tmp_path / "cli_recursive.py").write_text(textwrap.dedent('''\
        def power(x, n):
            if n == 0:
                return 1.0
            return x * power(x, n - 1)
        '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        code, out, err = run(capsys, "codegen", "cli_recursive.py:power", "--standalone")
    finally:
        sys.modules.pop("cli_recursive", None)
    assert code == 1
    assert "vjp_of" in err and "Traceback" not in err


# ---- errors: exit status 2, one message on stderr, no traceback


@pytest.mark.parametrize("argv, message", [
    (["show", "missing_file.py:f"], "missing_file.py: no such file"),
    (["show", "{model}"], "name a function as FILE.py:FUNCTION"),
    (["show", "{model}:"], "name a function as FILE.py:FUNCTION"),
    (["show", "{model}:nope"], "has no function 'nope'; its functions are: loss, uses_global"),
    (["show", "{model}:VALUE"], "is a int, not a function"),
    (["show", "{model}:loss", "--wrt", "z"], "wrt='z' is not a parameter of loss"),
    (["show", "{model}:loss", "--wrt", "7"], "wrt=7 is out of range"),
    (["show", "{model}:loss", "--wrt", "w,,b"], "give parameter names or positions"),
    (["show", "{model}:loss", "--wrt", "w,w"], "wrt names 'w' twice"),
    (["show", "{model}:loss", "--wrt", "1.5"], "neither a parameter name nor a position"),
    (["codegen", "{model}:loss", "{model}:uses_global", "--name", "a", "--name", "b",
      "--name", "c"], "--name given 3 times for 2 functions"),
    (["codegen", "{model}:loss", "--name", "not-valid"], "not a valid Python name"),
    (["codegen", "{model}:loss", "-o", "{model}"], "would overwrite the file"),
    (["codegen", "{model}:loss", "-o", "no/such/dir/out.py"], "no such directory"),
    (["show", "."], "name a function as FILE.py:FUNCTION"),
    (["show", "{dir}:f"], "is a directory"),
    (["cache"], "missing ACTION"),
    ([], "missing COMMAND"),
])
def test_usage_errors(capsys, model, tmp_path, argv, message):
    argv = [a.format(model=model.name, dir=tmp_path) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    assert out == ""


@pytest.mark.parametrize("command, words", [
    ("show", ["--wrt", "--mode", "--stages", "srcad show model.py:loss --wrt w,b"]),
    ("codegen", ["--standalone", "-o OUT.py", "--name", "grad_FUNC", "jvp_FUNC"]),
    ("cache", ["info", "clear", "SRCAD_CACHE_DIR", "SRCAD_CACHE=0"]),
])
def test_command_help(capsys, command, words):
    with pytest.raises(SystemExit) as caught:
        main([command, "--help"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    for word in words:
        assert word in out


def test_argparse_errors_exit_2(capsys, model):
    with pytest.raises(SystemExit) as caught:
        main(["show", "%s:loss" % model.name, "--mode", "sideways"])
    assert caught.value.code == 2
    assert "invalid choice: 'sideways'" in capsys.readouterr().err


def test_a_function_srcad_cannot_differentiate_exits_1(capsys, model):
    code, out, err = run(capsys, "show", "%s:unsupported" % model.name)
    assert code == 1
    assert err.startswith("srcad: error: ") and "Traceback" not in err
    assert "%s:" % model.name in err  # file:line:col of the construct


def test_a_module_that_fails_to_import_shows_its_own_traceback(capsys, tmp_path, monkeypatch):
    (tmp_path / "cli_broken.py").write_text("import numpy\nraise RuntimeError('boom')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    code, out, err = run(capsys, "show", "cli_broken.py:f")
    assert code == 1
    assert "importing" in err and "RuntimeError: boom" in err and "cli_broken.py" in err
    assert "srcad/cli.py" not in err and "importlib" not in err
    assert "Traceback (most recent call last)" in err  # the user's own: it is their bug


def test_a_file_whose_name_is_taken_by_another_module(capsys, tmp_path, monkeypatch):
    (tmp_path / "json.py").write_text("def f(x):\n    return x\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "show", "json.py:f")
    assert code == 2 and "that name is taken by" in err and "rename" in err


def test_parse_wrt():
    assert parse_wrt(None) == 0
    assert parse_wrt("x") == "x"
    assert parse_wrt("2") == 2
    assert parse_wrt("x,1") == ("x", 1)
    assert parse_wrt("x,") == ("x",)
    assert parse_wrt(" x , y ") == ("x", "y")
    for bad in ("", ",", "x,,y", "a b", "x.y"):
        with pytest.raises(UsageError):
            parse_wrt(bad)


# ---- cache


def test_cache_info_and_clear(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "clicache"))
    code, out, _ = run(capsys, "cache", "info")
    assert code == 0
    assert "location: %s (not created yet)" % (tmp_path / "clicache") in out
    assert "enabled:  on" in out and "entries:  0" in out
    srcad.cache.clear()
    srcad.grad(cli_cached)(1.5)
    code, out, _ = run(capsys, "cache", "info")
    assert "entries:  2" in out and "not created yet" not in out
    code, out, _ = run(capsys, "cache", "clear")
    assert code == 0 and "removed 2 entries" in out
    monkeypatch.setenv("SRCAD_CACHE", "0")
    code, out, _ = run(capsys, "cache", "info")
    assert "enabled:  off (SRCAD_CACHE=0)" in out and "entries:  0" in out
    srcad.cache.clear()


def cli_cached(x):
    return x * x * 3.0


# ---- as a program


def test_console_script_and_python_m(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    completed = subprocess.run([sys.executable, "-m", "srcad", "--help"], env=env,
                               capture_output=True, text=True)
    assert completed.returncode == 0
    for words in ("srcad show model.py:loss", "srcad codegen", "srcad cache info",
                  "FILE.py:FUNCTION"):
        assert words in completed.stdout
    completed = subprocess.run([sys.executable, "-m", "srcad", "show", "nope.py:f"], env=env,
                               capture_output=True, text=True)
    assert completed.returncode == 2
    assert completed.stderr == "srcad: error: nope.py: no such file\n"
    script = os.path.join(os.path.dirname(sys.executable), "srcad")
    if os.path.exists(script):  # installed with pip: the console script
        completed = subprocess.run([script, "--version"], capture_output=True, text=True)
        assert completed.returncode == 0 and srcad.__version__ in completed.stdout
