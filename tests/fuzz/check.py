"""Run one generated program through every check and classify the outcome.

Checks, each comparing srcad with an independent reference:

``value``      ``srcad.value_and_grad``'s value (and ``jvp``'s and ``vjp``'s output) equal f's.
``gradient``   reverse gradient vs central finite differences, leaf by leaf, for every
               differentiated argument; the gradient has its argument's structure and types
               (dict -> dict with the same keys, list -> list, tuple -> tuple, Python
               float -> Python float, array -> array of the same shape).
``vjp``        ``srcad.vjp(f, ...)(1.0)`` equals the gradient for each differentiated argument.
``dot``        forward vs reverse: ``<jvp(t), 1> == sum over leaves of <gradient, t>``.
``hvp``        ``srcad.hvp`` vs central differences of srcad's gradient along the same v.
``unoptimized`` ``optimize=False`` gives the same value and gradient as the default.
``mutation``   no srcad call changes its arguments (compared with pristine copies).

Outcomes: ``ok``; ``wrong`` (a check disagrees); ``crash`` (an exception that is not a
``srcad.SrcadError``, or a time-out); ``rejected`` (a ``SrcadError``: the construct its
message names is recorded); ``inconclusive`` (a finite-difference comparison failed where
the reference itself cannot be trusted: a branch decision of f, or the side of a kink of
``max``/``min``/``abs``/``maximum``/``minimum``/``fmax``/``fmin``/``clip``, flips between
the points the difference uses, or two step sizes disagree); ``invalid`` (f itself fails or
gives a non-finite value: a generator bug).

A kink never excuses a disagreement between two srcad results (dot, vjp, unoptimized,
value): those have no finite difference in them and are always ``wrong``.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import itertools
import os
import re
import signal
import sys
import tempfile
import traceback
from dataclasses import dataclass, field

import numpy as np

import srcad

STEP = 1e-6  # central differences of f
STEP_CHECK = 1e-4  # the second step size, consulted when srcad and STEP disagree
HVP_STEP = 1e-5  # central differences of the gradient
HVP_STEP_CHECK = 1e-3
RTOL = 1e-5
ATOL = 1e-6
EXACT_RTOL = 1e-8  # two srcad computations of the same quantity
# generous: code generation for a medium program on a busy machine takes seconds
TIMEOUT_SECONDS = 120

# which group of checks a problem's ``check`` belongs to (the reducer reruns only that group)
GROUPS = {"value_and_grad": "gradient", "gradient": "gradient", "value": "gradient",
          "value_and_grad(optimize=False)": "unoptimized", "unoptimized": "unoptimized",
          "vjp": "vjp", "jvp": "dot", "dot": "dot", "hvp": "hvp", "grad": "hvp"}


def group_of(problem) -> str:
    if problem.check == "mutation":
        return GROUPS.get(problem.signature.replace("mutation in ", ""), "gradient")
    if problem.check == "value" and problem.signature == "jvp value":
        return "dot"
    if problem.check == "value" and problem.signature == "vjp value":
        return "vjp"
    return GROUPS.get(problem.check, "all")


STATUS_ORDER = ("wrong", "crash", "invalid", "rejected", "inconclusive", "ok")


@dataclass
class Problem:
    """One failed check."""

    status: str  # wrong, crash, rejected, inconclusive, invalid
    check: str
    detail: str
    signature: str = ""  # what groups problems of one cause (exception type and place...)


@dataclass
class Outcome:
    seed: int
    status: str
    problems: list = field(default_factory=list)
    kink: bool = False  # some branch decision flipped under a perturbation

    def summary(self) -> str:
        if not self.problems:
            return "%s" % self.status
        first = self.problems[0]
        return "%s [%s] %s" % (self.status, first.check, first.signature)


class Timeout(Exception):
    pass


# ------------------------------------------------------------------- loading


_directory = None
_counter = itertools.count()


def program_directory() -> str:
    global _directory
    if _directory is None:
        _directory = tempfile.mkdtemp(prefix="srcad-fuzz-")
    return _directory


def load_module(source: str, stem: str, extra_globals=None):
    """Import ``source`` from a real file (srcad reads source through inspect)."""
    name = "%s_%d_%d" % (stem, os.getpid(), next(_counter))
    path = os.path.join(program_directory(), name + ".py")
    with open(path, "w") as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    if extra_globals:
        module.__dict__.update(extra_globals)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_KINKED = {"max", "min", "abs", "maximum", "minimum", "fabs", "fmax", "fmin", "clip"}


class _RecordDecisions(ast.NodeTransformer):
    """Make the branch decisions and kinks of a program observable, without changing values.

    ``a < b < c`` -> ``_fuzz_compare(("Lt", "Lt"), a, b, c)``; a call of a function with a
    kink (``np.max``, ``np.abs``, ``np.maximum``, builtin ``max``...) -> ``_fuzz_kink(function,
    args...)``, which records which side of the kink each element is on.
    """

    def visit_Compare(self, node):
        self.generic_visit(node)
        ops = ast.Tuple(elts=[ast.Constant(type(op).__name__) for op in node.ops],
                        ctx=ast.Load())
        return ast.copy_location(
            ast.Call(func=ast.Name("_fuzz_compare", ast.Load()),
                     args=[ops, node.left] + list(node.comparators), keywords=[]), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        function = node.func
        name = function.attr if isinstance(function, ast.Attribute) else getattr(
            function, "id", None)
        if name not in _KINKED:
            return node
        return ast.copy_location(ast.Call(func=ast.Name("_fuzz_kink", ast.Load()),
                                          args=[function] + list(node.args),
                                          keywords=node.keywords), node)


_OPERATORS = {"Lt": lambda a, b: a < b, "LtE": lambda a, b: a <= b, "Gt": lambda a, b: a > b,
              "GtE": lambda a, b: a >= b, "Eq": lambda a, b: a == b,
              "NotEq": lambda a, b: a != b}


class DecisionTrace:
    """The branch decisions (and sides of kinks) of one run of the traced copy of f."""

    def __init__(self):
        self.decisions = []

    def compare(self, ops, *operands):
        # operands are evaluated eagerly (they are pure in generated programs); the result
        # follows Python's chained comparison; an array comparison (a mask) is recorded
        # element by element
        result = True
        for op, left, right in zip(ops, operands, operands[1:]):
            result = _OPERATORS[op](left, right)
            if np.ndim(result):
                self.decisions.append(tuple(np.ravel(result)))
                return result
            result = bool(result)
            self.decisions.append(result)
            if not result:
                return False
        return result

    def kink(self, function, *args, **kwargs):
        if function in (max, min) and len(args) == 1:
            args = (list(args[0]),)  # a generator: read once here, for the call and the sides
        result = function(*args, **kwargs)
        name = getattr(function, "__name__", "")
        if function in (max, min):
            items = args[0] if len(args) == 1 else args
            side = [item == result for item in items]
        elif name in ("max", "min", "amax", "amin"):
            axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
            pick = np.argmax if "max" in name else np.argmin
            side = pick(np.asarray(args[0]), axis=axis)
        elif name in ("maximum", "minimum", "fmax", "fmin"):
            side = np.asarray(args[0]) > np.asarray(args[1])
        elif name == "clip":  # below the low bound, above the high one (np.clip(x, lo, hi))
            bounds = list(args[1:]) + [kwargs.get(k) for k in ("a_min", "a_max", "min", "max")
                                      if k in kwargs]
            x = np.asarray(args[0])
            side = np.stack([x < bounds[0] if bounds[0] is not None else x != x,
                             x > bounds[1] if bounds[1] is not None else x != x])
        else:  # abs, fabs
            side = np.asarray(args[0]) > 0
        self.decisions.append(tuple(np.ravel(side).tolist()))
        return result


class Traced:
    """A copy of the program whose comparisons and kinked calls record their decisions."""

    def __init__(self, source: str):
        tree = _RecordDecisions().visit(ast.parse(source))
        self.trace = DecisionTrace()
        self.module = load_module(ast.unparse(ast.fix_missing_locations(tree)) + "\n",
                                  "fuzz_traced", {"_fuzz_compare": self._compare,
                                                  "_fuzz_kink": self._kink})

    def _compare(self, ops, *operands):
        return self.trace.compare(ops, *operands)

    def _kink(self, function, *args, **kwargs):
        return self.trace.kink(function, *args, **kwargs)

    def run(self, args):
        """f's value and its branch decisions at ``args``."""
        self.trace = DecisionTrace()
        value = self.module.f(*args)
        return value, tuple(self.trace.decisions)


