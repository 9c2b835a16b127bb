"""Golden tests of generated source.

1. ``srcad.source(f, ...)`` for a few functions, compared with tests/golden/*.py.
   Run with SRCAD_UPDATE_GOLDEN=1 to rewrite those files after an intended change
   (then review the diff).
2. Per-pass "source in -> source out" tests for each normalize/optimize/transform
   pass, from the examples and promises in each pass's docstring.

The functions of part 1 live in tests/_golden_functions.py. They are loaded under
the fixed file name ``golden_subjects.py`` (registered with linecache), so the
generated code, which quotes ``file:line:col`` of the return, does not depend on
where the repository is checked out.
"""

import builtins
import difflib
import linecache
import os
import textwrap
import types
from pathlib import Path

import gast
import numpy as np
import pytest

import srcad
from srcad import emit, runtime
from srcad.analysis import shapes
from srcad.analysis.operations import UNRESOLVED
from srcad.annotations import comment, write_kind
from srcad.naming import Namer
from srcad.namespace import Aliases
from srcad.normalize.lower_exits import lower_exits
from srcad.normalize.lower_mutations import lower_mutations
from srcad.normalize.rename_versions import rename_versions
from srcad.normalize.split_tapes import split_tapes
from srcad.normalize.to_anf import to_anf
from srcad.optimize.fold_constants import fold_constants
from srcad.optimize.keep_broadcasts_implicit import keep_broadcasts_implicit
from srcad.optimize.propagate_copies import propagate_copies
from srcad.optimize.remove_dead_code import remove_dead_code
from srcad.optimize.specialize_runtime_calls import specialize_runtime_calls
from srcad.parse import all_identifiers, parse_function
from srcad.transform.lower_accumulations import lower_accumulations

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("SRCAD_UPDATE_GOLDEN") == "1"
SUBJECTS_FILENAME = "golden_subjects.py"


def _load_subjects():
    text = (HERE / "_golden_functions.py").read_text()
    linecache.cache[SUBJECTS_FILENAME] = (len(text), None, text.splitlines(True),
                                          SUBJECTS_FILENAME)
    module = types.ModuleType("golden_subjects")
    module.__file__ = SUBJECTS_FILENAME
    exec(compile(text, SUBJECTS_FILENAME, "exec"), module.__dict__)
    return module


S = _load_subjects()


def check_golden(name, text):
    """Compare ``text`` with tests/golden/<name>.py, or rewrite it when updating."""
    path = GOLDEN / (name + ".py")
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
        return
    if not path.exists():
        pytest.fail("no golden file %s; run with SRCAD_UPDATE_GOLDEN=1 to create it" % path)
    expected = path.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            "golden/%s.py" % name, "generated"))
        pytest.fail("generated source differs from golden (SRCAD_UPDATE_GOLDEN=1 rewrites "
                    "it):\n" + diff)


def _mlp_args():
    rng = np.random.RandomState(0)
    return (rng.randn(5, 4), rng.randn(4), rng.randn(4, 3), rng.randn(3),
            rng.randn(6, 5), rng.randn(6, 3))


# ---- whole-pipeline goldens


def test_subjects_are_loaded_under_a_fixed_name():
    assert S.scalar.__code__.co_filename == SUBJECTS_FILENAME
    assert "z ** 2.0" in srcad.source(S.scalar, example_args=(1.0, 2.0), stages=True)


def test_golden_scalar():
    check_golden("scalar", srcad.source(S.scalar, wrt=(0, 1), example_args=(1.0, 2.0)))


def test_golden_mlp():
    check_golden("mlp", srcad.source(S.mlp, wrt=(0, 1, 2, 3), example_args=_mlp_args()))


def test_golden_broadcast():
    check_golden("broadcast", srcad.source(S.broadcast, wrt=(0, 1),
                                           example_args=(np.ones((3, 4)), np.ones(4))))


def test_golden_generic():
    check_golden("generic", srcad.source(S.generic, wrt=(0, 1)))


def test_golden_branch():
    check_golden("branch", srcad.source(S.branch, wrt=(0, 1), example_args=(2.0, 1.0)))


def test_golden_loop():
    check_golden("loop", srcad.source(S.loop, wrt=(0, 1), example_args=(3.7, 0.3)))


def test_golden_sources_compute_correct_gradients():
    """The pinned code is not just stable but right: run it against finite differences."""
    try:
        from . import _fd
    except ImportError:
        import _fd
    cases = [
        (S.scalar, (0, 1), (0.7, -1.1)),
        (S.mlp, (0, 1, 2, 3), _mlp_args()),
        (S.broadcast, (0, 1), (np.random.RandomState(1).randn(3, 4),
                               np.random.RandomState(2).randn(4))),
        (S.generic, (0, 1), (np.random.RandomState(3).randn(3), 0.3)),
        (S.branch, (0, 1), (2.0, 1.0)),
        (S.branch, (0, 1), (1.0, 2.0)),
        (S.loop, (0, 1), (2.5, 0.3)),  # a stable regime: chaos defeats finite differences
    ]
    for function, wrt, args in cases:
        gradients = srcad.grad(function, wrt=wrt)(*args)
        for index, g in zip(wrt, gradients):
            _fd.assert_close(g, _fd.numeric_grad(function, args, index), rtol=1e-5, atol=1e-6)


