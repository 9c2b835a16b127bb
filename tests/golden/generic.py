def grad_generic(x, w):
    s = np.exp(x * w)
    total = np.sum(s)
    rt.check_scalar_output(total - w, 'golden_subjects.py:31:4')
    # grad of: return np.sum(s) - w
    total_bar = rt.unbroadcast(1.0, total)
    w_bar = -rt.unbroadcast(1.0, w)
    s_bar = rt.expand_reduced(total_bar, s, None, False)
    # grad of: s = np.exp(x * w)
    mul_bar = s_bar * s
    x_bar = rt.unbroadcast(mul_bar * w, x)
    w_bar += rt.unbroadcast(x * mul_bar, w)
    return rt.owned_tuple(rt.match_type(x_bar, x), rt.match_type(w_bar, w))