# ------------------------------------------------------------------- pytrees


def leaves(value, path=()):
    """(path, leaf) pairs of a nest of dicts, lists and tuples of floats and arrays."""
    if isinstance(value, dict):
        return [pair for key in value for pair in leaves(value[key], path + (key,))]
    if isinstance(value, (list, tuple)):
        return [pair for index, item in enumerate(value)
                for pair in leaves(item, path + (index,))]
    return [(path, value)]


def replaced(value, path, new):
    """A copy of ``value`` with the leaf at ``path`` replaced (the rest shared)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        out = dict(value)
        out[head] = replaced(value[head], rest, new)
        return out
    items = list(value)
    items[head] = replaced(value[head], rest, new)
    if hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*items)
    return tuple(items) if isinstance(value, tuple) else items


def map_leaves(function, value):
    if isinstance(value, dict):
        return {key: map_leaves(function, item) for key, item in value.items()}
    if isinstance(value, list):
        return [map_leaves(function, item) for item in value]
    if isinstance(value, tuple):
        items = [map_leaves(function, item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return function(value)


def structure_error(gradient, argument, path="") -> str:
    """Why ``gradient`` does not have ``argument``'s structure and types ('' if it does)."""
    where = path or "the gradient"
    if isinstance(argument, dict):
        if type(gradient) is not dict:
            return "%s is %s, want dict" % (where, type(gradient).__name__)
        if list(gradient) != list(argument) and set(gradient) != set(argument):
            return "%s has keys %s, want %s" % (where, sorted(gradient), sorted(argument))
        return next((e for key in argument for e in [structure_error(
            gradient[key], argument[key], "%s[%r]" % (path, key))] if e), "")
    if isinstance(argument, (list, tuple)):
        if type(gradient) is not type(argument):
            return "%s is %s, want %s" % (where, type(gradient).__name__,
                                          type(argument).__name__)
        if len(gradient) != len(argument):
            return "%s has length %d, want %d" % (where, len(gradient), len(argument))
        return next((e for index in range(len(argument)) for e in [structure_error(
            gradient[index], argument[index], "%s[%d]" % (path, index))] if e), "")
    if isinstance(argument, float):
        if type(gradient) is not float:
            return "%s is %s, want float" % (where, type(gradient).__name__)
        return ""
    if isinstance(argument, np.ndarray):
        if not isinstance(gradient, np.ndarray):
            return "%s is %s, want ndarray" % (where, type(gradient).__name__)
        if gradient.shape != argument.shape:
            return "%s has shape %s, want %s" % (where, gradient.shape, argument.shape)
        return ""
    return ""