def test_specialized_source_has_no_runtime_helpers_for_floats():
    text = srcad.source(S.scalar, wrt=(0, 1), example_args=(1.0, 2.0))
    assert "rt." not in text
    text = srcad.source(S.broadcast, wrt=(0, 1), example_args=(np.ones((3, 4)), np.ones(4)))
    assert "unbroadcast" not in text and "z_bar.sum(axis=0)" in text


# ---- per-pass helpers


def function_tree(source):
    """The FunctionDef of a small function written as text."""
    return gast.parse(textwrap.dedent(source)).body[0]


def text(source):
    return textwrap.dedent(source).lstrip("\n")


_NAMES = {"np": np, "rt": runtime, "print": print, "float": float}


def resolve(node):
    """Resolve np / rt / print and attribute chains on them (what make_resolver does)."""
    if isinstance(node, gast.Name):
        return _NAMES.get(node.id, UNRESOLVED)
    if isinstance(node, gast.Attribute):
        base = resolve(node.value)
        return UNRESOLVED if base is UNRESOLVED else getattr(base, node.attr, UNRESOLVED)
    return UNRESOLVED


class FixedAliases:
    """Stand-in for namespace.Aliases: numpy is ``np``, srcad.runtime is ``rt``."""

    bindings = {"np": np, "rt": runtime}

    def name_for(self, obj, preferred=None):
        return {id(np): "np", id(runtime): "rt"}[id(obj)]


def anf(function):
    parsed = parse_function(function)
    namer = Namer(parsed.identifiers)
    return to_anf(parsed, parsed.tree, namer, Aliases(parsed, namer)), namer


def anf_lowered(function):
    """to_anf, then lower_mutations (what the passes after them see)."""
    parsed = parse_function(function)
    namer = Namer(parsed.identifiers)
    aliases = Aliases(parsed, namer)
    tree = to_anf(parsed, parsed.tree, namer, aliases)
    return lower_mutations(tree, namer, aliases), namer


# ---- normalize/to_anf.py


def test_anf_docstring_example():
    tree, _ = anf(S.anf_nested)
    assert emit.to_source(tree) == text("""
        def anf_nested(x, W1, b1):
            dot = np.dot(x, W1)
            add = dot + b1
            h = np.tanh(add)
            return h
        """)


def test_anf_mixed_forms():
    # docstring and pass dropped; augmented assignment kept (a write: lower_mutations); -2.0
    # is an atom;
    # slices/index kept as an index of atoms; method call and keyword kept; np.pi is an
    # atom; the effectful print kept; the return becomes `return <atom>`
    tree, _ = anf(S.anf_mixed)
    assert emit.to_source(tree) == text("""
        def anf_mixed(x, y):
            a = -2.0 * x
            a += y
            b = x[1:3, 0]
            total = x.sum(axis=0)
            c = total + np.pi
            print(c)
            mul = a * b
            result = mul + c
            return result
        """)


def test_anf_one_operation_per_statement():
    tree, _ = anf(S.mlp)
    for statement in tree.body[:-1]:
        assert isinstance(statement, gast.Assign)
        nested = [n for n in gast.walk(statement.value)
                  if isinstance(n, (gast.BinOp, gast.Call, gast.UnaryOp))]
        assert len(nested) <= 1, emit.to_source(statement)
    assert isinstance(tree.body[-1], gast.Return)
    assert isinstance(tree.body[-1].value, gast.Name)


def test_anf_tuple_swap_is_simultaneous():
    tree, _ = anf(S.anf_swap)
    namespace = {"np": np}
    exec(compile(emit.to_source(tree), "<anf>", "exec"), namespace)
    assert namespace["anf_swap"](1.0, 2.0) == S.anf_swap(1.0, 2.0)


def scaled(v, factor=2.0):
    return v * factor


def calls_a_helper(x):
    def shifted(t, by=x):
        return t + by

    return scaled(shifted(x * 3.0))


def test_to_anf_inlines_user_functions_and_nested_ones():
    # normalize/inline.py: the arguments are evaluated where the call is, the callee's
    # parameters and locals get fresh names (t and by are the nested def's own names, so
    # fresh ones are t_2 and by_2), its default is bound, its return is a result; a nested
    # def's default is evaluated where the def is
    tree, _ = anf(calls_a_helper)
    assert emit.to_source(tree) == text("""
        def calls_a_helper(x):
            default = x
            mul = x * 3.0
            t_2 = mul
            by_2 = default
            result = t_2 + by_2
            v = result
            factor = 2.0
            scaled_2 = v * factor
            return scaled_2
        """)


# ---- normalize/lower_mutations.py


