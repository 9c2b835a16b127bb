"""Hand-written adjoints of the workloads: the practical limit for Python/NumPy.

Copied unchanged from the project's shared benchmark suite (shared/bench/handwritten.py);
these are the "1.0x" reference that DESIGN.md's performance goal is stated against.

Each returns the gradient tuple for the workload's wrt arguments, written the
way a careful person would: store only what the reverse sweep needs, in
preallocated buffers, no dispatch.
"""
import numpy as np


def scalar_loop_grad(r, x0):
    n = 1000
    xs = [0.0] * (n + 1)
    x = x0
    xs[0] = x
    s = 0.0
    for i in range(n):
        x = r * x * (1.0 - x)
        xs[i + 1] = x
        s = s + x * x
    bs = 1.0
    bx = 0.0
    br = 0.0
    for i in range(n - 1, -1, -1):
        xn = xs[i + 1]
        bx = bx + bs * 2.0 * xn
        xp = xs[i]
        br = br + bx * xp * (1.0 - xp)
        bx = bx * r * (1.0 - 2.0 * xp)
    return br, bx


def mlp_grad(W1, b1, W2, b2, x, y):
    a1 = np.dot(x, W1) + b1
    h = np.tanh(a1)
    out = np.dot(h, W2) + b2
    d = out - y
    n = y.shape[0]
    bout = (2.0 / n) * d
    bW2 = np.dot(h.T, bout)
    bb2 = bout.sum(axis=0)
    bh = np.dot(bout, W2.T)
    ba1 = bh * (1.0 - h * h)
    bW1 = np.dot(x.T, ba1)
    bb1 = ba1.sum(axis=0)
    return bW1, bb1, bW2, bb2


def rnn_grad(Wx, Wh, b, xs, h0):
    T = xs.shape[0]
    hs = [h0]
    h = h0
    for t in range(T):
        h = np.tanh(np.dot(xs[t], Wx) + np.dot(h, Wh) + b)
        hs.append(h)
    bh = 2.0 * h
    bWx = np.zeros_like(Wx)
    bWh = np.zeros_like(Wh)
    bb = np.zeros_like(b)
    for t in range(T - 1, -1, -1):
        hn = hs[t + 1]
        ba = bh * (1.0 - hn * hn)
        bWx += np.dot(xs[t].T, ba)
        bWh += np.dot(hs[t].T, ba)
        bb += ba.sum(axis=0)
        bh = np.dot(ba, Wh.T)
    return bWx, bWh, bb


def lotka_rk4_grad(a, b, c, d, u0):
    n = 400
    dt = 0.01
    X = [0.0] * (n + 1)
    Y = [0.0] * (n + 1)
    x = u0[0]
    y = u0[1]
    X[0] = x
    Y[0] = y

    def rhs(x, y):
        return a * x - b * x * y, d * x * y - c * y

    for i in range(n):
        k1x, k1y = rhs(x, y)
        k2x, k2y = rhs(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y)
        k3x, k3y = rhs(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y)
        k4x, k4y = rhs(x + dt * k3x, y + dt * k3y)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
        X[i + 1] = x
        Y[i + 1] = y
    bx = 1.0
    by = 1.0
    ba = bb = bc = bd = 0.0

    def rhs_adj(x, y, gx, gy):
        # returns (dx, dy, da, db, dc, dd) contributions of k = rhs(x, y) given grads gx, gy
        return (gx * (a - b * y) + gy * d * y,
                -gx * b * x + gy * (d * x - c),
                gx * x, -gx * x * y, -gy * y, gy * x * y)

    for i in range(n - 1, -1, -1):
        x = X[i]
        y = Y[i]
        k1x, k1y = rhs(x, y)
        x2 = x + 0.5 * dt * k1x; y2 = y + 0.5 * dt * k1y
        k2x, k2y = rhs(x2, y2)
        x3 = x + 0.5 * dt * k2x; y3 = y + 0.5 * dt * k2y
        k3x, k3y = rhs(x3, y3)
        x4 = x + dt * k3x; y4 = y + dt * k3y
        w = dt / 6.0
        g1x, g1y = w * bx, w * by
        g2x, g2y = 2 * w * bx, 2 * w * by
        g3x, g3y = 2 * w * bx, 2 * w * by
        g4x, g4y = w * bx, w * by
        nbx, nby = bx, by
        dx4, dy4, da_, db_, dc_, dd_ = rhs_adj(x4, y4, g4x, g4y)
        ba += da_; bb += db_; bc += dc_; bd += dd_
        nbx += dx4; nby += dy4; g3x += dt * dx4; g3y += dt * dy4
        dx3, dy3, da_, db_, dc_, dd_ = rhs_adj(x3, y3, g3x, g3y)
        ba += da_; bb += db_; bc += dc_; bd += dd_
        nbx += dx3; nby += dy3; g2x += 0.5 * dt * dx3; g2y += 0.5 * dt * dy3
        dx2, dy2, da_, db_, dc_, dd_ = rhs_adj(x2, y2, g2x, g2y)
        ba += da_; bb += db_; bc += dc_; bd += dd_
        nbx += dx2; nby += dy2; g1x += 0.5 * dt * dx2; g1y += 0.5 * dt * dy2
        dx1, dy1, da_, db_, dc_, dd_ = rhs_adj(x, y, g1x, g1y)
        ba += da_; bb += db_; bc += dc_; bd += dd_
        nbx += dx1; nby += dy1
        bx, by = nbx, nby
    return ba, bb, bc, bd