def same_values(a, b) -> bool:
    """Exact structural equality (for the mutation check)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(
            same_values(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(
            same_values(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and np.array_equal(a, b)
    return type(a) is type(b) and a == b


def close(actual, expected, rtol=RTOL, atol=ATOL) -> bool:
    try:
        actual = np.asarray(actual, dtype=float)
        expected = np.asarray(expected, dtype=float)
    except (TypeError, ValueError):  # srcad gave something that is not a number
        return False
    if actual.shape != expected.shape:
        return False
    if not np.all(np.isfinite(actual)):
        return False
    return bool(np.all(np.abs(actual - expected)
                       <= atol + rtol * np.maximum(np.abs(actual), np.abs(expected))))


def leaf_of(structure, path):
    for key in path:
        structure = structure[key]
    return structure


def perturbed_leaf(leaf, index, step):
    if isinstance(leaf, float):
        return leaf + step
    moved = np.array(leaf, dtype=float, copy=True)
    moved[index] += step
    return moved


def random_tangent(argument, rng):
    def one(leaf):
        if isinstance(leaf, np.ndarray):
            return rng.standard_normal(leaf.shape)
        return float(rng.standard_normal())
    return map_leaves(one, argument)


def along(argument, tangent, step):
    """``argument + step * tangent`` leaf by leaf, keeping Python floats Python floats."""
    pairs = dict(leaves(tangent))
    out = argument
    for path, leaf in leaves(argument):
        direction = pairs[path]
        new = leaf + step * direction
        out = replaced(out, path, float(new) if isinstance(leaf, float) else new)
    return out


def inner_product(a, b) -> float:
    """Sum over ``b``'s leaves of <a's leaf at the same path, b's leaf>."""
    return float(sum(np.sum(np.asarray(leaf_of(a, path), dtype=float)
                            * np.asarray(leaf, dtype=float)) for path, leaf in leaves(b)))


