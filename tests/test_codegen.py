"""srcad.codegen: derivatives written as importable modules, with or without srcad."""

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad import emit
from srcad.offline import (
    CodegenError,
    Target,
    free_names,
    module_name_for_path,
    module_source,
    rename_names,
)
from tests import call_functions
from tests.call_helpers import rhs, sigmoid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

W = np.array([0.5, -1.0, 2.0])


def straight_line(x, y):
    z = np.sin(x) * y + x * x
    return np.tanh(z) / (1.0 + y * y)


def with_loops(a, v):
    total = 0.0
    for i in range(4):
        if i % 2 == 0:
            total = total + np.sum(np.sin(a * v)) * i
        else:
            total = total + np.sum(a * v * v)
    n = 0
    while n < 3:
        total = total * 0.9 + a * a
        n = n + 1
    return total


def calls_helpers(x, y):
    k1, k2 = rhs(x, y, 1.1, 0.4)
    return k1 * k2 + sigmoid(x * y) + call_functions.helpers.scaled_norm(np.array([x, y]))


def returns_array(x):
    return x * 2.0


def uses_global_array(x):
    return np.sum(W * x * x)


def make_closure(v):
    def closure(x):
        return np.sum(v * x)

    return closure


closure_over_array = make_closure(np.ones(3))


def load(path, name=None):
    name = name or os.path.basename(str(path))[:-3]
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- standalone: a fresh interpreter in which srcad cannot be imported


STANDALONE_CHILD = textwrap.dedent('''\
    import json, sys
    sys.modules["srcad"] = None  # "import srcad" raises ImportError from here on
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import derivatives
    try:
        import srcad
    except ImportError:
        pass
    else:
        raise AssertionError("srcad is importable")
    v = np.array([0.3, -0.7, 1.2])
    out = {
        "straight_line": derivatives.grad_straight_line(0.7, -1.3),
        "with_loops": [derivatives.grad_with_loops(0.8, v)[0],
                       derivatives.grad_with_loops(0.8, v)[1].tolist()],
        "calls_helpers": derivatives.grad_calls_helpers(0.4, 0.9),
        "jvp": list(derivatives.jvp_straight_line(0.7, -1.3, 1.0)),
    }
    try:
        derivatives.grad_returns_array(v)
    except Exception as exc:
        out["error"] = [type(exc).__name__, str(exc)]
    out["modules"] = sorted(m for m, v in sys.modules.items()
                            if v is not None and m.split(".")[0] in ("srcad", "tests"))
    print(json.dumps(out))
''')


def test_standalone_module_runs_without_srcad(tmp_path):
    text = module_source([Target(straight_line, wrt=(0, 1)), Target(with_loops, wrt=(0, 1)),
                          Target(calls_helpers, wrt=(0, 1)), Target(returns_array),
                          Target(straight_line, mode="forward")], standalone=True)
    assert not re.search(r"^\s*(import|from)\s+(srcad|tests)\b", text, re.MULTILINE)
    (tmp_path / "derivatives.py").write_text(text)
    completed = subprocess.run([sys.executable, "-I", "-c", STANDALONE_CHILD, str(tmp_path)],
                               capture_output=True, text=True, cwd=str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)

    v = np.array([0.3, -0.7, 1.2])
    np.testing.assert_allclose(result["straight_line"],
                               srcad.grad(straight_line, wrt=(0, 1))(0.7, -1.3), rtol=1e-13)
    a_bar, v_bar = srcad.grad(with_loops, wrt=(0, 1))(0.8, v)
    np.testing.assert_allclose(result["with_loops"][0], a_bar, rtol=1e-13)
    np.testing.assert_allclose(result["with_loops"][1], v_bar, rtol=1e-13)
    np.testing.assert_allclose(result["calls_helpers"],
                               srcad.grad(calls_helpers, wrt=(0, 1))(0.4, 0.9), rtol=1e-13)
    np.testing.assert_allclose(result["jvp"],
                               srcad.jvp(straight_line, (0.7, -1.3), (1.0, None)), rtol=1e-13)
    name, message = result["error"]
    assert name == "NonScalarOutputError" and "scalar" in message
    assert result["modules"] == []


@pytest.mark.parametrize("function, args, wrt", [
    (straight_line, (0.7, -1.3), (0, 1)),
    (with_loops, (0.8, np.array([0.3, -0.7, 1.2])), (0, 1)),
    (calls_helpers, (0.4, 0.9), 1),
    (call_functions.rk4_with_helper, (1.1, 0.4, np.array([0.5, 0.2])), (0, 1, 2)),
])
def test_standalone_module_matches_grad_in_process(tmp_path, function, args, wrt):
    path = tmp_path / ("standalone_%s.py" % function.__name__)
    srcad.codegen(function, path, wrt=wrt, standalone=True)
    module = load(path)
    got = getattr(module, "grad_" + function.__name__)(*args)
    expected = srcad.grad(function, wrt=wrt)(*args)
    for g, e in zip(got if isinstance(wrt, tuple) else [got],
                    expected if isinstance(wrt, tuple) else [expected]):
        np.testing.assert_allclose(g, e, rtol=1e-13)
        assert type(g) is type(e)


