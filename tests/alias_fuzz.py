"""Random programs that write through aliases and views, for tests/test_aliasing.py.

``program(seed)`` returns the source of ``def f(x, y)`` (x of shape (6,), y of
shape (3, 4)) whose statements make names share memory (copies, slices, rows,
columns, transposes, reshapes) and write through them (element and slice
assignment, ``+=``/``*=`` on elements and on whole arrays), in straight-line
code, branches and loops. Python runs it with its aliasing; srcad must give
the same value and derivatives, or raise a located AliasedWriteError.
``program(seed, rebind=True)`` also binds names anew inside branches and loops,
to a new array or a view of the same shape (so a name shares memory on some
paths only). ``python tests/alias_fuzz.py N [FIRST] [--rebind]`` runs N programs
and prints the counts.
"""

from __future__ import annotations

import random
import sys

# shape -> expressions making a view or a copy of a name of that shape, and their shapes
_DERIVED = {
    (6,): [("{m}", (6,)), ("{m}[1:]", (5,)), ("{m}[::2]", (3,)), ("{m}[2:5]", (3,)),
           ("{m}.reshape(2, 3)", (2, 3)), ("{m}.copy()", (6,)), ("{m} * 1.5", (6,)),
           ("{m}[::-1]", (6,))],
    (5,): [("{m}", (5,)), ("{m}[1:4]", (3,)), ("{m} + 0.5", (5,))],
    (3,): [("{m}", (3,)), ("{m}[1:]", (2,)), ("{m} * {m}", (3,))],
    (2,): [("{m}", (2,))],
    (3, 4): [("{m}", (3, 4)), ("{m}[1]", (4,)), ("{m}[:, 1]", (3,)), ("{m}.T", (4, 3)),
             ("{m}[1:]", (2, 4)), ("{m}[0, 1:]", (3,)), ("np.tanh({m})", (3, 4))],
    (4, 3): [("{m}", (4, 3)), ("{m}[2]", (3,)), ("{m}.T", (3, 4))],
    (2, 4): [("{m}", (2, 4)), ("{m}[0]", (4,)), ("{m}[:, ::2]", (2, 2))],
    (2, 3): [("{m}", (2, 3)), ("{m}[1]", (3,)), ("{m}.ravel()", (6,))],
    (2, 2): [("{m}", (2, 2)), ("{m}[1]", (2,))],
    (4,): [("{m}", (4,)), ("{m}[1:3]", (2,)), ("{m} - 0.25", (4,))],
}


class _Program:
    def __init__(self, rng: random.Random, rebind: bool = False):
        self.rng = rng
        self.rebind = rebind
        self.shapes = {"x": (6,), "y": (3, 4)}
        self.lines = []
        self.counter = 0

    def emit(self, text, depth):
        self.lines.append("    " * depth + text)

    def name_of_shape(self, shapes=None):
        names = [n for n, s in self.shapes.items() if shapes is None or s in shapes]
        return self.rng.choice(sorted(names)) if names else None

    def source_value(self):
        """A scalar read from some name."""
        name = self.name_of_shape()
        index = ", ".join(str(self.rng.randrange(n)) for n in self.shapes[name])
        return "%s[%s]" % (name, index)

    def derive(self, depth):
        base = self.name_of_shape(set(_DERIVED))
        expression, shape = self.rng.choice(_DERIVED[self.shapes[base]])
        self.counter += 1
        name = "v%d" % self.counter
        self.emit("%s = %s" % (name, expression.format(m=base)), depth)
        self.shapes[name] = shape

    def write(self, depth):
        name = self.name_of_shape()
        shape = self.shapes[name]
        value = "%s * %s" % (self.source_value(), self.rng.choice(["0.5", "1.25", "-0.75"]))
        choice = self.rng.randrange(5)
        index = ", ".join(str(self.rng.randrange(n)) for n in shape)
        if choice == 0:
            self.emit("%s[%s] = %s" % (name, index, value), depth)
        elif choice == 1:
            self.emit("%s[%s] += %s" % (name, index, value), depth)
        elif choice == 2:
            self.emit("%s += %s" % (name, value), depth)
        elif choice == 3:
            self.emit("%s *= %s" % (name, self.rng.choice(["0.9", "1.1"])), depth)
        else:
            first = ", ".join(":" if i else "1:" for i in range(len(shape)))
            self.emit("%s[%s] = %s" % (name, first, value), depth)

    def bind_anew(self, depth):
        """``name = expression`` of the name's shape: a new array or a view (of another name,
        or of itself)."""
        name = self.name_of_shape()
        shape = self.shapes[name]
        options = [(base, expression) for base in sorted(self.shapes)
                   for expression, made in _DERIVED.get(self.shapes[base], ())
                   if made == shape and not (base == name and expression == "{m}")]
        base, expression = self.rng.choice(options)
        self.emit("%s = %s" % (name, expression.format(m=base)), depth)

    def block(self, depth, size, allow_new=True):
        for _ in range(size):
            roll = self.rng.random()
            if roll < 0.35 and allow_new:
                self.derive(depth)
            elif roll < 0.8 or depth >= 3:
                # (the generator draws no more numbers without rebind: seeds keep their programs)
                if self.rebind and not allow_new and self.rng.random() < 0.35:
                    self.bind_anew(depth)
                else:
                    self.write(depth)
            elif roll < 0.9:
                self.emit("if %s > 0.5:" % self.source_value(), depth)
                self.block(depth + 1, self.rng.randint(1, 2), allow_new=False)
                self.emit("else:", depth)
                self.block(depth + 1, self.rng.randint(1, 2), allow_new=False)
            else:
                self.emit("for i in range(2):", depth)
                self.block(depth + 1, self.rng.randint(1, 2), allow_new=False)