def mutations(y, v, i):
    items = [v]
    y[i + 1] = v * 2.0
    y[i] += v
    y += v
    items.append(y)
    last = items.pop()
    return last


def positive_sines(xs):
    ys = [np.sin(x) for x in xs if x > 0.0]
    return ys


def table_of(xs, w):
    return {k: w * v for k, v in zip(("a", "b"), xs)}


def largest_square(xs):
    return max(x * x for x in xs)


def test_to_anf_lowers_comprehensions_to_loops_where_python_evaluates_them():
    # normalize/lower_comprehensions.py: a fresh list (or dict) filled by a loop over the
    # iterable indexed (lower_exits.index_loops), the comprehension's variables renamed, its
    # condition per element; max over a generator keeps the first largest element
    tree, _ = anf(positive_sines)
    assert emit.to_source(tree) == text("""
        def positive_sines(xs):
            items = []
            sequence = rt.iterated(xs)
            length = len(sequence)
            for index in range(length):
                x_2 = sequence[index]
                cond = x_2 > 0.0
                if cond:
                    sin = np.sin(x_2)
                    items = rt.appended(items, sin)
                else:
                    pass
            ys = items
            return ys
        """)
    tree, _ = anf(table_of)
    assert emit.to_source(tree) == text("""
        def table_of(xs, w):
            entries = {}
            items = 'a', 'b'
            sequence = rt.iterated(items)
            sequence_2 = rt.iterated(xs)
            length = len(sequence)
            length_2 = len(sequence_2)
            minimum = min(length, length_2)
            for index in range(minimum):
                k_2 = sequence[index]
                v_2 = sequence_2[index]
                mul = w * v_2
                entries = rt.updated(entries, k_2, mul)
            return entries
        """)
    tree, _ = anf(largest_square)
    assert emit.to_source(tree) == text("""
        def largest_square(xs):
            items = []
            sequence = rt.iterated(xs)
            length = len(sequence)
            for index in range(length):
                x_2 = sequence[index]
                mul = x_2 * x_2
                items = rt.appended(items, mul)
            candidates = items
            length_2 = len(candidates)
            cond = length_2 == 0
            if cond:
                raise ValueError('max() iterable argument is empty')
            else:
                pass
            largest = candidates[0]
            length_3 = len(candidates)
            for position in range(1, length_3):
                candidates_item = candidates[position]
                cond_2 = candidates_item > largest
                if cond_2:
                    largest = candidates[position]
                else:
                    pass
            return largest
        """)


def test_to_anf_leaves_writes_marked_for_lower_mutations():
    tree, _ = anf(mutations)
    assert emit.to_source(tree) == text("""
        def mutations(y, v, i):
            items = [v]
            mul = v * 2.0
            add = i + 1
            y[add] = mul
            part = y[i]
            add_2 = part + v
            y[i] = add_2
            y += v
            items.append(y)
            last = items.pop()
            return last
        """)
    kinds = [write_kind(statement) for statement in tree.body]
    assert kinds == [None, None, None, "subscript", None, None, "subscript", "augmented",
                     "append", "pop", None]


def test_lower_mutations_docstring_example():
    tree, _ = anf_lowered(mutations)
    assert emit.to_source(tree) == text("""
        def mutations(y, v, i):
            items = [v]
            mul = v * 2.0
            add = i + 1
            y = rt.updated(y, add, mul)
            part = y[i]
            add_2 = part + v
            y = rt.updated(y, i, add_2)
            y = y + v
            items = rt.appended(items, y)
            popped = items[-1]
            items = rt.all_but_last(items)
            last = popped
            return last
        """)
    kinds = [write_kind(statement) for statement in tree.body]
    assert kinds == [None, None, None, "subscript", None, None, "subscript", "augmented",
                     "append", None, "pop", None, None]
    assert all(isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
               for s in tree.body[:-1])


def test_lower_mutations_keeps_what_python_computes():
    tree, _ = anf_lowered(mutations)
    namespace = {"rt": runtime, "np": np}
    exec(compile(emit.to_source(tree), "<lower_mutations>", "exec"), namespace)
    y = np.arange(4.0)
    assert np.array_equal(namespace["mutations"](y.copy(), 0.5, 1), mutations(y.copy(), 0.5, 1))


# ---- normalize/rename_versions.py


def rename(source):
    tree = function_tree(source)
    return emit.to_source(rename_versions(tree, Namer(all_identifiers(tree))))


def test_rename_versions_straight_line():
    tree, namer = anf_lowered(S.anf_redefine)
    assert emit.to_source(rename_versions(tree, namer)) == text("""
        def anf_redefine(x):
            x_2 = x * 2.0
            x_3 = np.sin(x_2)
            return x_3
        """)


def test_rename_versions_renames_reads_after_each_definition():
    assert rename("""
        def f(x, y):
            a = x * y
            b = a + 1.0
            a = a * b
            y = a - x
            return a + y
        """) == text("""
        def f(x, y):
            a = x * y
            b = a + 1.0
            a_2 = a * b
            y_2 = a_2 - x
            return a_2 + y_2
        """)