# ---- modules that import srcad's runtime


def test_module_importing_srcad_runtime(tmp_path):
    path = tmp_path / "with_runtime.py"
    text = srcad.codegen([straight_line, with_loops], path, wrt=[0, (0, 1)])
    assert "import srcad.runtime as rt" in text
    module = load(path)
    assert module.__all__ == ["grad_straight_line", "grad_with_loops"]
    assert module.grad_straight_line(0.7, -1.3) == srcad.grad(straight_line)(0.7, -1.3)
    v = np.array([0.3, -0.7, 1.2])
    a_bar, v_bar = module.grad_with_loops(0.8, v)
    expected = srcad.grad(with_loops, wrt=(0, 1))(0.8, v)
    assert a_bar == expected[0] and np.array_equal(v_bar, expected[1])


def test_header_says_what_when_and_how(tmp_path):
    text = srcad.codegen(straight_line, None, wrt="y")
    header = text.split('"""')[1]
    assert "srcad %s" % srcad.__version__ in header
    assert "grad_straight_line(x, y): srcad.grad(straight_line, wrt='y')" in header
    assert "tests.test_codegen" in header and "test_codegen.py" in header
    assert "Generated 20" in header and "UTC" in header
    assert "mode=reverse" in header and "generic code" in header
    assert "imports srcad.runtime" in header


def test_defaults_are_kept(tmp_path):
    path = tmp_path / "poly_grad.py"
    text = srcad.codegen(call_functions.poly, path)
    assert "def grad_poly(x, a=2.0, b=1.0):" in text
    module = load(path)
    assert module.grad_poly(1.5) == srcad.grad(call_functions.poly)(1.5)
    assert module.grad_poly(1.5, b=3.0) == srcad.grad(call_functions.poly)(1.5, b=3.0)


def test_forward_mode(tmp_path):
    path = tmp_path / "forward_mode.py"
    text = srcad.codegen(with_loops, path, wrt=(0, 1), mode="forward", standalone=True)
    assert "def jvp_with_loops(a, v, a_dot, v_dot):" in text
    module = load(path)
    v, dv = np.array([0.3, -0.7, 1.2]), np.array([1.0, 0.5, -2.0])
    out, tangent = module.jvp_with_loops(0.8, v, 0.3, dv)
    expected = srcad.jvp(with_loops, (0.8, v), (0.3, dv))
    np.testing.assert_allclose(out, expected[0])
    np.testing.assert_allclose(tangent, expected[1])


def test_names_of_the_users_module_are_imported_from_it(tmp_path):
    path = tmp_path / "global_array.py"
    text = srcad.codegen(uses_global_array, path, standalone=True)
    assert "from tests.test_codegen import W" in text
    assert "It imports names from tests.test_codegen" in text
    module = load(path)
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(module.grad_uses_global_array(x),
                               srcad.grad(uses_global_array)(x))


def test_constants_of_inlined_callees_become_literals():
    text = srcad.codegen(calls_helpers, None, standalone=True)
    assert "\nSCALE = 3.0\n" in text


