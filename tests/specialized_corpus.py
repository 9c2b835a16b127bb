"""Which generic runtime helpers the specialized code of the template corpus still calls.

For every case of tests/template_combos.py (tests/scipy_combos.py included when SciPy
imports) and every shape combination it lists, two programs are generated for the concrete
example arguments (so every argument's kind is known): the gradient of the case's scalar
function ``S = sum(sin(f(*args)) * c)`` with respect to all its differentiable operands,
and the jvp of ``f`` itself. ``census()`` lists, per case, the *generic* helpers (``GENERIC``)
left in them. ``python -m tests.specialized_corpus`` prints the counts.

tests/test_specialized_corpus.py fails when a case calls a generic helper its entry in
``ALLOWED`` does not list, and when an entry lists one no longer called (so the list only
shrinks).
"""

from __future__ import annotations

import collections
import functools
import inspect
import re
import warnings

import srcad
from srcad import modes
from srcad.request import optimizations
from tests.template_combos import CASES, shape_text

# Generic: a helper that decides at run time, from shapes or types the argument kinds
# already tell, what to do; specialize_runtime_calls replaces it by the NumPy it reduces to
# when the kinds are known. Each with why it is generic:
GENERIC = {
    # sums an adjoint back to an operand's shape: which axes, from the two shapes
    "unbroadcast": "sums over the axes the two shapes' difference names",
    # the adjoint of a reduction: which axes to put back, from x's rank
    "expand_reduced": "expands the reduced axes, from x's rank",
    "reduced_size": "multiplies the reduced sizes, from x's rank",
    # np.dot / np.matmul adjoints: the formula depends on the operands' ranks only
    "dot_adjoint_left": "picks the formula from the ranks",
    "dot_adjoint_right": "picks the formula from the ranks",
    "matmul_adjoint_left": "picks the formula from the ranks",
    "matmul_adjoint_right": "picks the formula from the ranks",
    # a gradient's type: a Python float for a Python scalar argument
    "match_type": "converts to float from the argument's type",
    # a zero adjoint: 0.0 for a scalar
    "zeros_like": "chooses 0.0 or zeros from the type",
    # grad's output check and seed: a scalar or an array of one element
    "check_scalar_output": "checks the output's size",
    "unit_seed": "chooses 1.0 or ones from the output's rank",
    # a jvp's output tangent: broadcast to the output's shape, a float for a float
    "match_tangent": "broadcasts or converts from the output's shape and type",
    # an optional weight: values * weights unless weights is None
    "weighted": "tests the weights for None",
    # a reduction's result with its reduced axes back as size 1: which axes, from the rank
    "reduced_kept": "expands the reduced axes, from the operands' rank",
}
# Not generic (what they do is the derivative itself, or depends on something no kind
# tells): rt.unindex and rt.add_at (scatter an adjoint into zeros), rt.extremum_adjoint,
# rt.norm_adjoint, rt.solve_columns and the other adjoint/tangent helpers; rt.owned and
# rt.owned_tuple (copy a read-only or repeated array: writeability is no kind);
# rt.if_inexact (the dtype is no kind); rt.power_derivative with a variable exponent and
# rt.times_log_of_base (where the adjoint is 0, from values); rt.matrix_transpose and
# rt.array_of (one NumPy call each); the container helpers (rt.Parts, rt.merged...).

_CALL = re.compile(r"\brt\.(%s)\(" % "|".join(GENERIC))


def _programs(case_index):
    """(label, source) of the specialized programs of one case, one pair per combination."""
    from tests.test_template_combos import _wrt, inputs, scalarized

    case = CASES[case_index]
    wrt = _wrt(case.differentiable)
    for combo_index, combo in enumerate(case.combos):
        args, cotangent = inputs(case_index, combo_index)
        label = ",".join(shape_text(s) for s in combo)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not case.forward_only:
                S = scalarized(case.f, case.wrap)
                yield "grad[%s]" % label, srcad.grad(S, wrt=wrt).source_for(*args, cotangent)
            # the code srcad.jvp runs (cached: test_template_combos generated it already)
            names = [list(inspect.signature(case.f).parameters)[p] for p in case.differentiable]
            forward = modes._forward(case.f, names, optimizations(True))
            tangents = tuple(args[p] for p in case.differentiable)  # the primals' kinds
            yield "jvp[%s]" % label, forward.for_values(tuple(args) + tangents).source


@functools.lru_cache(maxsize=None)
def census():
    """{case name: {program label: Counter of the generic helpers it calls}}, and the count of
    programs, for every case."""
    found, programs = {}, 0
    for case_index, case in enumerate(CASES):
        left = {}
        for label, source in _programs(case_index):
            programs += 1
            helpers = collections.Counter(_CALL.findall(source))
            if helpers:
                left[label] = helpers
        found[case.name] = left
    return found, programs


def main():
    found, programs = census()
    generic = sum(len(left) for left in found.values())
    print("%d cases, %d programs; %d programs (%d cases) still call a generic helper"
          % (len(found), programs, generic, sum(1 for left in found.values() if left)))
    by_helper = collections.Counter()
    for left in found.values():
        for helpers in left.values():
            by_helper.update(helpers.keys())
    for helper, count in by_helper.most_common():
        print("  %-22s in %4d programs" % (helper, count))
    print("by case (primitive):")
    for name, left in sorted(found.items()):
        if left:
            helpers = collections.Counter()
            for counter in left.values():
                helpers.update(counter)
            print("  %-36s %d programs: %s" % (name, len(left), dict(helpers)))


if __name__ == "__main__":
    main()