def test_rename_versions_single_assignment_outside_loops():
    tree, namer = anf_lowered(S.anf_mixed)
    out = rename_versions(tree, namer)
    stored = [n.id for n in gast.walk(out) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Store)]
    params = [a.id for a in out.args.args]
    assert len(stored + params) == len(set(stored + params))


def test_rename_versions_docstring_loop_example():
    assert rename("""
        def f(r, x, n):
            s = 0.0
            for i in range(n):
                mul = r * x
                x = mul * (1.0 - x)
                s = s + x * x
            return s
        """) == text("""
        def f(r, x, n):
            s = 0.0
            for i in range(n):
                mul = r * x
                x_2 = mul * (1.0 - x)
                s_2 = s + x_2 * x_2
                s = s_2
                x = x_2
            return s
        """)


def test_rename_versions_merges_after_if():
    assert rename("""
        def f(x, y):
            if x > 0:
                y = y * 2.0
            else:
                z = 1.0
            return y
        """) == text("""
        def f(x, y):
            if x > 0:
                y_2 = y * 2.0
                y_3 = y_2
            else:
                z = 1.0
                y_3 = y
            return y_3
        """)


def test_rename_versions_nested_loop_carries_in_its_own_name():
    assert rename("""
        def f(x, n):
            s = x
            for i in range(n):
                for j in range(n):
                    s = s * x
            return s
        """) == text("""
        def f(x, n):
            s = x
            for i in range(n):
                s_2 = s
                for j in range(n):
                    s_3 = s_2 * x
                    s_2 = s_3
                s = s_2
            return s
        """)


# ---- normalize/split_tapes.py


def test_split_tapes_docstring_example_and_the_tree_given_stays():
    source = """
        def grad_f(x, n):
            _tape = []
            s = 0.0
            for i in range(n):
                a = np.sin(x)
                b = np.ones(3)
                if a[0] > 0.0:
                    c = a * 2.0
                    _tape.append(c)
                _tape.append((a, b))
                _tape.append((b, False))
            for i in reversed(range(n)):
                b, flag = _tape.pop()
                a, b = _tape.pop()
                if a[0] > 0.0:
                    c = _tape.pop()
                    s = s + np.sum(c)
                s = s + np.sum(a * b)
            return s
        """
    tree = function_tree(source)
    before = emit.to_source(tree)
    split = split_tapes(tree, Namer(all_identifiers(tree)))
    assert emit.to_source(tree) == before
    # the single values get a list of their own; the pairs stay on _tape (one of them
    # records a constant the optimizer folded: still a pair)
    assert emit.to_source(split) == text(source).replace(
        "_tape = []", "_tape = []\n    _tape_2 = []").replace(
        "_tape.append(c)", "_tape_2.append(c)").replace("c = _tape.pop()", "c = _tape_2.pop()")


def test_split_tapes_leaves_lists_used_otherwise_and_one_layout_alone():
    one_layout = """
        def grad_f(x, n):
            _tape = []
            for i in range(n):
                _tape.append((x, i))
            for i in reversed(range(n)):
                x, i = _tape.pop()
            return x
        """
    used_otherwise = one_layout.replace("            return x", "            return len(_tape)")
    unpaired = one_layout.replace("x, i = _tape.pop()", "x, i, n = _tape.pop()").replace(
        "_tape.append((x, i))", "_tape.append((x, i))\n                _tape.append(x)")
    for source in (one_layout, used_otherwise, unpaired):
        tree = function_tree(source)
        assert split_tapes(tree, Namer(all_identifiers(tree))) is tree


# ---- normalize/lower_exits.py


def resolve_builtins(node):
    if isinstance(node, gast.Name) and hasattr(builtins, node.id):
        return getattr(builtins, node.id)
    return UNRESOLVED


def exits(source):
    tree = function_tree(source)
    return emit.to_source(lower_exits(tree, Namer(all_identifiers(tree)), resolve_builtins,
                                      FixedAliases()))


def test_lower_exits_leaves_straight_line_and_range_loops_alone():
    source = """
        def f(x, n):
            y = x * 2.0
            for i in range(n):
                y = y * x
            return y
        """
    assert exits(source) == text(source)


def test_lower_exits_iteration_becomes_index_loops():
    assert exits("""
        def f(xs, w):
            s = 0.0
            for row in xs:
                s = s + row * w
            for i, row in enumerate(xs):
                s = s + row * i
            for a, b in zip(xs, w):
                s = s + a * b
            return s
        """) == text("""
        def f(xs, w):
            s = 0.0
            sequence = rt.iterated(xs)
            for index in range(len(sequence)):
                row = sequence[index]
                s = s + row * w
            sequence_2 = rt.iterated(xs)
            for index_2 in range(len(sequence_2)):
                i = index_2
                row = sequence_2[index_2]
                s = s + row * i
            sequence_3 = rt.iterated(xs)
            sequence_4 = rt.iterated(w)
            for index_3 in range(min(len(sequence_3), len(sequence_4))):
                a = sequence_3[index_3]
                b = sequence_4[index_3]
                s = s + a * b
            return s
        """)


