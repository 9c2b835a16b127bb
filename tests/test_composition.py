"""srcad's derivatives composed with srcad, decorated functions, and the arguments derivatives take.

* Derivatives of derivatives: ``grad(grad(f))`` is f'' (never f' again: srcad
  differentiates the generated code a derivative runs, not the function
  ``__wrapped__`` leads back to), and so for jvp, vjp, jacobian, hvp,
  hessian and source of a gradient, and for a gradient called inside a
  differentiated function. Checked against closed forms and central finite
  differences of srcad's own first derivative (itself checked elsewhere).
* A decorated function is its wrapper: differentiated as written, or rejected
  with a located error, never with its decorator dropped.
* Arguments: a string, a function, None or a bool named in ``wrt`` is a
  located error; bound methods and defaulted parameters work in every mode.
"""

import functools
import zlib

import numpy as np
import pytest

import srcad
from srcad.errors import (InvalidArgumentError, MissingTemplateError, NonScalarOutputError,
                          NondifferentiableArgumentError, SourceUnavailableError,
                          UnsupportedSyntaxError)
from tests import call_functions as calls
from tests._fd import assert_close, numeric_grad

RNG = np.random.RandomState(zlib.crc32(b"test_composition") % 2**31)
X = np.array([0.3, -1.2, 0.8])
V = np.array([1.1, 0.4, -0.7])


def numeric_jacobian(function, x, eps=1e-6):
    """Central differences of ``function`` (any output shape) at ``x``: output.shape + x.shape."""
    x = np.asarray(x, dtype=float)
    columns = {}
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        columns[index] = (np.asarray(function(x + step)) - np.asarray(function(x - step))) / (
            2 * eps)
    out_shape = np.shape(next(iter(columns.values())))
    result = np.zeros(out_shape + x.shape)
    for index, column in columns.items():
        result[(Ellipsis,) + index] = column
    return result


# ------------------------------------------------------------ functions differentiated


def quintic(a):
    return a ** 5 - 3.0 * a ** 2


def sine_weighted(x):
    return np.sum(x ** 4 * np.sin(x))


def mixed(x, y):
    return np.sum(np.sin(x) * y ** 2) + np.sum(x * x * y)


def scalar_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(s + x * i)
    return s


def branchy_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            total = total + x[i] ** 3
        else:
            total = total + np.cos(x[i])
    return total


quintic_gradient = srcad.grad(quintic)
sine_weighted_gradient = srcad.grad(sine_weighted)


def squared_gradient_norm(x):
    """A gradient called inside a differentiated function."""
    return np.sum(sine_weighted_gradient(x) ** 2)


def gradient_in_a_loop(x):
    total = 0.0
    for i in range(3):
        total = total + np.sum(sine_weighted_gradient(x * (i + 1.0)))
    return total


class Model:
    def __init__(self):
        self.c = np.array([1.0, 2.0, 3.0])

    def loss(self, w):
        return np.sum(np.sin(self.c * w) * w)

    def out(self, w):
        return np.tanh(self.c * w)


MODEL = Model()
model_gradient = srcad.grad(MODEL.loss)


def bound_gradient_inside(w):
    return np.sum(model_gradient(w) * w)


# ------------------------------------------------------------ grad of grad (w7)


def test_grad_of_grad_is_the_second_derivative():
    a = 0.7
    assert srcad.grad(srcad.grad(quintic))(a) == pytest.approx(20 * a ** 3 - 6.0, rel=1e-12)
    assert srcad.grad(quintic_gradient)(a) == pytest.approx(20 * a ** 3 - 6.0, rel=1e-12)


def test_grad_of_grad_of_grad_is_the_third_derivative():
    a = 0.7
    third = srcad.grad(srcad.grad(srcad.grad(quintic)))
    assert third(a) == pytest.approx(60 * a ** 2, rel=1e-12)
    assert type(third(a)) is float
    assert srcad.grad(third)(a) == pytest.approx(120 * a, rel=1e-12)


