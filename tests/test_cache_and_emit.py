"""The derivative cache, and how generated code is compiled (linecache, tracebacks)."""

import gc
import importlib
import inspect
import linecache
import os
import sys
import threading
import textwrap
import traceback
import weakref

import numpy as np
import pytest

import srcad
from srcad import cache, emit
from srcad.cache import generated_files

try:
    from . import _fd
except ImportError:
    import _fd


def cubic(x, y):
    return x * x * y + np.sin(y)


def other(x, y):
    return np.exp(x) * y


def pair(x, y):
    return x * y, x + y


def matrix_loss(W, x):
    return np.sum(np.dot(x, W))


def returns_array(x):
    y = x * 3.0
    return y


def make_scaled(fn):
    def scaled(x):
        return fn(x) * 2.0
    return scaled


def cubic_sum(x, y):
    return np.sum(x * x * y + np.sin(y))


def counts():
    return dict(cache.statistics)


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test starts from an empty cache, so counts do not depend on test order."""
    cache.clear()
    yield


# ---- level 1: wrapper per function+options


def test_same_function_same_options_is_a_cache_hit():
    first = srcad.grad(cubic, wrt=(0, 1))
    before = counts()
    second = srcad.grad(cubic, wrt=(0, 1))
    after = counts()
    assert second is first
    assert after["generated"] == before["generated"]
    assert after["hits"] == before["hits"] + 1


def test_wrt_by_name_or_position_share_the_cache_entry():
    first = srcad.grad(cubic, wrt=1)
    before = counts()
    assert srcad.grad(cubic, wrt="y") is first
    assert srcad.grad(cubic, wrt=-1) is first
    assert counts()["generated"] == before["generated"]


def test_decorator_form_hits_the_same_entry():
    first = srcad.grad(other)
    before = counts()
    assert srcad.grad(wrt=0)(other) is first
    assert counts()["generated"] == before["generated"]


@pytest.mark.parametrize("options", [
    dict(wrt=1),
    dict(wrt=(0,)),          # a 1-tuple is a different request from wrt=0
    dict(wrt=(0, 1)),
    dict(wrt=(1, 0)),
])
def test_different_wrt_regenerates(options):
    base = srcad.grad(cubic, wrt=0)
    before = counts()
    other_wrapper = srcad.grad(cubic, **options)
    assert other_wrapper is not base
    assert counts()["generated"] > before["generated"]
    args = (0.4, 1.3)
    result = other_wrapper(*args)
    wrt = options["wrt"]
    if isinstance(wrt, tuple):
        assert isinstance(result, tuple) and len(result) == len(wrt)
        for g, index in zip(result, wrt):
            _fd.assert_close(g, _fd.numeric_grad(cubic, args, index))
    else:
        _fd.assert_close(result, _fd.numeric_grad(cubic, args, wrt))


def test_has_aux_regenerates():
    with_aux = srcad.grad(pair, has_aux=True)
    before = counts()
    assert srcad.grad(pair, has_aux=True) is with_aux
    assert counts()["generated"] == before["generated"]
    value_version = srcad.value_and_grad(pair, has_aux=True)
    assert value_version is not with_aux
    assert counts()["generated"] > before["generated"]


def test_has_aux_flag_is_part_of_the_key():
    without = srcad.grad(other)
    before = counts()
    with_aux = srcad.grad(_other_with_aux, has_aux=True)
    assert with_aux is not without
    assert counts()["generated"] > before["generated"]
    g, aux = with_aux(0.3, 2.0)
    _fd.assert_close(g, _fd.numeric_grad(other, (0.3, 2.0), 0))
    assert aux == 2.0


def _other_with_aux(x, y):
    return np.exp(x) * y, y


def test_grad_and_value_and_grad_are_different_entries():
    g = srcad.grad(other)
    before = counts()
    vg = srcad.value_and_grad(other)
    assert vg is not g
    assert counts()["generated"] > before["generated"]
    value, grad = vg(0.3, 2.0)
    _fd.assert_close(value, other(0.3, 2.0))
    _fd.assert_close(grad, g(0.3, 2.0))


def test_closures_with_the_same_source_are_cached_separately():
    sin_scaled, cos_scaled = make_scaled(np.sin), make_scaled(np.cos)
    g_sin, g_cos = srcad.grad(sin_scaled), srcad.grad(cos_scaled)
    assert g_sin is not g_cos
    _fd.assert_close(g_sin(0.3), 2.0 * np.cos(0.3))
    _fd.assert_close(g_cos(0.3), -2.0 * np.sin(0.3))


def test_clear_empties_the_cache():
    first = srcad.grad(cubic, wrt=(1, 0))
    cache.clear()
    assert cache.statistics == {"generated": 0, "hits": 0}
    second = srcad.grad(cubic, wrt=(1, 0))
    assert second is not first
    assert cache.statistics["generated"] >= 1


@pytest.mark.parametrize("disk_cache", ["1", "0"])
def test_cache_does_not_keep_functions_alive(monkeypatch, disk_cache):
    """Neither the caches nor the parsed source (parse.read) keep a function (and the
    arrays its closure holds) alive once the user drops it."""
    monkeypatch.setenv("SRCAD_CACHE", disk_cache)
    function = make_scaled(np.sin)
    srcad.grad(function)(0.3)
    ref = weakref.ref(function)
    del function
    gc.collect()
    assert ref() is None


# ---- level 2: specializations


def test_specializations_are_generated_once_per_argument_kind():
    g = srcad.grad(cubic_sum, wrt=(0, 1))
    g(0.1, 0.2)  # make sure the float specialization exists
    before = counts()
    for _ in range(3):
        g(0.5, 0.7)
    assert counts()["generated"] == before["generated"]

    x = np.ones(3)
    g(x, 0.7)
    middle = counts()
    assert middle["generated"] == before["generated"] + 1
    g(np.zeros(3), 1.5)  # same kind: rank 1, no size-1 dimension
    assert counts()["generated"] == middle["generated"]
    g(np.zeros((2, 3)), 1.5)  # new rank
    assert counts()["generated"] == middle["generated"] + 1


def test_specialized_and_generic_source():
    g = srcad.grad(cubic, wrt=(0, 1))
    assert "rt.match_type" in g.source  # generic: types decided at run time
    specialized = g.source_for(0.5, 0.7)
    assert "rt." not in specialized  # floats: everything decided at generation time
    assert specialized.startswith("def grad_cubic(x, y):")


# ---- changed source


MODULE_V1 = '''\
import numpy as np


def loss(x, y):
    return x * x * y
'''

MODULE_V2 = '''\
import numpy as np


def loss(x, y):
    # changed: a different body (and a different file size)
    z = np.sin(x) + y * y * y
    return z * 3.0
'''


@pytest.fixture
def module_file(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    name = "srcad_changing_module_%d" % id(tmp_path)
    path = tmp_path / (name + ".py")
    yield name, path
    sys.modules.pop(name, None)


def test_changed_function_regenerates(module_file):
    name, path = module_file
    path.write_text(MODULE_V1)
    module = importlib.import_module(name)
    g1 = srcad.grad(module.loss, wrt=(0, 1))
    gx, gy = g1(0.5, 2.0)
    _fd.assert_close(gx, 2 * 0.5 * 2.0)
    _fd.assert_close(gy, 0.5 * 0.5)

    path.write_text(MODULE_V2)
    importlib.invalidate_caches()
    module = importlib.reload(module)
    before = counts()
    g2 = srcad.grad(module.loss, wrt=(0, 1))
    assert g2 is not g1
    assert counts()["generated"] > before["generated"]
    gx, gy = g2(0.5, 2.0)
    _fd.assert_close(gx, 3.0 * np.cos(0.5))
    _fd.assert_close(gy, 9.0 * 2.0 * 2.0)
    assert "np.sin" in g2.source or "np.cos" in g2.source
    _fd.assert_close(gx, _fd.numeric_grad(module.loss, (0.5, 2.0), 0))


def test_function_whose_code_is_replaced_in_place_regenerates(module_file):
    """IPython's autoreload (and hot-reloading tools) edit a function object in place:
    they assign the new ``__code__`` to the function users already hold. Its gradient
    must follow the new code, not the derivative cached on the function object."""
    name, path = module_file
    path.write_text(MODULE_V1)
    module = importlib.import_module(name)
    held = module.loss
    gx, gy = srcad.grad(held, wrt=(0, 1))(0.5, 2.0)
    _fd.assert_close(gx, 2 * 0.5 * 2.0)

    path.write_text(MODULE_V2)
    linecache.checkcache(str(path))
    new_namespace = {}
    exec(compile(MODULE_V2, str(path), "exec"), new_namespace)
    held.__code__ = new_namespace["loss"].__code__  # what autoreload does
    gx, gy = srcad.grad(held, wrt=(0, 1))(0.5, 2.0)
    _fd.assert_close(gx, 3.0 * np.cos(0.5))
    _fd.assert_close(gy, 9.0 * 2.0 * 2.0)
    _fd.assert_close(gx, _fd.numeric_grad(held, (0.5, 2.0), 0))


def test_same_source_other_function_object_still_correct(module_file):
    name, path = module_file
    path.write_text(MODULE_V1)
    module = importlib.import_module(name)
    g1 = srcad.grad(module.loss)
    module = importlib.reload(module)  # same text, new function object
    g2 = srcad.grad(module.loss)
    _fd.assert_close(g2(0.5, 2.0), g1(0.5, 2.0))


# ---- emitted code, linecache, tracebacks


def _generated_frames(exc):
    return [(frame.f_code.co_filename, lineno)
            for frame, lineno in traceback.walk_tb(exc.__traceback__)
            if _is_generated(frame.f_code.co_filename)]


def _is_generated(filename):
    """Generated code lives in files of its own under srcad's source directory."""
    return filename.startswith(generated_files.source_directory() + os.sep)