def readable_like(value, reference) -> bool:
    """Whether every leaf path of ``reference`` can be read from ``value`` (a gradient of the
    wrong container type may still hold the right numbers)."""
    try:
        for path, leaf in leaves(reference):
            if np.shape(leaf_of(value, path)) != np.shape(leaf):
                return False
    except Exception:  # noqa: BLE001 - whatever the wrong type does
        return False
    return True


def magnitude(a, reference) -> float:
    return float(sum(np.sum(np.abs(np.asarray(leaf_of(a, path), dtype=float)))
                     for path, _ in leaves(reference)))


# ------------------------------------------------------------------- checking


def signature_of_exception(error: BaseException) -> str:
    """Exception type, a normalized message and the innermost srcad frame: groups crashes."""
    frames = traceback.extract_tb(error.__traceback__)
    place = ""
    for frame in frames:
        if "/srcad/" in frame.filename or "srcad-" in os.path.basename(
                os.path.dirname(frame.filename)):
            place = "%s:%s" % (os.path.basename(frame.filename), frame.name)
    message = normalized_message(str(error).splitlines()[0] if str(error) else "")
    place = re.sub(r"_[0-9a-f]{12}\.py", ".py", place)  # generated files: name_<hash>.py
    return "%s: %s @ %s" % (type(error).__name__, message, place)


def normalized_message(message: str) -> str:
    message = re.sub(r"/\S+\.py:\d+:\d+: ", "", message)
    message = re.sub(r"'[A-Za-z_][A-Za-z0-9_]*'", "'NAME'", message)
    message = re.sub(r"`[^`]*`", lambda m: m.group(0) if len(m.group(0)) < 24 else "`...`",
                     message)
    message = re.sub(r"\d+", "N", message)
    return message[:160]


def rejected_construct(error) -> str:
    text = getattr(error, "message", None) or str(error).splitlines()[0]
    return "%s: %s" % (type(error).__name__, normalized_message(text))