def test_derivatives_of_a_gradient_are_the_hessian():
    hessian = numeric_jacobian(sine_weighted_gradient, X)
    assert_close(srcad.jvp(sine_weighted_gradient, (X,), (V,))[1], hessian @ V)
    assert_close(srcad.vjp(sine_weighted_gradient, X)[1](V)[0], hessian.T @ V)
    assert_close(srcad.jacobian(sine_weighted_gradient)(X), hessian)
    assert_close(srcad.jacobian(sine_weighted_gradient, mode="forward")(X), hessian)
    assert_close(srcad.hessian(sine_weighted)(X), hessian)


def test_hvp_and_hessian_of_a_scalar_gradient_are_third_derivatives():
    a = 0.7
    assert srcad.hvp(quintic_gradient)(a, 2.0) == pytest.approx(2.0 * 60 * a ** 2, rel=1e-10)
    assert srcad.hessian(quintic_gradient)(a) == pytest.approx(60 * a ** 2, rel=1e-10)


def test_mixed_partial_derivatives():
    dy = srcad.grad(mixed, wrt=1)
    expected = numeric_jacobian(lambda x: dy(x, V), X)
    assert_close(srcad.jacobian(dy, wrt=0)(X, V), expected)
    assert_close(srcad.jacobian(srcad.grad(mixed, wrt=(0, 1)), wrt=1)(X, V)[0],
                 numeric_jacobian(lambda y: srcad.grad(mixed)(X, y), V))
    scalar = srcad.grad(srcad.grad(mixed, wrt="y"), wrt="x")(0.7, 0.4)
    assert scalar == pytest.approx(numeric_grad(dy, (0.7, 0.4), 0), rel=1e-6)


def test_second_and_third_derivatives_through_loops_and_the_tape():
    first = srcad.grad(scalar_loop)
    second = srcad.grad(first)
    assert second(0.3, 5) == pytest.approx(numeric_grad(first, (0.3, 5), 0), rel=1e-6)
    third = srcad.grad(second)
    assert third(0.3, 5) == pytest.approx(numeric_grad(second, (0.3, 5), 0), rel=1e-5)
    gradient = srcad.grad(branchy_loop)
    expected = numeric_jacobian(gradient, X)
    assert_close(srcad.jacobian(gradient)(X), expected)
    assert_close(srcad.jacobian(gradient, mode="forward")(X), expected)


def test_value_and_grad_of_a_gradient():
    a = 0.7
    value, second = srcad.value_and_grad(quintic_gradient)(a)
    assert value == pytest.approx(5 * a ** 4 - 6 * a, rel=1e-12)
    assert second == pytest.approx(20 * a ** 3 - 6.0, rel=1e-12)


def test_source_and_check_grad_of_a_gradient():
    text = srcad.source(quintic_gradient)
    assert text.startswith("def grad_grad_quintic(a):")
    specialized = srcad.source(quintic_gradient, example_args=(0.7,))
    assert "20.0 * a ** 3" in specialized
    assert srcad.check_grad(quintic_gradient, 0.7)
    assert srcad.grad(quintic_gradient).source == text


def test_derivatives_of_bound_method_gradients():
    hessian = numeric_jacobian(model_gradient, X)
    assert_close(srcad.jacobian(model_gradient)(X), hessian)
    assert_close(srcad.jvp(model_gradient, (X,), (V,))[1], hessian @ V)
    assert_close(srcad.hessian(MODEL.loss)(X), hessian)


def test_grad_of_a_non_scalar_gradient_says_what_to_use():
    with pytest.raises(NonScalarOutputError) as caught:
        srcad.grad(sine_weighted_gradient)(X)
    message = str(caught.value)
    assert "srcad.grad(srcad.grad(sine_weighted)) differentiates srcad.grad(sine_weighted)" in \
        message
    assert "array of shape (3,)" in message and "srcad.jacobian(srcad.grad(sine_weighted))" in \
        message


# ------------------------------------------------------------ gradients called inside


def test_gradient_called_inside_a_differentiated_function():
    expected = numeric_grad(squared_gradient_norm, (X,), 0)
    assert_close(srcad.grad(squared_gradient_norm)(X), expected)
    hessian = numeric_jacobian(srcad.grad(squared_gradient_norm), X)
    assert_close(srcad.hvp(squared_gradient_norm)(X, V), hessian @ V, rtol=1e-5)
    assert_close(srcad.hessian(squared_gradient_norm)(X), hessian, rtol=1e-5)
    assert_close(srcad.grad(gradient_in_a_loop)(X), numeric_grad(gradient_in_a_loop, (X,), 0))