def test_lower_exits_dict_views_iterate_over_keys():
    assert exits("""
        def f(p, s):
            for k, v in p.items():
                s = s + v
            for v in p["sub"].values():
                s = s + v
            return s
        """) == text("""
        def f(p, s):
            sequence = rt.keys_of(p)
            for index in range(len(sequence)):
                key = sequence[index]
                k = key
                v = p[key]
                s = s + v
            mapping = p['sub']
            sequence_2 = rt.keys_of(mapping)
            for index_2 in range(len(sequence_2)):
                key_2 = sequence_2[index_2]
                v = mapping[key_2]
                s = s + v
            return s
        """)


def test_lower_exits_docstring_break_example():
    assert exits("""
        def f(x, n):
            for i in range(n):
                if x > 10.0:
                    break
                x = x * 2.0
            return x
        """) == text("""
        def f(x, n):
            stop = False
            steps = range(n)
            step = 0
            while step < len(steps) and not stop:
                i = steps[step]
                if x > 10.0:
                    stop = True
                if not stop:
                    x = x * 2.0
                step = step + 1
            return x
        """)


def test_lower_exits_early_return_is_guarded():
    out = exits("""
        def f(x):
            if x > 0:
                return x * 3.0
            return -x
        """)
    namespace = {}
    exec(compile(out, "<lower_exits>", "exec"), namespace)
    assert namespace["f"](2.0) == 6.0
    assert namespace["f"](-2.0) == 2.0


# ---- optimize/fold_constants.py


def is_bar(name):
    return name.endswith("_bar")


def test_fold_constants_docstring_example():
    tree = function_tree("""
        def f(x, n, pow_bar):
            x_bar = pow_bar * 2 * x ** (2 - 1)
            div_bar = 1.0 / n
            return x_bar, div_bar
        """)
    assert emit.to_source(fold_constants(tree, is_bar)) == text("""
        def f(x, n, pow_bar):
            x_bar = pow_bar * 2 * x
            div_bar = 1.0 / n
            return x_bar, div_bar
        """)


def test_fold_constants_identities():
    tree = function_tree("""
        def f(x, y_bar):
            a = y_bar * 1.0
            b = 1.0 * y_bar
            c = y_bar / 1.0
            d = x ** 1
            e = y_bar + 0
            g = 0 + y_bar
            h = y_bar - 0
            i = --x
            j = 2 * 3 + 1
            k = -(4 - 6)
            m = 2.0 ** 3
            return a
        """)
    assert emit.to_source(fold_constants(tree, is_bar)) == text("""
        def f(x, y_bar):
            a = y_bar
            b = y_bar
            c = y_bar
            d = x
            e = y_bar
            g = y_bar
            h = y_bar
            i = x
            j = 7
            k = 2
            m = 8.0
            return a
        """)


def test_fold_constants_keeps_type_changing_identities():
    # x may be an int: x * 1.0 and x / 1.0 turn it into a float, x + 0.0 too, x ** 1.0 too
    tree = function_tree("""
        def f(x, y_bar):
            a = x * 1.0
            b = 1.0 * x
            c = x / 1.0
            d = x + 0.0
            e = x ** 1.0
            g = 1 / 0
            return a
        """)
    assert emit.to_source(fold_constants(tree, is_bar)) == text("""
        def f(x, y_bar):
            a = x * 1.0
            b = 1.0 * x
            c = x / 1.0
            d = x + 0.0
            e = x ** 1.0
            g = 1 / 0
            return a
        """)


def test_fold_constants_no_operator_with_only_constant_operands():
    tree = function_tree("""
        def f(x_bar):
            a = x_bar * (2.0 * 3.0 - 5.0) + (1 - 1)
            return a
        """)
    out = fold_constants(tree, is_bar)
    assert emit.to_source(out) == text("""
        def f(x_bar):
            a = x_bar
            return a
        """)
    for node in gast.walk(out):
        if isinstance(node, gast.BinOp):
            assert not (isinstance(node.left, gast.Constant)
                        and isinstance(node.right, gast.Constant))


# ---- optimize/propagate_copies.py


def test_propagate_copies_docstring_example():
    tree = function_tree("""
        def f(n, add_bar):
            div_bar = 1.0
            sum_bar = div_bar / n
            dot_bar = add_bar
            return sum_bar, dot_bar
        """)
    # the docstring's right column still shows `dot_bar = add_bar`, but by its own rule
    # (dot_bar assigned once, add_bar never reassigned) that copy disappears too
    assert emit.to_source(propagate_copies(tree)) == text("""
        def f(n, add_bar):
            sum_bar = 1.0 / n
            return sum_bar, add_bar
        """)


def test_propagate_copies_keeps_copy_when_source_is_reassigned_later():
    tree = function_tree("""
        def f(x, y):
            a = x
            x = y * 2.0
            b = a + x
            return b
        """)
    assert emit.to_source(propagate_copies(tree)) == text("""
        def f(x, y):
            a = x
            x = y * 2.0
            b = a + x
            return b
        """)