def test_two_meanings_of_one_name_are_renamed(tmp_path, monkeypatch):
    for name, scale in (("scale_three", 3.0), ("scale_five", 5.0)):
        (tmp_path / (name + ".py")).write_text(textwrap.dedent('''\
            SCALE = %r

            def scaled(x):
                return SCALE * x * x
            ''' % scale))
    (tmp_path / "two_users.py").write_text(textwrap.dedent('''\
        import scale_three, scale_five

        def f1(x):
            return scale_three.scaled(x)

        def f2(x):
            return scale_five.scaled(x)
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    import two_users

    path = tmp_path / "renamed.py"
    text = srcad.codegen([two_users.f1, two_users.f2], path, standalone=True)
    assert "SCALE = 3.0" in text and "SCALE_2 = 5.0" in text
    module = load(path)
    assert module.grad_f1(2.0) == 12.0
    assert module.grad_f2(2.0) == 20.0


def test_runtime_alias_renamed_when_the_user_has_an_rt(tmp_path, monkeypatch):
    (tmp_path / "has_rt.py").write_text(textwrap.dedent('''\
        import numpy as np
        rt = 2.0

        def f(x):
            return np.sum(rt * x * x)
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    import has_rt

    path = tmp_path / "has_rt_grad.py"
    text = srcad.codegen(has_rt.f, path, standalone=True)
    assert "rt = 2.0" in text and "rt_2 = _srcad_runtime()" in text
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(load(path).grad_f(x), 4.0 * x)


def test_recursion_needs_srcad(tmp_path):
    with pytest.raises(CodegenError, match="vjp_of") as caught:
        srcad.codegen(call_functions.recursive_power, None, standalone=True)
    assert "recursive" in str(caught.value) and "--standalone" in str(caught.value)
    path = tmp_path / "recursive.py"
    text = srcad.codegen(call_functions.recursive_power, path)
    assert "from srcad.recursion import vjp_of" in text
    assert "from tests.call_functions import recursive_power" in text
    module = load(path)
    assert module.grad_recursive_power(1.3, 3) == pytest.approx(3 * 1.3 ** 2)


def test_a_closure_over_an_array_is_a_clear_error():
    with pytest.raises(CodegenError) as caught:
        srcad.codegen(closure_over_array, None)
    message = str(caught.value)
    assert "`v`" in message and "ndarray" in message and "argument" in message


def test_example_args_specialize_the_code(tmp_path):
    generic = srcad.codegen(straight_line, None, wrt=(0, 1))
    path = tmp_path / "specialized.py"
    specialized = srcad.codegen(straight_line, path, wrt=(0, 1), example_args=(0.5, 0.5))
    assert "specialized for the argument kinds" in specialized
    assert specialized.count("rt.") < generic.count("rt.")
    assert load(path).grad_straight_line(0.7, -1.3) == srcad.grad(
        straight_line, wrt=(0, 1))(0.7, -1.3)


def test_name_option_and_errors():
    assert "def my_gradient(x, y):" in srcad.codegen(straight_line, None, name="my_gradient")
    with pytest.raises(srcad.SrcadError, match="both be named grad_straight_line"):
        srcad.codegen([straight_line, straight_line], None)
    text = srcad.codegen([straight_line, straight_line], None, name=["g1", "g2"])
    assert "def g1(" in text and "def g2(" in text
    with pytest.raises(srcad.SrcadError, match="2 names for 1 functions"):
        srcad.codegen(straight_line, None, name=["a", "b"])
    with pytest.raises(srcad.SrcadError, match="not a valid function name"):
        srcad.codegen(straight_line, None, name="not valid")
    with pytest.raises(srcad.SrcadError, match="mode must be"):
        srcad.codegen(straight_line, None, mode="sideways")
    with pytest.raises(srcad.SrcadError, match="not a parameter"):
        srcad.codegen(straight_line, None, wrt="nope")


def test_bound_methods_are_refused():
    class Model:
        def loss(self, x):
            return x * x

    with pytest.raises(srcad.SrcadError, match="bound method"):
        srcad.codegen(Model().loss, None)


def test_a_script_run_as_main_is_imported_by_its_file_name(tmp_path):
    script = tmp_path / "myscript.py"
    script.write_text(textwrap.dedent('''\
        import numpy as np
        import srcad

        W = np.array([1.0, 2.0])

        def f(x):
            return np.sum(W * x * x)

        if __name__ == "__main__":
            srcad.codegen(f, "script_grad.py")
        '''))
    env = dict(os.environ, PYTHONPATH=ROOT)
    subprocess.run([sys.executable, str(script)], cwd=str(tmp_path), env=env, check=True)
    text = (tmp_path / "script_grad.py").read_text()
    assert "from myscript import W" in text
    check = ("import numpy as np, script_grad; "
             "print(script_grad.grad_f(np.array([1.0, 1.0])).tolist())")
    completed = subprocess.run([sys.executable, "-c", check], cwd=str(tmp_path), env=env,
                               capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == [2.0, 4.0]


# ---- pieces


def test_free_names_and_renaming():
    """Renaming works on the syntax tree: only variables change, never an attribute, a
    keyword argument, a string or a comment that spells the same name."""
    source = textwrap.dedent('''\
        def g(x, y):
            z = np.sum(x, axis=SCALE)
            # SCALE in a comment stays
            t = 'SCALE'
            return rt.f(z * SCALE, axis=1) + obj.SCALE
        ''')
    assert free_names(source) == ["np", "SCALE", "rt", "obj"]
    tree = emit.parse_source(source)
    assert emit.to_source(tree) == source  # read back exactly as emit prints it
    renamed = emit.to_source(rename_names(tree, {"SCALE": "SCALE_2", "axis": "nope"}))
    assert renamed == source.replace("axis=SCALE)", "axis=SCALE_2)").replace(
        "z * SCALE,", "z * SCALE_2,")


def test_module_names_from_paths(tmp_path):
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    assert module_name_for_path(str(package / "mod.py")) == ("pkg.sub.mod", str(tmp_path))
    assert module_name_for_path(str(tmp_path / "plain.py")) == ("plain", str(tmp_path))
    with pytest.raises(srcad.SrcadError, match="not a valid module name"):
        module_name_for_path(str(tmp_path / "my-model.py"))


@pytest.mark.parametrize("function", [straight_line, with_loops, call_functions.poly])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_generated_code_reads_back_as_the_tree_it_was_printed_from(function, mode):
    """codegen changes generated code on its tree: emit.parse_source must give back a tree
    that prints as the very same text, comments (``# grad of: ...``) included."""
    source = srcad.source(function, mode=mode)
    assert "    # " in source or mode == "forward"
    assert emit.to_source(emit.parse_source(source)) == source