def test_traceback_of_numpy_error_inside_generated_code():
    g = srcad.grad(matrix_loss)
    with pytest.raises(ValueError) as info:
        g(np.ones((3, 2)), np.ones((4, 5)))  # shapes do not match in np.dot
    frames = _generated_frames(info.value)
    assert frames, "no frame of generated code in the traceback"
    filename, lineno = frames[-1]
    line = linecache.getline(filename, lineno)
    assert "np.dot(x, W)" in line
    # the same line is in the function's generated source, and in the formatted traceback
    generated = next(iter(g.specializations.values()))
    assert line.strip() in generated.source.splitlines()[lineno - 2].strip()
    formatted = "".join(traceback.format_exception(info.type, info.value, info.tb))
    assert line.strip() in formatted


def test_traceback_of_non_scalar_output_points_into_generated_code():
    g = srcad.grad(returns_array)
    with pytest.raises(srcad.SrcadError) as info:
        g(np.ones(3))
    frames = _generated_frames(info.value)
    assert frames
    filename, lineno = frames[-1]
    line = linecache.getline(filename, lineno)
    assert "check_scalar_output" in line
    generated = next(iter(g.specializations.values()))
    assert line.strip() in [text.strip() for text in generated.source.splitlines()]


@pytest.mark.parametrize("source", [
    "def f(x):\n    y = x * 2.0\n    return y\n",  # the printer's text: the fast path
    "def f(x):\n    return x",  # no final line break
    "\n", "", "def f(x):\n\n    return x\n", "def f(x):\n    \n    return x\n",
    "   \ndef f(x):\n    return x\n", "def f(x):\n    return x\n\t\n",
    "def f(x):\n    return '\x1f'\n", "def f(x):\n\x1f\n    return x\n",
    "def f(x):\r\n    return x\r\n", "def f(x):\n    return \"\"\"a\x0cb\x1cc\"\"\"\n",
    "def f(x):\n    return \"\"\"a\n\u2028 \u3000\n\"\"\"\n", "def f(x):\n\u3000\n    return x\n",
    "def f(x):\n    return '\u00e9'\n",
])
def test_generated_source_is_indented_in_its_factory_line_by_line(source):
    """compile_function's indentation is the line by line one for any text: lines of blanks
    only stay as they are, lines end where str.splitlines ends them."""
    by_line = "".join("    " + line if line.strip() else line
                      for line in source.splitlines(keepends=True))
    assert emit._indented(source) == by_line