def test_propagate_copies_drops_overwritten_copy_and_keeps_parameters():
    tree = function_tree("""
        def f(x, y):
            a = y
            a = a * 2.0
            x = y
            return a + x
        """)
    assert emit.to_source(propagate_copies(tree)) == text("""
        def f(x, y):
            a = y * 2.0
            x = y
            return a + x
        """)


def test_propagate_copies_inside_loops_but_not_into_them_when_reassigned():
    tree = function_tree("""
        def f(x, n):
            s = x
            for i in range(n):
                t = s
                s = t * x
            return s
        """)
    assert emit.to_source(propagate_copies(tree)) == text("""
        def f(x, n):
            s = x
            for i in range(n):
                s = s * x
            return s
        """)


# ---- optimize/remove_dead_code.py


def test_remove_dead_code():
    tree = function_tree("""
        def f(x, y):
            a = np.sin(x)
            b = a * 2.0
            unused = np.cos(x)
            print(x)
            np.exp(x)
            c = x.sum()
            x.fill(0.0)
            return b
        """)
    tree.body.insert(2, comment("grad of: dead block"))
    tree.body.insert(4, comment("grad of: live block"))
    assert emit.to_source(remove_dead_code(tree, resolve)) == text("""
        def f(x, y):
            a = np.sin(x)
            b = a * 2.0
            # grad of: live block
            print(x)
            x.fill(0.0)
            return b
        """)


def test_remove_dead_code_transitively_dead_chain_and_check_kept():
    tree = function_tree("""
        def f(x):
            a = x * 2.0
            b = a + 1.0
            c = np.tanh(b)
            rt.check_scalar_output(x, 'file.py:1:0')
            r = x * 3.0
            return r
        """)
    assert emit.to_source(remove_dead_code(tree, resolve)) == text("""
        def f(x):
            rt.check_scalar_output(x, 'file.py:1:0')
            r = x * 3.0
            return r
        """)


def test_remove_dead_code_inside_loops_drops_assignments_read_nowhere():
    tree = function_tree("""
        def f(x, n):
            s = x
            for i in range(n):
                dead = s * 2.0
                s = s * x
            return s
        """)
    assert emit.to_source(remove_dead_code(tree, resolve)) == text("""
        def f(x, n):
            s = x
            for i in range(n):
                s = s * x
            return s
        """)


def test_remove_dead_code_removes_a_dead_chain_of_any_length_inside_a_loop():
    # each link is read only by the next: a pass in rounds needs one round per link
    tree = function_tree("""
        def f(x, n):
            for i in range(n):
                a = x * 2.0
                b = a + 1.0
                c = b + 1.0
                d = c + 1.0
            return x
        """)
    assert emit.to_source(remove_dead_code(tree, resolve, confirm=True)) == text("""
        def f(x, n):
            for i in range(n):
                pass
            return x
        """)


def test_remove_dead_code_removes_a_dead_chain_through_branches():
    # the chain goes in and out of branches: g, then e, the d's, c, the b's, a
    tree = function_tree("""
        def f(x, n):
            a = x * 2.0
            if x > 0:
                b = a + 1.0
            else:
                b = a - 1.0
            c = b * 3.0
            if x > 1:
                d = c + 1.0
            else:
                d = c
            e = d * 2.0
            if x > 2:
                g = e + 1.0
            return x
        """)
    assert emit.to_source(remove_dead_code(tree, resolve, confirm=True)) == text("""
        def f(x, n):
            if x > 0:
                pass
            if x > 1:
                pass
            if x > 2:
                pass
            return x
        """)


def test_remove_dead_code_removes_a_dead_chain_through_a_loop_carry():
    # w, r, q go; then p, which only q read (the next time round), inside and before the
    # loop; s and t read each other, so they stay (a loop's carried names are read)
    tree = function_tree("""
        def f(x, n):
            p = x
            s = x
            for i in range(n):
                q = p * 2.0
                p = x + 1.0
                r = q + 1.0
                w = r * 2.0
                t = s * 2.0
                s = t
            return x
        """)
    assert emit.to_source(remove_dead_code(tree, resolve, confirm=True)) == text("""
        def f(x, n):
            s = x
            for i in range(n):
                t = s * 2.0
                s = t
            return x
        """)


def test_remove_dead_code_calls_to_unknown_functions_are_kept():
    tree = function_tree("""
        def f(x, callback):
            a = callback(x)
            return x
        """)
    assert emit.to_source(remove_dead_code(tree, resolve)) == text("""
        def f(x, callback):
            a = callback(x)
            return x
        """)


# ---- optimize/specialize_runtime_calls.py

FLOAT = shapes.FLOAT
MATRIX = shapes.Array((False, False))
VECTOR = shapes.Array((False,))