def test_bound_gradient_called_inside_a_differentiated_function():
    assert_close(srcad.grad(bound_gradient_inside)(X),
                 numeric_grad(bound_gradient_inside, (X,), 0))


jacobian_of_sine = srcad.jacobian(srcad.grad(sine_weighted))


def calls_a_jacobian(x):
    return np.sum(jacobian_of_sine(x))


def test_a_function_srcad_cannot_differentiate_called_inside_is_a_located_error():
    with pytest.raises(MissingTemplateError) as caught:
        srcad.grad(calls_a_jacobian)
    error = caught.value
    assert "srcad.jacobian(srcad.grad(sine_weighted))" in error.message
    assert error.location.filename == __file__
    assert "jacobian_of_sine(x)" in error.location.line


@pytest.mark.parametrize("make", [
    lambda: srcad.jacobian(sine_weighted),
    lambda: srcad.hessian(sine_weighted),
    lambda: srcad.hvp(sine_weighted),
    lambda: srcad.vjp(sine_weighted, X)[1],
], ids=["jacobian", "hessian", "hvp", "vjp"])
def test_functions_srcad_does_not_differentiate_are_rejected(make):
    made = make()
    with pytest.raises(InvalidArgumentError, match="srcad cannot differentiate the function"):
        srcad.grad(made)
    with pytest.raises(InvalidArgumentError, match="srcad cannot differentiate the function"):
        srcad.jvp(made, (X,), (V,))


def test_codegen_of_a_gradient_is_rejected(tmp_path):
    with pytest.raises(InvalidArgumentError, match="not of the function srcad.grad"):
        srcad.codegen(quintic_gradient, str(tmp_path / "out.py"))


# ------------------------------------------------------------ recursion


@pytest.mark.parametrize("function, args", [
    (calls.recursive_power, (1.3, 4)), (calls.recursive_sum, (0.4, 3)),
    (calls.calls_recursive, (0.8,))], ids=lambda v: getattr(v, "__name__", ""))
def test_second_derivatives_of_recursive_functions(function, args):
    gradient = srcad.grad(function)
    expected = numeric_grad(gradient, args, 0)
    assert srcad.hvp(function)(*args, 1.5) == pytest.approx(1.5 * expected, rel=1e-6)
    assert srcad.hessian(function)(*args) == pytest.approx(expected, rel=1e-6)
    tangents = (2.0,) + (None,) * (len(args) - 1)
    assert srcad.jvp(gradient, args, tangents)[1] == pytest.approx(2.0 * expected, rel=1e-6)


def test_grad_of_grad_of_a_recursive_function():
    gradient = srcad.grad(calls.recursive_power)
    expected = numeric_grad(gradient, (1.3, 4), 0)
    assert srcad.grad(gradient)(1.3, 4) == pytest.approx(expected, rel=1e-6)


# ------------------------------------------------------------ decorated functions (w8)


def doubled(function):
    @functools.wraps(function)
    def wrapper(x):
        return 2.0 * function(x)

    return wrapper


@doubled
def doubled_cube(x):
    return x ** 3


def calls_doubled_cube(x):
    return np.sum(doubled_cube(x) * x)


def forwarding(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)

    return wrapper


@forwarding
def forwarded_square(x):
    return x * x


def calls_forwarded_square(x):
    return forwarded_square(x) + 1.0


@functools.lru_cache(maxsize=None)
def cached_square(x):
    return x * x


def calls_cached_square(x):
    return cached_square(x) + 1.0


def test_decorator_is_differentiated_not_dropped():
    assert doubled_cube(1.5) == 6.75
    assert srcad.grad(doubled_cube)(1.5) == pytest.approx(2.0 * 3 * 1.5 ** 2, rel=1e-12)
    assert srcad.hessian(doubled_cube)(1.5) == pytest.approx(2.0 * 6 * 1.5, rel=1e-12)
    assert srcad.jvp(doubled_cube, (1.5,), (1.0,))[1] == pytest.approx(13.5, rel=1e-12)