def test_source_attribute_is_what_linecache_holds():
    g = srcad.grad(cubic, wrt=(0, 1))
    g(0.5, 0.7)
    generated_functions = [generated.function for generated in g.specializations.values()]
    assert generated_functions
    for function in generated_functions:
        filename = function.__code__.co_filename
        assert _is_generated(filename)
        held = "".join(linecache.getlines(filename))
        assert textwrap.indent(function.__source__, "    ") in held
        with open(filename) as stream:  # the real file holds the same text
            assert stream.read() == held
    # the generic source, g.source, is compiled and held the same way
    assert any(textwrap.indent(g.source, "    ") in "".join(entry[2])
               for name, entry in linecache.cache.items()
               if _is_generated(name) and len(entry) == 4)


def test_inspect_getsource_of_generated_function():
    g = srcad.grad(cubic, wrt=(0, 1))
    g(0.5, 0.7)
    generated = next(iter(g.specializations.values()))
    assert textwrap.dedent(inspect.getsource(generated.function)) == generated.source


def test_generated_code_survives_linecache_checkcache():
    g = srcad.grad(matrix_loss)
    g(np.ones((3, 2)), np.ones((4, 3)))
    generated = next(iter(g.specializations.values()))
    filename = generated.function.__code__.co_filename
    linecache.checkcache()
    linecache.checkcache(filename)
    assert linecache.getlines(filename)


