"""CS231n's classic layers as users write them (the forward pass only), reduced to a loss
with a fixed upstream gradient ``np.sum(out * dout)``: their specialized gradients must be
plain NumPy (tests/test_specialized_layers.py; benchmarks/bench_layers.py times them)."""

import numpy as np


def affine(x, w, b, dout):
    out = x.reshape(x.shape[0], -1).dot(w) + b
    return np.sum(out * dout)


def relu(x, dout):
    out = np.maximum(0, x)
    return np.sum(out * dout)


def softmax_loss(x, y):
    shifted = x - np.max(x, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    n = x.shape[0]
    return -np.sum(log_probs[np.arange(n), y]) / n


def svm_loss(x, y):
    n = x.shape[0]
    correct = x[np.arange(n), y]
    margins = np.maximum(0, x - correct[:, np.newaxis] + 1.0)
    margins[np.arange(n), y] = 0
    return np.sum(margins) / n


def batchnorm(x, gamma, beta, dout):
    mu = np.mean(x, axis=0)
    centered = x - mu
    var = np.mean(centered * centered, axis=0)
    xhat = centered / np.sqrt(var + 1e-5)
    out = gamma * xhat + beta
    return np.sum(out * dout)


def rnn_step(x, prev_h, Wx, Wh, b, dout):
    next_h = np.tanh(x @ Wx + prev_h @ Wh + b)
    return np.sum(next_h * dout)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_step(x, prev_h, prev_c, Wx, Wh, b, dnext_h, dnext_c):
    hidden = prev_h.shape[1]
    a = x @ Wx + prev_h @ Wh + b
    i = sigmoid(a[:, :hidden])
    f = sigmoid(a[:, hidden:2 * hidden])
    o = sigmoid(a[:, 2 * hidden:3 * hidden])
    g = np.tanh(a[:, 3 * hidden:])
    next_c = f * prev_c + i * g
    next_h = o * np.tanh(next_c)
    return np.sum(next_h * dnext_h) + np.sum(next_c * dnext_c)


def max_pool(x, dout):
    n, c, height, width = x.shape
    pooled = x.reshape(n, c, height // 2, 2, width // 2, 2).max(axis=3).max(axis=4)
    return np.sum(pooled * dout)


def arguments(rng):
    """name -> (layer, arguments, wrt), small sizes, inputs away from the kinks (relu's 0,
    the hinge of svm_loss, ties of max_pool)."""
    n, hidden, classes = 4, 3, 5

    def away_from_zero(shape):
        values = rng.uniform(0.2, 1.0, size=shape)
        return values * rng.choice([-1.0, 1.0], size=shape)

    labels = rng.integers(0, classes, size=n)
    scores = rng.normal(size=(n, classes)) * 0.25  # every margin x - correct + 1 > 0
    normal = rng.normal
    return {
        "affine": (affine, (normal(size=(n, 2, 3)), normal(size=(6, hidden)), normal(size=hidden),
                            normal(size=(n, hidden))), (0, 1, 2)),
        "relu": (relu, (away_from_zero((n, 6)), normal(size=(n, 6))), (0,)),
        "softmax_loss": (softmax_loss, (normal(size=(n, classes)), labels), (0,)),
        "svm_loss": (svm_loss, (scores, labels), (0,)),
        "batchnorm": (batchnorm, (normal(size=(n, 6)), normal(size=6), normal(size=6),
                                  normal(size=(n, 6))), (0, 1, 2)),
        "rnn_step": (rnn_step, (normal(size=(n, 5)), normal(size=(n, hidden)),
                                normal(size=(5, hidden)), normal(size=(hidden, hidden)),
                                normal(size=hidden), normal(size=(n, hidden))),
                     (0, 1, 2, 3, 4)),
        "lstm_step": (lstm_step, (normal(size=(n, 5)), normal(size=(n, hidden)),
                                  normal(size=(n, hidden)), normal(size=(5, 4 * hidden)),
                                  normal(size=(hidden, 4 * hidden)), normal(size=4 * hidden),
                                  normal(size=(n, hidden)), normal(size=(n, hidden))),
                      (0, 1, 2, 3, 4, 5)),
        "max_pool": (max_pool, (rng.permutation(2 * 3 * 4 * 4).reshape(2, 3, 4, 4) * 0.1,
                                normal(size=(2, 3, 2, 2))), (0,)),
    }
