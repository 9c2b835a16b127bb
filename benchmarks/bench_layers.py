"""Classic layers: srcad's gradient vs a hand-written forward + backward pass.

Usage (from the repository root, with srcad installed):

    python benchmarks/bench_layers.py [LAYER ...]

LAYER is one of affine, relu, softmax_loss, svm_loss, batchnorm, rnn_step, lstm_step,
max_pool (CS231n's layers, written as a user writes them: the forward pass only). Each
layer's output is reduced to a loss with a fixed upstream gradient, ``np.sum(out * dout)``,
so the hand-written backward pass starts from ``dout``. The hand-written side runs the
layer's forward pass (keeping its cache) and then its backward pass, as CS231n's
``layer_forward``/``layer_backward`` pairs do; srcad runs the gradient it generates,
specialized for these arguments. Target: srcad within 1.5x of hand-written.

Method: gradients are checked against the hand-written ones first; then both are timed
interleaved in one process (in alternating order), 15 rounds, each round timing each
callable over enough calls to take >= 20 ms; the ratio is that of the fastest round of each
(on a shared machine other work only adds time: the minimum is the least disturbed
measurement). The last column counts the calls of srcad's shape-dispatching runtime helpers
left in the specialized code (rt.unbroadcast, rt.expand_reduced, the dot/matmul adjoint
helpers ...): 0 means it is plain NumPy apart from helpers that do the work itself
(rt.unindex, a max's rt.extremum_adjoint) and rt.owned_tuple. BLAS runs single-threaded unless
OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS are set.
"""

from __future__ import annotations

import os
import re
import sys

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before NumPy is imported

import numpy as np  # noqa: E402

import srcad  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved_samples  # noqa: E402

# the layers, as users write them (forward only): the same ones the tests pin
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
from tests.classic_layers import (  # noqa: E402
    affine, batchnorm, lstm_step, max_pool, relu, rnn_step, sigmoid, softmax_loss, svm_loss)

ROUNDS = 15
TARGET = 1.5
# helpers whose only job is deciding, from shapes seen at run time, what NumPy to run
DISPATCHING_HELPERS = ("unbroadcast", "expand_reduced", "reduced_size", "dot_adjoint_left",
                       "dot_adjoint_right", "matmul_adjoint_left", "matmul_adjoint_right",
                       "match_type", "zeros_like", "check_scalar_output", "unit_seed")


# ---- hand-written forward + backward (CS231n's layer_forward / layer_backward)


def affine_hand(x, w, b, dout):
    rows = x.reshape(x.shape[0], -1)
    out = rows.dot(w) + b  # noqa: F841 - the forward pass, as a layer computes it
    dx = dout.dot(w.T).reshape(x.shape)
    dw = rows.T.dot(dout)
    db = np.sum(dout, axis=0)
    return dx, dw, db


def relu_hand(x, dout):
    out = np.maximum(0, x)  # noqa: F841
    return (dout * (x > 0),)


def softmax_loss_hand(x, y):
    shifted = x - np.max(x, axis=1, keepdims=True)
    z = np.sum(np.exp(shifted), axis=1, keepdims=True)
    log_probs = shifted - np.log(z)
    probs = np.exp(log_probs)
    n = x.shape[0]
    loss = -np.sum(log_probs[np.arange(n), y]) / n  # noqa: F841
    dx = probs.copy()
    dx[np.arange(n), y] -= 1
    dx /= n
    return (dx,)


def svm_loss_hand(x, y):
    n = x.shape[0]
    correct = x[np.arange(n), y]
    margins = np.maximum(0, x - correct[:, np.newaxis] + 1.0)
    margins[np.arange(n), y] = 0
    loss = np.sum(margins) / n  # noqa: F841
    positive = np.sum(margins > 0, axis=1)
    dx = np.zeros_like(x)
    dx[margins > 0] = 1
    dx[np.arange(n), y] -= positive
    dx /= n
    return (dx,)


def batchnorm_hand(x, gamma, beta, dout):
    mu = np.mean(x, axis=0)
    centered = x - mu
    var = np.mean(centered * centered, axis=0)
    inverse_std = 1.0 / np.sqrt(var + 1e-5)
    xhat = centered * inverse_std
    out = gamma * xhat + beta  # noqa: F841
    n = x.shape[0]
    dbeta = np.sum(dout, axis=0)
    dgamma = np.sum(dout * xhat, axis=0)
    dxhat = dout * gamma
    dx = inverse_std / n * (n * dxhat - np.sum(dxhat, axis=0)
                            - xhat * np.sum(dxhat * xhat, axis=0))
    return dx, dgamma, dbeta


def rnn_step_hand(x, prev_h, Wx, Wh, b, dout):
    next_h = np.tanh(x.dot(Wx) + prev_h.dot(Wh) + b)
    da = dout * (1 - next_h * next_h)
    return da.dot(Wx.T), da.dot(Wh.T), x.T.dot(da), prev_h.T.dot(da), np.sum(da, axis=0)


