def grad_broadcast(A, b):
    z = A + b
    # grad of: return np.sum(z * z)
    mul_bar = np.broadcast_to(1.0, A.shape)
    z_bar = mul_bar * 2.0 * z
    # grad of: z = A + b
    b_bar = z_bar.sum(axis=0)
    return rt.owned_tuple(z_bar, b_bar)
