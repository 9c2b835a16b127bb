def grad_branch(x, y):
    cond = x > y
    if cond:
        z = x * y
    else:
        z = np.sin(x)
    # grad of: return z * z
    z_bar = 2.0 * z
    # grad of: if x > y: ...
    if cond:
        # grad of: z = x * y
        x_bar = z_bar * y
        y_bar = x * z_bar
    else:
        # grad of: z = np.sin(x)
        x_bar = z_bar * np.cos(x)
        y_bar = 0.0
    return float(x_bar), float(y_bar)
