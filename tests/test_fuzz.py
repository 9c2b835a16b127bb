"""A fixed-seed batch of generated programs through every check of the differential fuzzer.

Each program (tests/fuzz/generate.py) uses only constructs README says are supported, so
every one must come out ``ok`` (or ``inconclusive``: a finite-difference reference that
cannot be trusted at that point, see tests/fuzz/check.py). A ``wrong`` result, a crash, a
rejection (a ``SrcadError`` for a supported construct) or an invalid program (a fuzzer bug)
fails the test, which prints each failing program as a standalone script. The long run is
``python tests/fuzz/run.py --n 10000 --seed S``; ``python tests/fuzz/reduce.py`` shrinks a
failing program.
"""

from __future__ import annotations

import multiprocessing
import os

from tests.fuzz.run import check_one, summarize

RUN_SEED = 20261201
# Each program costs about nine code generations (grad, optimize=False, vjp, jvp, hvp...):
# about 0.55 s of CPU for a small one on this machine (measured 2026-12-01: 58 s of CPU for
# 100 programs). 70 programs in two processes: about 40 s of CPU, about 20 s on two idle
# cores, about a minute at the load average of 5-7 this shared machine usually has. The long
# runs (tests/fuzz/run.py) are where the volume is.
PROGRAMS = int(os.environ.get("SRCAD_FUZZ_PROGRAMS", "70"))
JOBS = int(os.environ.get("SRCAD_FUZZ_JOBS", "2"))
SIZE = "small"
SHOWN = 5  # failing programs printed in full; the others are listed by seed


