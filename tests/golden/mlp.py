def grad_mlp(W1, b1, W2, b2, x, y):
    h = np.tanh(np.dot(x, W1) + b1)
    out = np.dot(h, W2) + b2
    d = out - y
    y_shape_item = y.shape[0]
    # grad of: return np.sum(d * d) / y.shape[0]
    total_bar = 1.0 / y_shape_item
    mul_bar = np.broadcast_to(total_bar, y.shape)
    d_bar = mul_bar * 2.0 * d
    # grad of: out = np.dot(h, W2) + b2
    b2_bar = d_bar.sum(axis=0)
    h_bar = np.dot(d_bar, W2.T)
    W2_bar = np.dot(h.T, d_bar)
    # grad of: h = np.tanh(np.dot(x, W1) + b1)
    add_bar = h_bar * (1.0 - h * h)
    b1_bar = add_bar.sum(axis=0)
    W1_bar = np.dot(x.T, add_bar)
    return rt.owned_tuple(W1_bar, b1_bar, W2_bar, b2_bar)
