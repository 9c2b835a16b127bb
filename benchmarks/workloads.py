"""Benchmark workloads, written as plain NumPy/Python functions.

Copied unchanged from the project's shared benchmark suite (shared/bench/workloads.py),
which also times PyTorch, autograd, JAX and tangent on the same source; keep the two
in sync so numbers stay comparable.

Each workload is (name, function, make_args, wrt) where make_args(np) builds
float64 inputs and wrt lists the argument positions to differentiate.
The same source is given to every AD system so the comparison is like for like.
"""
import numpy as np


def scalar_loop(r, x0):
    # logistic-map recurrence: 5 scalar ops per step, 1000 steps
    x = x0
    s = 0.0
    for i in range(1000):
        x = r * x * (1.0 - x)
        s = s + x * x
    return s


def mlp(W1, b1, W2, b2, x, y):
    h = np.tanh(np.dot(x, W1) + b1)
    out = np.dot(h, W2) + b2
    d = out - y
    return np.sum(d * d) / y.shape[0]


def rnn(Wx, Wh, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(np.dot(xs[t], Wx) + np.dot(h, Wh) + b)
    return np.sum(h * h)


def lotka_rk4(a, b, c, d, u0):
    # explicit RK4 on a 2-species model, scalars only, 400 steps
    x = u0[0]
    y = u0[1]
    dt = 0.01
    for i in range(400):
        k1x = a * x - b * x * y
        k1y = d * x * y - c * y
        x2 = x + 0.5 * dt * k1x
        y2 = y + 0.5 * dt * k1y
        k2x = a * x2 - b * x2 * y2
        k2y = d * x2 * y2 - c * y2
        x3 = x + 0.5 * dt * k2x
        y3 = y + 0.5 * dt * k2y
        k3x = a * x3 - b * x3 * y3
        k3y = d * x3 * y3 - c * y3
        x4 = x + dt * k3x
        y4 = y + dt * k3y
        k4x = a * x4 - b * x4 * y4
        k4y = d * x4 * y4 - c * y4
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    return x + y


def make_scalar_loop(np_):
    return (3.7, 0.3)


def make_mlp(np_):
    rng = np.random.RandomState(0)
    return (np_.asarray(rng.randn(64, 256) * 0.1), np_.asarray(rng.randn(256) * 0.1),
            np_.asarray(rng.randn(256, 10) * 0.1), np_.asarray(rng.randn(10) * 0.1),
            np_.asarray(rng.randn(256, 64)), np_.asarray(rng.randn(256, 10)))


def make_rnn(np_):
    rng = np.random.RandomState(1)
    return (np_.asarray(rng.randn(16, 32) * 0.2), np_.asarray(rng.randn(32, 32) * 0.2),
            np_.asarray(rng.randn(32) * 0.1), np_.asarray(rng.randn(50, 8, 16)),
            np_.asarray(np.zeros((8, 32))))


def make_lotka(np_):
    return (1.1, 0.4, 0.4, 0.1, np_.asarray(np.array([10.0, 5.0])))


WORKLOADS = [
    ("scalar_loop", scalar_loop, make_scalar_loop, (0, 1)),
    ("mlp", mlp, make_mlp, (0, 1, 2, 3)),
    ("rnn", rnn, make_rnn, (0, 1, 2)),
    ("lotka_rk4", lotka_rk4, make_lotka, (0, 1, 2, 3)),
]
