def grad_scalar(x, y):
    mul = x * y
    z = mul + np.sin(x)
    # grad of: return z ** 2.0
    z_bar = 2.0 * z ** 1.0
    # grad of: z = x * y + np.sin(x)
    x_bar = z_bar * np.cos(x)
    x_bar += z_bar * y
    y_bar = x * z_bar
    return float(x_bar), float(y_bar)