def test_decorated_helper_is_inlined_with_its_decorator():
    assert_close(srcad.grad(calls_doubled_cube)(X), 8.0 * X ** 3)
    assert_close(srcad.hvp(calls_doubled_cube)(X, V), 24.0 * X ** 2 * V)


def test_decorator_forwarding_star_args_is_a_located_error():
    with pytest.raises(UnsupportedSyntaxError) as caught:
        srcad.grad(forwarded_square)
    assert "def wrapper(*args, **kwargs):" in caught.value.location.line
    with pytest.raises(UnsupportedSyntaxError) as caught:
        srcad.grad(calls_forwarded_square)(0.5)
    assert "function(*args, **kwargs)" in caught.value.location.line


def test_decorator_implemented_in_c_is_a_located_error():
    with pytest.raises(SourceUnavailableError) as caught:
        srcad.grad(cached_square)
    assert "@functools.lru_cache" in caught.value.location.line
    assert "cached_square.__wrapped__" in caught.value.hint
    with pytest.raises(SourceUnavailableError) as caught:
        srcad.grad(calls_cached_square)(0.5)
    assert "cached_square(x) + 1.0" in caught.value.location.line


def test_wrappers_do_not_share_the_cache_of_what_they_wrap():
    def base(x):
        return x ** 3

    srcad.grad(base)  # fills base's cache before functools.wraps copies base.__dict__

    @functools.wraps(base)
    def tripled(x):
        return 3.0 * base(x)

    srcad.grad(tripled)
    assert srcad.grad(base)(1.5) == pytest.approx(3 * 1.5 ** 2)
    assert srcad.grad(tripled)(1.5) == pytest.approx(9 * 1.5 ** 2)
    first = srcad.grad(base)
    second = srcad.grad(srcad.value_and_grad(base))  # value_and_grad copied base's __dict__
    assert second is not srcad.grad(first)


def test_decorated_gradient_keeps_wrapped_for_users():
    @srcad.grad
    def gradient(x):
        return x ** 4

    assert gradient.__wrapped__(2.0) == 16.0
    assert gradient(2.0) == pytest.approx(32.0)
    assert srcad.grad(gradient)(2.0) == pytest.approx(48.0)


# ------------------------------------------------------------ arguments (w9, c11)


def applies(f, x):
    return f(x) ** 2


def scaled(x, label):
    return x * 2.0


@pytest.mark.parametrize("value, described", [
    (np.sin, "a function"), ("abc", "a string"), (None, "None"), (True, "a bool"),
    (np.array([True, False]), "an array of dtype bool"), (np.array(["a"]), "dtype <U1")])
def test_nondifferentiable_argument_in_wrt_is_a_located_error(value, described):
    with pytest.raises(NondifferentiableArgumentError) as caught:
        srcad.grad(scaled, wrt=1)(1.0, value)
    error = caught.value
    assert "parameter 'label'" in error.message and described in error.message
    assert error.location.filename == __file__
    assert error.location.line.strip() == "def scaled(x, label):"
    assert error.location.col == error.location.line.index("label")
    assert isinstance(error, InvalidArgumentError)


def test_callable_argument_in_wrt_is_rejected_even_after_a_good_call():
    gradient = srcad.grad(applies, wrt=0)
    with pytest.raises(NondifferentiableArgumentError, match="parameter 'f'"):
        gradient(np.sin, 0.5)
    assert srcad.grad(scaled)(1.0, "kept") == 2.0
    with pytest.raises(NondifferentiableArgumentError, match="parameter 'x'.*a string"):
        srcad.grad(scaled)("abc", "kept")


def test_string_argument_held_constant_is_fine():
    assert srcad.grad(scaled)(1.5, "label") == 2.0
    assert srcad.grad(scaled)(3, "label") == 2.0  # an int is a number: its gradient a float


def test_nondifferentiable_arguments_in_other_modes():
    with pytest.raises(NondifferentiableArgumentError):
        srcad.jvp(scaled, (1.0, "a"), (None, 1.0))
    with pytest.raises(NondifferentiableArgumentError):
        srcad.jacobian(scaled, wrt=1)(1.0, "a")
    with pytest.raises(NondifferentiableArgumentError):
        srcad.hessian(scaled, wrt=1)(1.0, "a")
    out, vjp_fn = srcad.vjp(scaled, 1.5, "a")
    assert out == 3.0
    assert vjp_fn(1.0) == (2.0, None)  # no cotangent for a string


