def grad_broadcast(A, b):
    z = A + b
    mul = z * z
    # grad of: return np.sum(z * z)
    mul_bar = rt.expand_reduced(1.0, mul, None, False)
    z_bar = mul_bar * 2.0 * z
    # grad of: z = A + b
    b_bar = z_bar.sum(axis=0)
    return rt.owned_tuple(z_bar, b_bar)