def specialize(source, params):
    tree = function_tree(source)
    env = shapes.infer(tree, params, resolve)
    return emit.to_source(specialize_runtime_calls(tree, env, resolve, FixedAliases()))


def test_infer_types_only_counting_loop_targets_as_ints_and_joins_loops():
    # a loop over range or reversed(range) counts; over anything else (reversed of a list
    # too) its target is unknown; a target of several loops covers all of them
    def resolve_loops(node):
        if isinstance(node, gast.Name) and node.id in ("range", "reversed"):
            return {"range": range, "reversed": reversed}[node.id]
        return resolve(node)

    env = shapes.infer(function_tree("""
        def f(xs, n):
            for i in range(n):
                a = i
            for j in reversed(range(n)):
                b = j
            for k in reversed(xs):
                c = k
            for m in range(n):
                d = m
            for m in xs:
                e = m
            steps = range(n)[::-1]
            for p in steps:
                g = p
            for q in reversed(steps):
                h = q
            mixed = range(n)
            mixed = xs
            for r in mixed:
                u = r
            return a
        """), {"xs": shapes.UNKNOWN, "n": shapes.Scalar("int")}, resolve_loops)
    assert env["i"] == env["a"] == env["j"] == env["b"] == shapes.Scalar("int")
    assert env["p"] == env["g"] == env["q"] == env["h"] == shapes.Scalar("int")
    assert env["k"] == env["c"] == shapes.UNKNOWN
    assert env["m"] == env["d"] == env["e"] == shapes.UNKNOWN
    assert env["r"] == env["u"] == shapes.UNKNOWN


def test_specialize_docstring_examples():
    out = specialize("""
        def f(a, b, mul_bar, add_bar, b1, dot_bar, h, W2):
            a_bar = rt.unbroadcast(mul_bar * b, a)
            b1_bar = rt.unbroadcast(add_bar, b1)
            h_bar = rt.dot_adjoint_left(dot_bar, h, W2)
            return a_bar, b1_bar, h_bar
        """, {"a": FLOAT, "b": FLOAT, "mul_bar": FLOAT, "add_bar": MATRIX, "b1": VECTOR,
              "dot_bar": MATRIX, "h": MATRIX, "W2": MATRIX})
    assert out == text("""
        def f(a, b, mul_bar, add_bar, b1, dot_bar, h, W2):
            a_bar = mul_bar * b
            b1_bar = add_bar.sum(axis=0)
            h_bar = np.dot(dot_bar, W2.T)
            return a_bar, b1_bar, h_bar
        """)


def test_specialize_more_rules():
    out = specialize("""
        def f(x, g, M, col, v, s):
            x_bar = rt.unbroadcast(g, x)
            col_bar = rt.unbroadcast(M, col)
            s_bar = rt.unbroadcast(M, s)
            z = rt.zeros_like(s)
            t = rt.match_type(g, x)
            u = rt.match_type(s, s)
            c = rt.check_scalar_output(s, 'f.py:1:0')
            W_bar = rt.dot_adjoint_right(M, M, M)
            v_bar = rt.dot_adjoint_left(M, v, M)
            return x_bar
        """, {"x": MATRIX, "g": MATRIX, "M": MATRIX, "col": shapes.Array((False, True)),
              "v": VECTOR, "s": FLOAT})
    assert out == text("""
        def f(x, g, M, col, v, s):
            x_bar = g
            col_bar = M.sum(axis=1, keepdims=True)
            s_bar = np.sum(M)
            z = 0.0
            t = g
            u = s
            c = s
            W_bar = np.dot(M.T, M)
            v_bar = np.dot(M, M)
            return x_bar
        """)


def test_keep_broadcasts_implicit_docstring_example():
    source = """
        def f(x, log_probs_bar, total_bar, exp, y, y_bar):
            exp_bar = np.broadcast_to(total_bar, x.shape)
            shifted_bar = log_probs_bar + exp_bar * exp
            kept = np.broadcast_to(total_bar, y.shape)
            z = kept * y_bar + np.sum(kept)
            return shifted_bar, z
        """
    params = {"x": MATRIX, "log_probs_bar": MATRIX, "total_bar": shapes.Array((False, True)),
              "exp": MATRIX, "y": MATRIX, "y_bar": MATRIX}
    tree = function_tree(source)
    env = shapes.infer(tree, params, resolve)
    out = emit.to_source(keep_broadcasts_implicit(tree, env, resolve, FixedAliases()))
    # exp has x's kind but not (as far as the pass can tell) x's shape: the view stays; the
    # second is also read whole by np.sum
    assert out == text("""
        def f(x, log_probs_bar, total_bar, exp, y, y_bar):
            exp_bar = np.broadcast_to(total_bar, x.shape)
            shifted_bar = log_probs_bar + exp_bar * exp
            kept = np.broadcast_to(total_bar, y.shape)
            z = kept * y_bar + np.sum(kept)
            return shifted_bar, z
        """)
    tree = function_tree(source.replace("exp_bar * exp", "exp_bar * x"))
    env = shapes.infer(tree, params, resolve)
    out = emit.to_source(keep_broadcasts_implicit(tree, env, resolve, FixedAliases()))
    assert "shifted_bar = log_probs_bar + total_bar * x" in out
    assert "z = kept * y_bar + np.sum(kept)" in out