def program(seed: int, rebind: bool = False) -> str:
    rng = random.Random(seed)
    built = _Program(rng, rebind)
    built.block(1, rng.randint(3, 8))
    read = sorted(built.shapes)
    rng.shuffle(read)
    terms = " + ".join("np.sum(np.sin(%s) * %s)" % (n, n) for n in read[:rng.randint(1, 4)])
    return "def f(x, y):\n%s\n    return %s\n" % ("\n".join(built.lines), terms)


def run(count, first_seed=0, verbose=False, rebind=False):
    """Counts of outcomes over ``count`` programs (a module file per program)."""
    import copy
    import importlib.util
    import os
    import tempfile

    import numpy as np

    import srcad

    counts = {}
    directory = tempfile.mkdtemp(prefix="srcad-alias-fuzz-")
    failures = []
    for seed in range(first_seed, first_seed + count):
        text = "import numpy as np\n\n\n" + program(seed, rebind)
        path = os.path.join(directory, "p%d.py" % seed)
        with open(path, "w") as stream:
            stream.write(text)
        spec = importlib.util.spec_from_file_location("p%d" % seed, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        outcome = check(module.f, np, copy, srcad, seed)
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome not in ("right", "rejected"):
            failures.append((seed, outcome, text))
            if verbose:
                print("seed %d: %s\n%s" % (seed, outcome, text))
    return counts, failures


def check(f, np, copy, srcad, seed) -> str:
    rng = np.random.default_rng(seed)
    args = [rng.uniform(0.2, 1.2, size=6), rng.uniform(0.2, 1.2, size=(3, 4))]
    try:
        expected = f(*copy.deepcopy(args))
    except (ValueError, IndexError, NameError):
        return "invalid"
    try:
        value, gradients = srcad.value_and_grad(f, wrt=(0, 1))(*copy.deepcopy(args))
    except srcad.SrcadError as error:
        return "rejected" if type(error).__name__ == "AliasedWriteError" else \
            "other error: %s" % str(error).splitlines()[0]
    except Exception as error:  # noqa: BLE001 - an internal exception is a bug to report
        return "crash: %r" % error
    if not np.isclose(value, expected, rtol=1e-9, atol=1e-12):
        return "wrong value"
    for index, gradient in enumerate(gradients):
        # values grow large in loops (y += ...): where the function bends sharply, central
        # differences with one step are off in the 4th digit; a smaller step settles it
        if not any(_close(gradient, _differences(f, args, index, step, copy, np), np)
                   for step in (1e-6, 1e-8)):
            return "wrong gradient"
    # forward mode against reverse mode (the dot-product test)
    tangents = [rng.normal(size=a.shape) for a in args]
    try:
        forward_value, derivative = srcad.jvp(f, tuple(copy.deepcopy(args)), tuple(tangents))
    except Exception as error:  # noqa: BLE001 - grad ran: forward mode must run too
        return "forward mode failed: %r" % error
    expected_derivative = sum(np.sum(g * t) for g, t in zip(gradients, tangents))
    if not np.isclose(forward_value, expected) or not np.isclose(
            derivative, expected_derivative, rtol=1e-7, atol=1e-9):
        return "wrong forward mode"
    # the generic code (any argument types) may reject more: any argument may be a list
    try:
        value, generic = srcad.value_and_grad(f, wrt=(0, 1), optimize=False)(
            *copy.deepcopy(args))
    except srcad.SrcadError as error:
        if type(error).__name__ != "AliasedWriteError":
            return "other error (generic code): %s" % str(error).splitlines()[0]
    except Exception as error:  # noqa: BLE001
        return "crash (generic code): %r" % error
    else:
        if not (np.isclose(value, expected) and all(
                np.allclose(a, b) for a, b in zip(generic, gradients))):
            return "wrong generic code"
    return "right"


def _differences(f, args, index, step, copy, np):
    numeric = np.zeros_like(args[index])
    for entry in np.ndindex(args[index].shape):
        values = []
        for sign in (1.0, -1.0):
            moved = copy.deepcopy(args)
            moved[index][entry] += sign * step
            values.append(f(*moved))
        numeric[entry] = (values[0] - values[1]) / (2 * step)
    return numeric


def _close(gradient, numeric, np) -> bool:
    scale = max(1.0, float(np.max(np.abs(numeric))))
    return bool(np.allclose(gradient, numeric, rtol=1e-5, atol=1e-6 * scale))


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a != "--rebind"]
    total = int(numbers[0]) if numbers else 200
    start = int(numbers[1]) if len(numbers) > 1 else 0
    outcome_counts, failed = run(total, start, verbose=True, rebind="--rebind" in sys.argv)
    print(outcome_counts)