class Checker:
    """Runs the checks on one program; collects problems instead of stopping at the first."""

    def __init__(self, program, only=None):
        self.program = program
        self.only = set(only) if only else None  # groups to run (see GROUPS); None: all
        self.problems = []
        self.kink = False
        self.rng = np.random.default_rng(program.seed)

    # ------------------------------------------------------------ plumbing

    def fresh_args(self):
        return self.program.make_arguments()

    def call_srcad(self, check, function, args):
        """Run ``function`` (a srcad call on ``args``); record an error or a mutation.

        Returns (ok, result)."""
        pristine = copy.deepcopy(args)
        try:
            with np.errstate(all="ignore"):
                result = function()
        except srcad.SrcadError as error:
            self.problems.append(Problem("rejected", check, str(error),
                                         rejected_construct(error)))
            return False, None
        except Timeout:
            raise
        except Exception as error:  # noqa: BLE001 - every other exception is a crash
            self.problems.append(Problem("crash", check, "".join(
                traceback.format_exception(type(error), error, error.__traceback__)),
                signature_of_exception(error)))
            return False, None
        if not same_values(args, pristine):
            self.problems.append(Problem("wrong", "mutation", "%s changed its arguments: "
                                         "before %r, after %r" % (check, pristine, args),
                                         "mutation in %s" % check))
        return True, result

    def wrong(self, check, detail, signature=None):
        self.problems.append(Problem("wrong", check, detail, signature or check))

    def value_at(self, args):
        value, trace = self.traced.run(args)
        return float(value), trace

    # ------------------------------------------------------------ the checks

    def run(self) -> Outcome:
        program = self.program
        try:
            self.module = load_module(program.source, "fuzz_program")
            self.traced = Traced(program.source)
            self.f = self.module.f
            args = self.fresh_args()
            with np.errstate(all="ignore"):
                value = self.f(*args)
                self.base_value, self.base_trace = self.value_at(self.fresh_args())
            if np.ndim(value) != 0 or not np.isfinite(value) or abs(float(value)) > 1e8:
                raise ValueError("f returned %r" % (value,))
            if not same_values(args, self.fresh_args()):
                raise ValueError("f mutates its arguments")
        except Exception as error:  # noqa: BLE001
            return Outcome(program.seed, "invalid", [Problem(
                "invalid", "program", traceback.format_exc(), type(error).__name__)])
        self.value = float(value)
        self.positions = program.wrt_positions
        single = isinstance(program.wrt, int)

        gradients = self.check_value_and_gradient(single)
        if gradients is not None:
            if self.wanted("unoptimized"):
                self.check_unoptimized(gradients, single)
            if self.wanted("vjp"):
                self.check_vjp(gradients)
            if self.wanted("dot"):
                self.check_dot(gradients)
            if self.wanted("hvp"):
                self.check_hvp()
        return self.outcome()

    def wanted(self, group) -> bool:
        return self.only is None or group in self.only

    def outcome(self) -> Outcome:
        statuses = {p.status for p in self.problems}
        status = next((s for s in STATUS_ORDER if s in statuses), "ok")
        return Outcome(self.program.seed, status, self.problems, self.kink)

    def check_value_and_gradient(self, single):
        args = self.fresh_args()
        ok, result = self.call_srcad(
            "value_and_grad", lambda: srcad.value_and_grad(self.f, wrt=self.program.wrt)(*args),
            args)
        if not ok:
            return None
        value, gradients = result
        if single:
            gradients = (gradients,)
        elif not isinstance(gradients, tuple) or len(gradients) != len(self.positions):
            self.wrong("gradient", "wrt=%r gave %r, want a tuple of %d gradients"
                       % (self.program.wrt, gradients, len(self.positions)), "not a tuple")
            return None
        if not close(value, self.value, rtol=1e-9, atol=1e-12):
            self.wrong("value", "value_and_grad value %r, f gives %r" % (value, self.value))
        if self.wanted("gradient"):
            for position, gradient in zip(self.positions, gradients):
                self.check_gradient(position, gradient)
        return gradients

    def finite_difference(self, position, path, index, step):
        """Central difference of f along one element of one leaf; and whether a decision flips."""
        args = self.fresh_args()
        leaf = leaf_of(args[position], path)
        values = []
        flipped = False
        for sign in (1.0, -1.0):
            moved = list(args)
            moved[position] = replaced(args[position], path,
                                       perturbed_leaf(leaf, index, sign * step))
            with np.errstate(all="ignore"):
                value, trace = self.value_at(moved)
            flipped = flipped or trace != self.base_trace
            values.append(value)
        return (values[0] - values[1]) / (2 * step), flipped

    def check_gradient(self, position, gradient):
        argument = self.fresh_args()[position]
        problem = structure_error(gradient, argument)
        if problem:
            self.wrong("gradient", "gradient for argument %d: %s (got %r)"
                       % (position, problem, gradient), "structure: " + re.sub(
                           r"\[[^\]]*\]", "[.]", problem))
            if not readable_like(gradient, argument):
                return
        mismatches = []
        for path, leaf in leaves(argument):
            got = leaf_of(gradient, path)
            for index in np.ndindex(np.shape(leaf)):
                value = float(np.asarray(got, dtype=float)[index])
                estimate, flipped = self.finite_difference(position, path, index, STEP)
                if close(value, estimate):
                    continue
                second, flipped_second = self.finite_difference(position, path, index,
                                                                STEP_CHECK)
                if close(value, second):
                    continue
                if flipped or flipped_second or not close(estimate, second, rtol=1e-4,
                                                          atol=1e-5):
                    self.kink = self.kink or flipped or flipped_second
                    self.problems.append(Problem(
                        "inconclusive", "gradient", "argument %d %s%s: srcad %r, finite "
                        "differences %r (step %g) and %r (step %g)%s" % (
                            position, path, index, value, estimate, STEP, second, STEP_CHECK,
                            ", a branch decision flips" if flipped or flipped_second else ""),
                        "kink"))
                    continue
                mismatches.append((path, index, value, estimate))
        if mismatches:
            lines = ["argument %d, leaf %s%s: srcad %r, finite differences %r"
                     % (position, list(path), index, value, estimate)
                     for path, index, value, estimate in mismatches]
            self.wrong("gradient", "\n".join(lines))

    def check_unoptimized(self, gradients, single):
        args = self.fresh_args()
        ok, result = self.call_srcad(
            "value_and_grad(optimize=False)",
            lambda: srcad.value_and_grad(self.f, wrt=self.program.wrt, optimize=False)(*args),
            args)
        if not ok:
            return
        value, plain = result
        if single:
            plain = (plain,)
        if not close(value, self.value, rtol=1e-9, atol=1e-12):
            self.wrong("unoptimized", "optimize=False value %r, f gives %r"
                       % (value, self.value), "unoptimized value")
        for position, default, other in zip(self.positions, gradients, plain):
            problem = structure_error(other, self.fresh_args()[position])
            if problem:
                self.wrong("unoptimized", "optimize=False gradient for argument %d: %s"
                           % (position, problem), "unoptimized structure")
                continue
            if not readable_like(default, self.fresh_args()[position]):
                continue
            for path, _ in leaves(self.fresh_args()[position]):
                leaf = leaf_of(default, path)
                if not close(leaf_of(other, path), leaf, rtol=EXACT_RTOL, atol=1e-10):
                    self.wrong("unoptimized", "argument %d leaf %s: default %r, "
                               "optimize=False %r" % (position, list(path), leaf,
                                                      leaf_of(other, path)),
                               "unoptimized gradient")
                    break

    def check_vjp(self, gradients):
        args = self.fresh_args()

        def run():
            output, vjp_fn = srcad.vjp(self.f, *args)
            return output, vjp_fn(1.0)
        ok, result = self.call_srcad("vjp", run, args)
        if not ok:
            return
        output, cotangents = result
        if not close(output, self.value, rtol=1e-9, atol=1e-12):
            self.wrong("vjp", "vjp output %r, f gives %r" % (output, self.value), "vjp value")
        if not isinstance(cotangents, tuple) or len(cotangents) != len(args):
            self.wrong("vjp", "vjp_fn gave %r, want one cotangent per argument"
                       % (cotangents,), "vjp arity")
            return
        for position, gradient in zip(self.positions, gradients):
            cotangent = cotangents[position]
            problem = structure_error(cotangent, self.fresh_args()[position])
            if problem:
                self.wrong("vjp", "vjp cotangent for argument %d: %s" % (position, problem),
                           "vjp structure")
                continue
            if not readable_like(gradient, self.fresh_args()[position]):
                continue
            for path, _ in leaves(self.fresh_args()[position]):
                leaf = leaf_of(gradient, path)
                if not close(leaf_of(cotangent, path), leaf, rtol=EXACT_RTOL, atol=1e-10):
                    self.wrong("vjp", "argument %d leaf %s: grad %r, vjp %r" % (
                        position, list(path), leaf, leaf_of(cotangent, path)), "vjp gradient")
                    break

    def check_dot(self, gradients):
        args = self.fresh_args()
        tangents = [None] * len(args)
        for position in self.positions:
            tangents[position] = random_tangent(args[position], self.rng)
        ok, result = self.call_srcad("jvp", lambda: srcad.jvp(self.f, args, tangents), args)
        if not ok:
            return
        output, output_tangent = raw_tangent = result
        if not close(output, self.value, rtol=1e-9, atol=1e-12):
            self.wrong("value", "jvp output %r, f gives %r" % (output, self.value), "jvp value")
        try:
            output_tangent = float(output_tangent)
        except (TypeError, ValueError):
            output_tangent = None
        if output_tangent is None:
            self.wrong("dot", "jvp tangent %r is not a scalar" % (raw_tangent[1],),
                       "jvp tangent shape")
            return
        if not all(readable_like(g, args[p]) for p, g in zip(self.positions, gradients)):
            return  # the gradient check reported it
        reverse = sum(inner_product(g, tangents[p]) for p, g in zip(self.positions, gradients))
        scale = sum(magnitude(g, args[p]) * max(magnitude(tangents[p], args[p]), 1.0)
                    for p, g in zip(self.positions, gradients)) + 1.0
        if not np.isfinite(output_tangent) or abs(float(output_tangent) - reverse) > \
                1e-8 * scale:
            self.wrong("dot", "<jvp(t), 1> = %r, <grad, t> = %r (t = %r)"
                       % (float(output_tangent), reverse, tangents))

    def check_hvp(self):
        args = self.fresh_args()
        for position in self.positions[:2]:
            argument = args[position]
            v = random_tangent(argument, self.rng)
            ok, product = self.call_srcad(
                "hvp", lambda p=position, v=v: srcad.hvp(self.f, wrt=p)(*args, v), args)
            if not ok:
                continue
            problem = structure_error(product, argument)
            if problem:
                self.wrong("hvp", "hvp for argument %d: %s (got %r)" % (position, problem,
                                                                        product),
                           "hvp structure: " + re.sub(r"\[[^\]]*\]", "[.]", problem))
                if not readable_like(product, argument):
                    continue
            gradient = srcad.grad(self.f, wrt=position)
            product = [np.asarray(leaf_of(product, path), dtype=float)
                       for path, _ in leaves(argument)]
            if self.program.repeated_spectra and not all(np.all(np.isfinite(leaf))
                                                         for leaf in product):
                # second derivatives through eigenvectors at a double eigenvalue: README's
                # limitation (library.REPEATED_SPECTRUM); a finite hvp is checked as any
                self.problems.append(Problem(
                    "inconclusive", "hvp", "argument %d: hvp %r at a double eigenvalue"
                    % (position, product), "repeated eigenvalues"))
                continue
            estimates = []
            flips = []
            for step in (HVP_STEP, HVP_STEP_CHECK):
                estimate, flipped = self.gradient_difference(gradient, position, v, step)
                if estimate is None:
                    break
                estimates.append(estimate)
                flips.append(flipped)
                if all(close(a, b, rtol=1e-4, atol=1e-5) for a, b in zip(product, estimate)):
                    break
            else:
                detail = ("argument %d, v = %r: hvp %r, differences of srcad's gradient %r "
                          "(step %g), %r (step %g)" % (position, v, product, estimates[0],
                                                       HVP_STEP, estimates[1], HVP_STEP_CHECK))
                consistent = all(close(a, b, rtol=1e-3, atol=1e-4)
                                 for a, b in zip(*estimates))
                if any(flips) or not consistent:
                    self.kink = self.kink or any(flips)
                    self.problems.append(Problem("inconclusive", "hvp", detail, "kink"))
                else:
                    self.wrong("hvp", detail)

    def gradient_difference(self, gradient, position, v, step):
        """(grad(x + step v) - grad(x - step v)) / 2 step by srcad, one array per leaf of the
        argument; and whether a branch decision of f flips at those points."""
        results = []
        flipped = False
        for sign in (1.0, -1.0):
            args = self.fresh_args()
            moved = list(args)
            moved[position] = along(args[position], v, sign * step)
            ok, result = self.call_srcad("grad", lambda moved=moved: gradient(*moved), moved)
            if not ok or not readable_like(result, args[position]):
                return None, False
            with np.errstate(all="ignore"):
                flipped = flipped or self.value_at(moved)[1] != self.base_trace
            results.append([np.asarray(leaf_of(result, path), dtype=float)
                            for path, _ in leaves(args[position])])
        high, low = results
        return [(a - b) / (2 * step) for a, b in zip(high, low)], flipped


def _on_alarm(signum, frame):
    raise Timeout()


def check(program, timeout=TIMEOUT_SECONDS, only=None) -> Outcome:
    """Every check on ``program`` (or the groups in ``only``: see GROUPS); a run longer than
    ``timeout`` seconds is a crash (a hang)."""
    checker = Checker(program, only)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(timeout)
    try:
        return checker.run()
    except Timeout:
        checker.problems.append(Problem("crash", "timeout", "no result after %d s" % timeout,
                                        "timeout"))
        return checker.outcome()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
