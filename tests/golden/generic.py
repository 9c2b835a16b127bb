def grad_generic(x, w):
    s = np.exp(x * w)
    total = np.sum(s)
    result = total - w
    rt.check_scalar_output(result, 'golden_subjects.py:31:4')
    result_bar = rt.unit_seed(result)
    # grad of: return np.sum(s) - w
    total_bar = rt.unbroadcast(result_bar, total)
    w_bar = -rt.unbroadcast(result_bar, w)
    s_bar = rt.expand_reduced(total_bar, s, None, False)
    # grad of: s = np.exp(x * w)
    mul_bar = s_bar * s
    x_bar = rt.unbroadcast(mul_bar * w, x)
    w_bar += rt.unbroadcast(x * mul_bar, w)
    return rt.owned_tuple(rt.match_type(x_bar, x), rt.match_type(w_bar, w))