def test_every_specialization_source_compiles_and_matches_its_function():
    g = srcad.grad(cubic_sum, wrt=(0, 1))
    g(0.5, 0.7)
    g(np.ones(2), 0.7)
    for generated in g.specializations.values():
        compile(generated.source, "<check>", "exec")
        assert generated.function.__name__ in generated.source.splitlines()[0]


def test_generated_code_has_no_lone_parenthesis_lines(tmp_path, monkeypatch):
    directory = tmp_path / ("a_rather_long_directory_name_" * 3)
    directory.mkdir()
    monkeypatch.syspath_prepend(str(directory))
    name = "srcad_long_path_module_%d" % id(tmp_path)
    (directory / (name + ".py")).write_text(MODULE_V1)
    try:
        module = importlib.import_module(name)
        source = srcad.grad(module.loss).source
    finally:
        sys.modules.pop(name, None)
    assert all(line.strip() != ")" for line in source.splitlines()), source


def test_generated_function_uses_its_own_numpy_alias():
    # the user's module may call numpy anything; generated code binds its own `np`
    g = srcad.grad(cubic, wrt=(0, 1))
    g(0.5, 0.7)
    generated = next(iter(g.specializations.values()))
    assert generated.aliases.get("np") is np
    assert generated.function.__globals__ is cubic.__globals__


def test_threads_asking_for_one_new_specialization_generate_it_once():
    """srcad/cache/specializations.py checks its table again under a lock."""
    g = srcad.grad(cubic_sum, wrt=(0, 1))
    start = threading.Barrier(6)
    results = []

    def call():
        start.wait()
        results.append(g(np.full((2, 2), 0.5), 0.7))

    before = counts()
    threads = [threading.Thread(target=call) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counts()["generated"] == before["generated"] + 1
    assert len(results) == 6
    for gx, gy in results:
        _fd.assert_close(gx, results[0][0])
        _fd.assert_close(gy, results[0][1])


def make_recursive(scale):
    def power(x, n):
        if n == 0:
            return scale
        return x * power(x, n - 1)
    return power


def outer_of_recursive(power):
    def outer(x):
        return power(x, 3)
    return outer


@pytest.mark.parametrize("disk_cache", ["1", "0"])
def test_vjp_of_a_recursive_function_does_not_keep_it_alive(monkeypatch, disk_cache):
    """The generated vjp of a recursive function is kept with the function (cache/memory.py),
    not in a table of its own that would keep it alive."""
    monkeypatch.setenv("SRCAD_CACHE", disk_cache)
    power = make_recursive(2.0)
    _fd.assert_close(srcad.grad(outer_of_recursive(power))(0.5), 2.0 * 3 * 0.5 ** 2)
    ref = weakref.ref(power)
    del power
    gc.collect()
    assert ref() is None