# ------------------------------------------------------------ bound methods (c10)


def test_jacobian_hvp_hessian_of_bound_methods():
    w = np.array([0.5, -0.2, 0.9])
    gradient = srcad.grad(MODEL.loss)
    expected = numeric_jacobian(MODEL.out, w)
    assert_close(srcad.jacobian(MODEL.out)(w), expected)
    assert_close(srcad.jacobian(MODEL.out, mode="forward")(w), expected)
    assert_close(srcad.jacobian(MODEL.out, wrt="w")(w), expected)
    hessian = numeric_jacobian(gradient, w)
    assert_close(srcad.hvp(MODEL.loss)(w, V), hessian @ V)
    assert_close(srcad.hessian(MODEL.loss)(w), hessian)
    assert_close(srcad.hessian(MODEL.loss, wrt="w")(w=w), hessian)


# ------------------------------------------------------------ defaulted parameters (c12)


def with_default(x, scale=2.0):
    return np.sin(x) * scale ** 2


def test_defaulted_parameter_left_out_in_every_mode():
    x = 0.7
    derivative = np.cos(x) * 4.0
    assert srcad.grad(with_default)(x) == pytest.approx(derivative)
    assert srcad.jvp(with_default, (x,), (1.0,)) == pytest.approx((np.sin(x) * 4.0, derivative))
    out, vjp_fn = srcad.vjp(with_default, x)
    assert vjp_fn(1.0) == pytest.approx((derivative,))  # one cotangent per primal given
    assert srcad.jacobian(with_default)(x) == pytest.approx(derivative)
    assert srcad.jacobian(with_default, mode="forward")(x) == pytest.approx(derivative)
    assert srcad.hvp(with_default)(x, 1.0) == pytest.approx(-np.sin(x) * 4.0)
    assert srcad.hessian(with_default)(x) == pytest.approx(-np.sin(x) * 4.0)


def test_keywords_and_derivatives_at_a_default():
    x = 0.7
    assert srcad.jacobian(with_default)(x, scale=3.0) == pytest.approx(np.cos(x) * 9.0)
    assert srcad.hessian(with_default)(x, scale=3.0) == pytest.approx(-np.sin(x) * 9.0)
    assert srcad.hvp(with_default)(x, 2.0, scale=3.0) == pytest.approx(-np.sin(x) * 18.0)
    # with respect to the defaulted parameter, at its default: d/dscale = 2 scale sin(x)
    assert srcad.jacobian(with_default, wrt="scale")(x) == pytest.approx(4.0 * np.sin(x))
    assert srcad.jvp(with_default, (x, 2.0), (None, 1.0))[1] == pytest.approx(4.0 * np.sin(x))
    assert srcad.vjp(with_default, x, 2.0)[1](1.0) == pytest.approx(
        (np.cos(x) * 4.0, 4.0 * np.sin(x)))


DOCUMENTED_ERROR = """\
{path}:5:9: error: cannot differentiate with respect to parameter 'f': its argument is a function (sin), not a number or a numeric array
    def loss(f, x):
             ^
Leave 'f' out of wrt (it is then held constant), or pass a number or an array."""


def test_nondifferentiable_argument_error_as_docs_api_shows_it(tmp_path):
    path = tmp_path / "nt.py"
    path.write_text("import numpy as np\n\n\n# the loss of f at x\ndef loss(f, x):\n"
                    "    return f(x) ** 2\n")
    namespace = {"__name__": "nt"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(NondifferentiableArgumentError) as caught:
        srcad.grad(namespace["loss"])(np.sin, 0.5)
    assert str(caught.value) == DOCUMENTED_ERROR.format(path=path)


def sine_loop(a):
    s = 0.0
    for i in range(3):
        s = s + np.sin(a * 2.0 + i)
    return s * a


sine_loop_gradient = srcad.grad(sine_loop)


def loop_gradient_in_a_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + sine_loop_gradient(x[i]) ** 2
    return total


def test_gradient_with_a_tape_called_inside_a_loop():
    assert_close(srcad.grad(loop_gradient_in_a_loop)(X),
                 numeric_grad(loop_gradient_in_a_loop, (X,), 0))