def test_generated_programs_pass_every_check(monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")  # one-off programs: no use caching their code
    work = [(RUN_SEED, index, SIZE) for index in range(PROGRAMS)]
    if JOBS > 1:
        with multiprocessing.get_context("fork").Pool(JOBS) as pool:
            results = pool.map(check_one, work, chunksize=4)
    else:
        results = list(map(check_one, work))
    outcomes = [outcome for _, outcome, _ in results]
    failures = [(index, outcome, script) for index, outcome, script in results
                if outcome.status not in ("ok", "inconclusive")]
    inconclusive = sum(o.status == "inconclusive" for o in outcomes)
    # a check that could rarely conclude would check nothing
    assert inconclusive <= 0.05 * PROGRAMS, summarize(outcomes)
    if failures:
        shown = "\n\n".join("program %d of run %d:\n%s" % (
            index, RUN_SEED, script.split("\n# ----------------")[0])
            for index, _, script in failures[:SHOWN])
        rest = ", ".join("%d (seed %d: %s)" % (index, outcome.seed, outcome.summary()[:80])
                         for index, outcome, _ in failures[SHOWN:])
        raise AssertionError("%s\n\n%s%s\n\nreproduce one with: python tests/fuzz/reduce.py "
                             "--run-seed %d --index I --size %s" % (
                                 summarize(outcomes), shown,
                                 "\n\nalso failing: " + rest if rest else "", RUN_SEED, SIZE))


# ------------------------------------------------------- the fuzzer's own machinery


def _program(source, arguments, wrt):
    from tests.fuzz.generate import Program

    return Program(seed=1, source="import numpy as np\n\n\n" + source, function_name="f",
                   arguments=[], argument_source="arguments = %s\n" % arguments, wrt=wrt)


def test_same_seed_gives_the_same_program_and_inputs():
    from tests.fuzz.generate import generate

    first, second = generate(12345), generate(12345)
    assert first.source == second.source
    assert first.argument_source == second.argument_source
    assert first.wrt == second.wrt
    assert generate(12346).source != first.source


def test_a_wrong_gradient_is_reported_wrong(monkeypatch):
    import srcad
    from tests.fuzz import check as checking

    program = _program("def f(x, p):\n    return np.sum(np.sin(x)) * p['b']\n",
                       "[np.array([0.1, 0.2, 0.3]), {'b': 1.5}]", (0,))
    assert checking.check(program, only={"gradient"}).status == "ok"
    real = srcad.value_and_grad

    def off_by_a_little(*args, **kwargs):
        derivative = real(*args, **kwargs)
        return lambda *a: (lambda v, g: (v, tuple(x + 1e-4 for x in g)))(*derivative(*a))

    monkeypatch.setattr(checking.srcad, "value_and_grad", off_by_a_little)
    outcome = checking.check(program, only={"gradient"})
    assert outcome.status == "wrong" and outcome.problems[0].check == "gradient"


def test_a_kink_between_the_finite_difference_points_is_inconclusive():
    from tests.fuzz.check import check

    # f jumps at x = 0.3; the point is 1e-7 away, inside the finite-difference step
    program = _program("def f(x):\n    if x > 0.3:\n        return x * x + 1.0\n"
                       "    return 2.0 * x\n", "[0.3 + 1e-7]", 0)
    outcome = check(program, only={"gradient"})
    assert outcome.status == "inconclusive" and outcome.kink


def test_a_kink_of_abs_between_the_finite_difference_points_is_inconclusive():
    from tests.fuzz.check import check

    program = _program("def f(x):\n    return np.sum(np.abs(x - 0.3))\n",
                       "[np.array([0.3 + 1e-7, 1.0])]", 0)
    outcome = check(program, only={"gradient"})
    assert outcome.status == "inconclusive" and outcome.kink


def test_the_reducer_keeps_the_failure_and_drops_the_rest(monkeypatch):
    import srcad
    from tests.fuzz import check as checking
    from tests.fuzz.reduce import reduce_program

    program = _program("def f(x, y):\n    a = np.sin(x)\n    b = np.cos(y) * 2.0\n"
                       "    c = a + b\n    return np.sum(c) + np.sum(x ** 2)\n",
                       "[np.array([0.1, 0.2]), np.array([0.3, 0.4])]", (0, 1))
    real = srcad.value_and_grad

    def wrong_for_cosines(f, **kwargs):  # a stand-in bug: gradients wrong when f has `cos`
        import inspect

        derivative = real(f, **kwargs)
        if "cos" not in inspect.getsource(f):
            return derivative
        return lambda *a: (lambda v, g: (v, tuple(x + 1e-3 for x in g)))(*derivative(*a))

    monkeypatch.setattr(checking.srcad, "value_and_grad", wrong_for_cosines)
    reduced, problem = reduce_program(program, budget_seconds=60)
    assert problem.status == "wrong"
    assert "cos" in reduced.source and "sin" not in reduced.source
    assert reduced.source.count("\n") < program.source.count("\n")


def test_a_kink_of_clip_between_the_finite_difference_points_is_inconclusive():
    from tests.fuzz.check import check

    program = _program("def f(x):\n    return np.sum(np.clip(x, -0.5, 0.3) ** 2)\n",
                       "[np.array([0.3 + 1e-7, 0.1])]", 0)
    outcome = check(program, only={"gradient"})
    assert outcome.status == "inconclusive" and outcome.kink


def test_a_nan_hvp_at_a_double_eigenvalue_is_the_stated_limitation_only_there():
    """README: second derivatives through eigenvectors are nan at a repeated eigenvalue. A
    program with the generator's form of a double eigenvalue (its mark, repeated_spectra)
    gets that as inconclusive; first derivatives and any other program are checked as ever."""
    from dataclasses import replace

    from tests.fuzz.check import check
    from tests.fuzz.library import REPEATED_SPECTRUM

    # t = (1, 0, 0): eigenvalues 2.3, 2, 2, the double one exactly
    matrix = REPEATED_SPECTRUM % (("np.array([1.0, 0.0, 0.0]) * x",) * 2)
    program = _program("def f(x):\n    return np.sum(np.linalg.svd(%s, full_matrices=False)[1])"
                       "\n" % matrix, "[1.0]", 0)
    assert check(program, only={"gradient", "dot"}).status == "ok"
    assert check(program, only={"hvp"}).status == "wrong"  # unmarked: nan is wrong
    marked = check(replace(program, repeated_spectra=True), only={"hvp"})
    assert marked.status == "inconclusive"
    assert marked.problems[0].signature == "repeated eigenvalues"


def test_every_library_form_gives_a_finite_value_of_its_shape():
    """Each NumPy/SciPy form of tests/fuzz/library.py, on variables of every shape: the
    expression it makes runs and has the shape the generator declared (a form with a wrong
    shape would make invalid programs, one outside its domain non-finite values)."""
    import math

    import numpy as np

    from tests.fuzz.generate import SHAPES, Arr, Context, Generator
    from tests.fuzz.library import HAS_SCIPY

    namespace = {"np": np, "math": math}
    if HAS_SCIPY:
        import scipy

        namespace["scipy"] = scipy
    rng = np.random.default_rng(7)
    scope = {}
    for index, shape in enumerate(SHAPES):
        scope["x%d" % index] = Arr(shape)
        namespace["x%d" % index] = rng.uniform(-1.5, 1.5, size=shape) if shape else 0.4
    generator = Generator(seed=3, exclude=("by-value",))  # (by-value calls need BY_VALUE)
    ctx = Context(scope=scope, owned=set(), readonly=set(), in_loop=False, depth=0,
                  result=Arr(()))
    checked = 0
    for shape in SHAPES:
        groups = [generator._elementwise_forms(ctx, shape, 2), {
            (): generator._scalar_forms, (2,): generator._pair_forms,
            (3,): generator._vector_forms, (2, 3): generator._wide_forms,
            (3, 2): generator._tall_forms}[shape](ctx, 2)]
        for form in groups[0] + groups[1]:
            for _ in range(3):  # forms draw their operands at random
                text = form()
                with np.errstate(all="raise"):
                    value = eval(text, namespace)  # noqa: S307 - the generator's own text
                assert np.shape(value) == shape and np.all(np.isfinite(value)), text
                checked += 1
    assert checked > 3 * 150


def test_views_made_by_numpy_functions_share_their_argument():
    from tests.fuzz.generate import alias_sources

    # np.ravel is a function here, not the .ravel method of a name `np` (run 2024 program
    # 1373 wrote into y1 after `v4, v5 = np.array_split(y1.reshape(6), 2)`)
    assert alias_sources("np.ravel(y1)") == {"y1"}
    assert alias_sources("np.split(np.ravel(y1), 2)[0]") == {"y1"}
    assert alias_sources("y1.ravel()") == {"y1"}
    assert alias_sources("np.cumsum(y1)") == set()


def test_read_only_views_are_never_owned():
    from tests.fuzz.generate import READ_ONLY, alias_sources

    # np.diag of a matrix is NumPy's read-only diagonal view (run 1313 program 1321 wrote
    # into one)
    assert alias_sources("np.diag(y1)") == {"y1", READ_ONLY}
    assert alias_sources("np.diag(y1 @ y2)") == {READ_ONLY}  # (of a new matrix: still read-only)
    assert READ_ONLY in alias_sources("np.diagonal(y1)")
    assert READ_ONLY in alias_sources("np.broadcast_to(s1, (2, 3))")
