"""Standalone scripts for failing programs: the program, its inputs, what srcad gave, what it
should give, and code that shows it again (``python FILE.py`` needs only NumPy and srcad)."""

from __future__ import annotations

import textwrap

_RUNNER = '''

# ---------------------------------------------------------------- shows the failure again
import copy
import traceback

import srcad


def _leaves(value, path=()):
    if isinstance(value, dict):
        return [p for k in value for p in _leaves(value[k], path + (k,))]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _leaves(v, path + (i,))]
    return [(path, value)]


def _replaced(value, path, new):
    if not path:
        return new
    if isinstance(value, dict):
        out = dict(value)
    else:
        out = list(value)
    out[path[0]] = _replaced(value[path[0]], path[1:], new)
    if hasattr(value, "_fields"):
        return type(value)(*out)
    return tuple(out) if isinstance(value, tuple) else out


def finite_differences(position, step=1e-6):
    """Central differences of f for every element of every leaf of argument ``position``."""
    out = {}
    for path, leaf in _leaves(arguments[position]):
        values = []
        for index in np.ndindex(np.shape(leaf)):
            sides = []
            for sign in (1.0, -1.0):
                if isinstance(leaf, float):
                    moved = leaf + sign * step
                else:
                    moved = np.array(leaf, dtype=float)
                    moved[index] += sign * step
                args = copy.deepcopy(arguments)
                args[position] = _replaced(args[position], path, moved)
                sides.append(f(*args))
            values.append((sides[0] - sides[1]) / (2 * step))
        out[path] = values[0] if isinstance(leaf, float) else np.array(values).reshape(
            np.shape(leaf))
    return out


def _show(label, thunk):
    try:
        print(label, thunk())
    except Exception:
        print(label, "raised:")
        traceback.print_exc()


positions = [wrt] if isinstance(wrt, int) else list(wrt)
print("f:", f(*copy.deepcopy(arguments)))
_show("srcad.value_and_grad:",
      lambda: srcad.value_and_grad(f, wrt=wrt)(*copy.deepcopy(arguments)))
for position in positions:
    print("finite differences for argument %d:" % position, finite_differences(position))
if CHECK == "unoptimized":
    _show("optimize=False:", lambda: srcad.value_and_grad(f, wrt=wrt, optimize=False)(
        *copy.deepcopy(arguments)))
if CHECK in ("vjp", "value"):
    _show("vjp(1.0):", lambda: srcad.vjp(f, *copy.deepcopy(arguments))[1](1.0))
if CHECK in ("jvp", "dot", "value"):
    tangents = [None] * len(arguments)
    for position in positions:
        tangents[position] = copy.deepcopy(arguments[position])
    _show("jvp (tangent = the arguments themselves):",
          lambda: srcad.jvp(f, copy.deepcopy(arguments), tangents))
if CHECK in ("hvp", "grad"):
    for position in positions[:2]:
        v = copy.deepcopy(arguments[position])
        _show("hvp for argument %d, v = the argument itself:" % position,
              lambda: srcad.hvp(f, wrt=position)(*copy.deepcopy(arguments), v))
'''


def standalone_script(program, outcome, size="medium") -> str:
    """The text of a script reproducing ``outcome`` for ``program``."""
    header = ["srcad fuzz program: seed %d (size %s): %s"
              % (program.seed, size, outcome.status)]
    for problem in outcome.problems:
        header.append("")
        header.append("%s in check %r: %s" % (problem.status, problem.check,
                                             problem.signature))
        lines = problem.detail.splitlines()
        lines = lines[-25:] if "Traceback" in problem.detail else lines[:40]
        header += [textwrap.shorten(line, 400, placeholder=" ...") if len(line) > 400
                   else line for line in lines]
    check = outcome.problems[0].check if outcome.problems else "gradient"
    comment = "\n".join(("# " + line).rstrip() for line in header)
    return "%s\n%s\n%swrt = %r\nCHECK = %r\n%s" % (
        comment, program.source, program.argument_source, program.wrt, check, _RUNNER)
