def grad_loop(r, x0):
    _tape = []
    x = x0
    s = 0.0
    for i in range(1000):
        mul = r * x
        sub = 1.0 - x
        x_2 = mul * sub
        s_2 = s + x_2 * x_2
        _tape.append(x)
        s = s_2
        x = x_2
    # grad of: for i in range(1000): ...
    r_bar = 0.0
    x_bar = 0.0
    for i in reversed(range(1000)):
        x_2 = x
        x = _tape.pop()
        mul = r * x
        sub = 1.0 - x
        # grad of: s = s + x * x
        x_2_bar = x_bar + 2.0 * x_2
        # grad of: x = r * x * (1.0 - x)
        mul_bar = x_2_bar * sub
        sub_bar = mul * x_2_bar
        x_bar = -sub_bar
        r_bar = r_bar + mul_bar * x
        x_bar += r * mul_bar
    return r_bar, x_bar