def test_specialize_keeps_calls_decided_at_run_time():
    # unknown kinds, or a size-1 dimension not known statically: the runtime decides
    source = """
        def f(g, x, a, b):
            x_bar = rt.unbroadcast(g, x)
            z = rt.zeros_like(x)
            c = rt.check_scalar_output(x, 'f.py:1:0')
            a_bar = rt.unbroadcast(g, a)
            return x_bar
        """
    out = specialize(source, {"g": MATRIX, "x": shapes.UNKNOWN, "a": shapes.Array((None, False)),
                              "b": MATRIX})
    assert out == text(source)


# ---- transform/lower_accumulations.py


def lowering_namer(primals):
    namer = Namer(primals)
    for name in primals:
        namer.adjoint(name)  # registers x_bar as x's adjoint
    return namer


def test_lower_accumulations():
    tree = function_tree("""
        def f(x, y):
            z = x * y
            z_bar += 1.0
            x_bar += z_bar * y
            y_bar += x * z_bar
            del z_bar
            w_bar -= y_bar
            x_bar += 2.0 * x
            return x_bar, y_bar, w_bar
        """)
    out = lower_accumulations(tree, lowering_namer(["x", "y", "z", "w"]), FixedAliases())
    assert emit.to_source(out) == text("""
        def f(x, y):
            z = x * y
            z_bar = 1.0
            x_bar = z_bar * y
            y_bar = x * z_bar
            w_bar = -y_bar
            x_bar = x_bar + 2.0 * x
            return x_bar, y_bar, w_bar
        """)


def test_lower_accumulations_drops_reads_of_zero_adjoints():
    tree = function_tree("""
        def f(x, q):
            t = q_bar * 3.0
            x_bar += t
            u = x * 2.0
            x_bar += u
            x_bar -= q_bar
            return x_bar, q_bar
        """)
    out = lower_accumulations(tree, lowering_namer(["x", "q"]), FixedAliases())
    assert emit.to_source(out) == text("""
        def f(x, q):
            u = x * 2.0
            x_bar = u
            return x_bar, rt.zeros_like(q)
        """)


PRIMAL_SWEEP_THEN_ADJOINTS = """
    def f(x, c):
        for i in range(3):
            if c:
                y = x * 2.0
                pass
            else:
                pass
        del c
        z = x * y
        z_bar += 1.0
        x_bar += z_bar * y
        del z_bar
        return x_bar
    """


def test_lower_accumulations_only_tidies_the_primal_sweep():
    # the statements before the adjoints read and write none: told so (primal=), lowering
    # leaves them as its statement-by-statement walk would (no del, no pass beside others)
    walked = lower_accumulations(function_tree(PRIMAL_SWEEP_THEN_ADJOINTS),
                                 lowering_namer(["x", "z"]), FixedAliases())
    tree = function_tree(PRIMAL_SWEEP_THEN_ADJOINTS)
    told = lower_accumulations(tree, lowering_namer(["x", "z"]), FixedAliases(),
                               primal=tree.body[:3])
    assert emit.to_source(told) == emit.to_source(walked) == text("""
        def f(x, c):
            for i in range(3):
                if c:
                    y = x * 2.0
            z = x * y
            z_bar = 1.0
            x_bar = z_bar * y
            return x_bar
        """)


def test_lower_accumulations_del_resets_to_zero():
    tree = function_tree("""
        def f(x):
            x_bar += 1.0
            del x_bar
            x_bar += 2.0
            return x_bar
        """)
    out = lower_accumulations(tree, lowering_namer(["x"]), FixedAliases())
    assert emit.to_source(out) == text("""
        def f(x):
            x_bar = 1.0
            x_bar = 2.0
            return x_bar
        """)
    for node in gast.walk(out):
        assert not isinstance(node, (gast.AugAssign, gast.Delete))


# ---- transform/insert_discrete_checks.py


def test_insert_discrete_checks_follows_each_unresolved_method_a_varied_value_reaches():
    from srcad import pipeline
    from srcad.request import ReverseRequest

    function = S.unresolved_method
    front = pipeline._front(function, ReverseRequest(wrt=["x"]).of(function), None, None)
    # name.count reads no varied value: not checked; (x * 2.0).round_to is checked
    assert emit.to_source(front.tree) == text("""
        def unresolved_method(x, names):
            total = 0.0
            sequence = rt.iterated(names)
            length = len(sequence)
            for index in range(length):
                name = sequence[index]
                scale = name.count('_')
                mul = x * 2.0
                rounded = mul.round_to(3)
                rt.check_discrete(rounded, 'golden_subjects.py:91:18', 'round_to')
                total_2 = np.sum(x)
                mul_2 = scale * total_2
                total_3 = total + mul_2
                total = total_3
            return total
        """)
