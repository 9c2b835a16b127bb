"""srcad quickstart: differentiate two small functions and read the generated code.

Run it with ``python examples/quickstart.py``. It prints, for each example,
the function's source, the gradient source srcad generated for the example's
argument kinds (the code that actually runs), the gradient values, and the
largest difference from central finite differences. It exits non-zero if a
gradient is off.
"""

import inspect
import math
import sys

import numpy as np

import srcad

G = 9.81  # m/s^2


def pendulum_energy(theta, omega, length):
    """Total energy (per unit mass) of a pendulum at angle theta, angular speed omega."""
    kinetic = 0.5 * (length * omega) ** 2
    potential = G * length * (1.0 - math.cos(theta))
    return kinetic + potential


def mlp_loss(W1, b1, W2, x, y):
    """Mean squared error of a one-hidden-layer tanh network."""
    h = np.tanh(np.dot(x, W1) + b1)
    prediction = np.dot(h, W2)
    error = prediction - y
    return np.mean(error * error)


def finite_differences(function, args, index, eps=1e-6):
    """Central differences of ``function`` with respect to ``args[index]``."""
    base = np.array(args[index], dtype=float)
    gradient = np.zeros_like(base)
    for position in np.ndindex(base.shape):
        values = []
        for sign in (1.0, -1.0):
            moved = base.copy()
            moved[position] += sign * eps
            shifted = list(args)
            shifted[index] = float(moved) if base.ndim == 0 else moved
            values.append(function(*shifted))
        gradient[position] = (values[0] - values[1]) / (2 * eps)
    return gradient


def show(function, wrt, args):
    """Print source, generated gradient source and gradients; return the max FD error."""
    print("=" * 72)
    print(inspect.getsource(function))
    gradient_function = srcad.grad(function, wrt=wrt)
    print("--- generated gradient, specialized for these argument kinds ---")
    print(gradient_function.source_for(*args))
    gradients = gradient_function(*args)
    parameters = list(inspect.signature(function).parameters)
    worst = 0.0
    for position, gradient in zip(wrt, gradients):
        numeric = finite_differences(function, args, position)
        error = float(np.max(np.abs(np.asarray(gradient) - numeric)))
        worst = max(worst, error)
        print("d/d%s = %s" % (parameters[position], np.array2string(
            np.asarray(gradient), precision=5, threshold=8)))
    print("max |srcad - finite differences| = %.2e" % worst)
    return worst


def main() -> int:
    rng = np.random.default_rng(0)
    errors = [
        show(pendulum_energy, (0, 1, 2), (0.3, 2.0, 1.5)),
        show(mlp_loss, (0, 1, 2), (rng.normal(size=(3, 4)), rng.normal(size=4),
                                   rng.normal(size=4), rng.normal(size=(5, 3)),
                                   rng.normal(size=5))),
    ]
    worst = max(errors)
    print("=" * 72)
    print("largest error over all gradients: %.2e" % worst)
    if worst > 1e-5:
        print("FAILED: a gradient differs from finite differences", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