def lstm_step_hand(x, prev_h, prev_c, Wx, Wh, b, dnext_h, dnext_c):
    hidden = prev_h.shape[1]
    a = x.dot(Wx) + prev_h.dot(Wh) + b
    i = sigmoid(a[:, :hidden])
    f = sigmoid(a[:, hidden:2 * hidden])
    o = sigmoid(a[:, 2 * hidden:3 * hidden])
    g = np.tanh(a[:, 3 * hidden:])
    next_c = f * prev_c + i * g
    tanh_c = np.tanh(next_c)
    next_h = o * tanh_c  # noqa: F841
    dc = dnext_c + dnext_h * o * (1 - tanh_c * tanh_c)
    da = np.empty_like(a)
    da[:, :hidden] = dc * g * i * (1 - i)
    da[:, hidden:2 * hidden] = dc * prev_c * f * (1 - f)
    da[:, 2 * hidden:3 * hidden] = dnext_h * tanh_c * o * (1 - o)
    da[:, 3 * hidden:] = dc * i * (1 - g * g)
    return (da.dot(Wx.T), da.dot(Wh.T), dc * f, x.T.dot(da), prev_h.T.dot(da),
            np.sum(da, axis=0))


def max_pool_hand(x, dout):
    n, c, height, width = x.shape
    blocks = x.reshape(n, c, height // 2, 2, width // 2, 2)
    pooled = blocks.max(axis=3).max(axis=4)
    mask = blocks == pooled[:, :, :, None, :, None]
    counts = np.sum(mask, axis=(3, 5), keepdims=True)  # ties share the gradient, as srcad's
    dx = mask * (dout[:, :, :, None, :, None] / counts)
    return (dx.reshape(x.shape),)


def layers(rng):
    """name -> (layer, hand-written, arguments, wrt): CS231n's sizes (batch 64...)."""
    n, d, hidden, classes = 64, 3 * 8 * 8, 128, 10
    normal = rng.standard_normal
    labels = rng.integers(0, classes, size=n)
    return {
        "affine": (affine, affine_hand, (normal((n, 3, 8, 8)), normal((d, hidden)),
                                         normal(hidden), normal((n, hidden))), (0, 1, 2)),
        "relu": (relu, relu_hand, (normal((n, 4096)), normal((n, 4096))), (0,)),
        "softmax_loss": (softmax_loss, softmax_loss_hand, (normal((n, classes)), labels),
                         (0,)),
        "svm_loss": (svm_loss, svm_loss_hand, (normal((n, classes)), labels), (0,)),
        "batchnorm": (batchnorm, batchnorm_hand, (normal((n, 512)), normal(512), normal(512),
                                                  normal((n, 512))), (0, 1, 2)),
        "rnn_step": (rnn_step, rnn_step_hand, (normal((n, d)), normal((n, hidden)),
                                               normal((d, hidden)), normal((hidden, hidden)),
                                               normal(hidden), normal((n, hidden))),
                     (0, 1, 2, 3, 4)),
        "lstm_step": (lstm_step, lstm_step_hand,
                      (normal((n, d)), normal((n, hidden)), normal((n, hidden)),
                       normal((d, 4 * hidden)), normal((hidden, 4 * hidden)),
                       normal(4 * hidden), normal((n, hidden)), normal((n, hidden))),
                      (0, 1, 2, 3, 4, 5)),
        "max_pool": (max_pool, max_pool_hand, (normal((n, 3, 32, 32)),
                                               normal((n, 3, 16, 16))), (0,)),
    }



def dispatching_calls(source: str) -> list:
    return re.findall(r"\brt\.(%s)\(" % "|".join(DISPATCHING_HELPERS), source)


def measure(name, layer, hand, args, wrt):
    gradient = srcad.grad(layer, wrt=wrt)
    got, expected = gradient(*args), hand(*args)
    for position, a, b in zip(wrt, got, expected):
        if not np.allclose(a, b, rtol=1e-7, atol=1e-9):
            raise AssertionError("%s: srcad's gradient for argument %d differs from the "
                                 "hand-written one" % (name, position))
    callables = {"srcad": lambda: gradient(*args), "hand": lambda: hand(*args)}
    samples = interleaved_samples(callables, ROUNDS)
    # the least disturbed round of each: on a shared machine, other work only adds time
    srcad_time, hand_time = min(samples["srcad"]), min(samples["hand"])
    return {
        "layer": name,
        "srcad_us": srcad_time * 1e6,
        "hand_us": hand_time * 1e6,
        "ratio": srcad_time / hand_time,
        "helpers": dispatching_calls(gradient.source_for(*args)),
    }


def main(argv) -> int:
    known = layers(np.random.default_rng(0))
    unknown = [name for name in argv if name not in known]
    if unknown:
        print("unknown layer(s): %s; choose from %s" % (", ".join(unknown), ", ".join(known)),
              file=sys.stderr)
        return 2
    rows = [measure(name, *known[name]) for name in argv or known]
    print("%-13s %12s %14s %11s  %s" % ("layer", "srcad", "hand-written", "srcad/hand",
                                        "dispatching helpers left"))
    for row in rows:
        flag = "" if row["ratio"] <= TARGET else "  (above %.1fx)" % TARGET
        print("%-13s %10.1fus %12.1fus %10.2fx  %s%s" % (
            row["layer"], row["srcad_us"], row["hand_us"], row["ratio"],
            ", ".join(row["helpers"]) or "none", flag))
    print("(fastest round of %d interleaved rounds, per call; "
          "BLAS threads: %s)" % (ROUNDS, os.environ["OPENBLAS_NUM_THREADS"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
