"""Functions of the `math` module wrapped for srcad to differentiate, shared by
tests/test_templates.py and tests/template_combos.py."""

import math


def math_sin(x):
    return math.sin(x)


def math_cos(x):
    return math.cos(x)


def math_tan(x):
    return math.tan(x)


def math_asin(x):
    return math.asin(x)


def math_acos(x):
    return math.acos(x)


def math_atan(x):
    return math.atan(x)


def math_sinh(x):
    return math.sinh(x)


def math_cosh(x):
    return math.cosh(x)


def math_tanh(x):
    return math.tanh(x)


def math_asinh(x):
    return math.asinh(x)


def math_acosh(x):
    return math.acosh(x)


def math_atanh(x):
    return math.atanh(x)


def math_exp(x):
    return math.exp(x)


def math_expm1(x):
    return math.expm1(x)


def math_log(x):
    return math.log(x)


def math_log2(x):
    return math.log2(x)


def math_log10(x):
    return math.log10(x)


def math_log1p(x):
    return math.log1p(x)


def math_sqrt(x):
    return math.sqrt(x)


def math_fabs(x):
    return math.fabs(x)


def math_erf(x):
    return math.erf(x)


def math_erfc(x):
    return math.erfc(x)


def math_degrees(x):
    return math.degrees(x)


def math_radians(x):
    return math.radians(x)


def math_log_base(x, base):
    return math.log(x, base)


def math_atan2(y, x):
    return math.atan2(y, x)


def math_pow(x, y):
    return math.pow(x, y)


def math_hypot(x, y):
    return math.hypot(x, y)
