"""Errors srcad raises on purpose: the type, and that the message locates and explains.

Every deliberate error must be an srcad.SrcadError subclass; internal exceptions
(KeyError, AttributeError, AssertionError, NameError, ...) reaching a user are bugs.
"""

import inspect
import os

import numpy as np
import pytest

import srcad
from srcad import errors

# ---- unsupported constructs
# Each function's first line containing its TOKEN (after the def line) is where the
# error must point: the column is where TOKEN starts on that line.


def uses_try(x):
    try:
        y = x * 2.0
    except ValueError:
        y = x
    return y


def uses_with(x):
    with open(os.devnull) as handle:
        y = x * 2.0
    return y


def uses_lambda(x):
    y = [lambda t: t * 2.0][0](x)
    return y


def uses_nested_def(x):
    y = x * 2.0

    def inner(t):
        return t + 1.0
    return inner(y)


COUNTER = 0


def uses_global(x):
    global COUNTER
    return x * 2.0


def uses_yield(x):
    y = x * 2.0
    z = yield y
    return z


def uses_attribute_assignment(x, obj):
    obj.value = x
    return x * 2.0


def uses_del(x):
    y = x * 2.0
    del y
    return x


def uses_mutating_method(x):
    items = [x, 2.0 * x]
    items.reverse()
    return items[0]


def uses_out_argument(x):
    y = np.zeros(3)
    np.multiply(x, 2.0, out=y)
    return np.sum(y)


def uses_import(x):
    import math
    return math.sin(x)


def uses_class(x):
    class Inner:
        pass
    return x * 2.0


def uses_walrus(x):
    y = (z := x * 2.0) + 1.0
    return y + z


def uses_generator_in_a_name(x):
    terms = (x * t for t in range(3))
    return sum(terms)


def uses_generator_expression(x):
    y = np.array(x * t for t in range(3))
    return y[0]


def uses_dict_literal(x):
    table = {1: x}
    return table[1] * 2.0


def uses_starred(x, ys):
    y = [*ys, x]  # (a starred call argument is supported: tests/test_calls_by_value.py)
    return x * np.sum(y[0])


def uses_varargs(x, *rest):
    return x * 2.0


def uses_keyword_only(x, *, scale):
    return x * scale


def uses_no_return(x):
    y = x * 2.0


def uses_bare_return(x):
    y = x * 2.0
    return


def make_nonlocal_user():
    total = 0.0

    def uses_nonlocal(x):
        nonlocal total
        return x * 2.0
    return uses_nonlocal


uses_nonlocal = make_nonlocal_user()


async def uses_async(x):
    return x * 2.0


UNSUPPORTED = [
    # (function, token at the error position, words the message must contain)
    (uses_try, "try:", "`try` statement"),
    (uses_with, "with ", "`with` statement"),
    (uses_lambda, "lambda", "lambda"),
    (uses_global, "global", "`global`"),
    (uses_nonlocal, "nonlocal", "`nonlocal`"),
    (uses_yield, "yield", "`yield`"),
    (uses_attribute_assignment, "obj.value", "attribute"),
    (uses_del, "del ", "`del`"),
    (uses_mutating_method, "items.reverse", "changes its object in place"),
    (uses_out_argument, "y)", "`out=` argument"),
    (uses_import, "import", "`import`"),
    (uses_class, "class", "class definition"),
    (uses_walrus, "z :=", ":="),
    (uses_generator_in_a_name, "(x * t for", "generator expression that is not consumed"),
    # a generator expression that is a call's only argument starts at the call's parenthesis
    (uses_generator_expression, "(x * t for", "generator expression passed to numpy.array"),
    (uses_dict_literal, "{", "dict whose keys are not constant strings"),
    (uses_starred, "*ys", "starred"),
    (uses_varargs, "rest", "*args"),
    (uses_keyword_only, "scale)", "keyword-only"),
    (uses_no_return, "y = x", "without"),
    (uses_bare_return, "return", "`return"),
    (uses_async, "async def", "async"),
]


def _case_id(case):
    function = case.values[0] if hasattr(case, "values") else case[0]
    return function.__name__


def _position_of(function, token):
    """(filename, 1-based line, 0-based column, line text) of ``token`` in function's source."""
    lines, first = inspect.getsourcelines(function)
    for offset, text in enumerate(lines):
        if offset == 0 and not token.startswith("async") and token not in ("rest", "scale)"):
            continue  # the def line itself, unless the token lives in the signature
        if token in text:
            return inspect.getsourcefile(function), first + offset, text.index(token), text
    raise AssertionError("token %r not in %s" % (token, function.__name__))


def _rendered_parts(message):
    header, source_line, caret_line = message.splitlines()[:3]
    return header, source_line, caret_line


@pytest.mark.parametrize("function, token, words", UNSUPPORTED,
                         ids=[_case_id(case) for case in UNSUPPORTED])
def test_unsupported_construct_is_located(function, token, words):
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(function)
    exc = info.value
    assert srcad.SrcadError in type(exc).__mro__
    filename, lineno, col, text = _position_of(function, token)
    assert os.path.samefile(filename, __file__)
    message = str(exc)
    header, source_line, caret_line = _rendered_parts(message)
    assert header.startswith("%s:%d:%d: error: " % (filename, lineno, col)), header
    assert words in header, header
    # the source line, dedented, then a caret under the construct
    indent = len(text) - len(text.lstrip())
    assert source_line == "    " + text.strip()
    assert caret_line == "    " + " " * (col - indent) + "^"
    assert caret_line.index("^") - 4 + indent == col
    assert exc.location.lineno == lineno and exc.location.col == col
    # a hint saying what to do follows the caret
    assert len(message.splitlines()) >= 4 and message.splitlines()[3].strip()


def test_exact_rendered_message_for_try():
    lines, first = inspect.getsourcelines(uses_try)
    lineno = first + 1  # `try:` is the first line of the body
    assert lines[1].strip() == "try:"
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(uses_try)
    expected = (
        "%s:%d:4: error: srcad does not support a `try` statement in a function it "
        "differentiates\n"
        "    try:\n"
        "    ^\n"
        "Move error handling outside the differentiated function."
        % (inspect.getsourcefile(uses_try), lineno)
    )
    assert str(info.value) == expected


def test_exact_rendered_message_for_lambda_caret_mid_line():
    lines, first = inspect.getsourcelines(uses_lambda)
    text = lines[1]
    col = text.index("lambda")
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(uses_lambda)
    expected = (
        "%s:%d:%d: error: srcad does not support a lambda that is not assigned to a name, "
        "passed to a call, called where it is written or returned in a function it "
        "differentiates\n"
        "    y = [lambda t: t * 2.0][0](x)\n"
        "         ^\n"
        "Name it (`square = lambda t: t * t`) and call it by that name."
        % (inspect.getsourcefile(uses_lambda), first + 1, col)
    )
    assert str(info.value) == expected


@pytest.mark.parametrize("entry", [srcad.grad, srcad.value_and_grad, srcad.source])
def test_every_entry_point_fences(entry):
    with pytest.raises(errors.UnsupportedSyntaxError):
        entry(uses_try)


def test_has_aux_needs_a_pair():
    with pytest.raises(errors.UnsupportedSyntaxError, match="return loss, aux"):
        srcad.grad(no_aux, has_aux=True)


def no_aux(x):
    return x * 2.0


# ---- missing templates


def helper_that_cannot_be_inlined(x):
    try:
        return x * 2.0
    except ValueError:
        return x


def calls_helper(x):
    y = helper_that_cannot_be_inlined(x) + 1.0
    return y


def calls_unknown_numpy(x):
    return np.i0(x) * 2.0


def calls_unknown_linalg(x):
    return np.linalg.cond(x)


def calls_argument(x, fn):
    return fn(x)


def test_active_call_to_helper_that_cannot_be_inlined_points_into_the_helper():
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(calls_helper)
    message = str(info.value)
    lines, first = inspect.getsourcelines(helper_that_cannot_be_inlined)
    assert message.startswith("%s:%d:4: error: " % (
        inspect.getsourcefile(helper_that_cannot_be_inlined), first + 1))
    assert "`try` statement" in message


def test_missing_template_for_library_function():
    with pytest.raises(errors.MissingTemplateError) as info:
        srcad.grad(calls_unknown_numpy)(0.5)
    message = str(info.value)
    assert "numpy.i0" in message
    assert "@srcad.adjoint(numpy.i0): a function (result, *args) whose body accumulates " \
        "d[arg] += ... for each argument (docs/templates.md)" in message
    assert "nondifferentiable" in message


def test_missing_template_names_submodule_function_correctly():
    with pytest.raises(errors.MissingTemplateError) as info:
        srcad.grad(calls_unknown_linalg)(np.eye(2))
    assert "numpy.linalg.cond" in str(info.value)


def test_call_through_an_argument_is_resolved_by_its_value():
    # the function passed is part of the specialization key (tests/test_calls_by_value.py)
    assert srcad.grad(calls_argument)(0.5, np.sin) == pytest.approx(np.cos(0.5))


def test_call_through_an_argument_without_a_template_is_a_missing_template_error():
    with pytest.raises(errors.MissingTemplateError) as info:
        srcad.grad(calls_argument)(0.5, np.i0)
    message = str(info.value)
    assert "no gradient template for numpy.i0" in message
    assert "return fn(x)" in message


def test_generic_code_of_a_call_through_an_argument_says_it_needs_the_values():
    with pytest.raises(errors.ValueDependentCallError) as info:
        srcad.grad(calls_argument).source
    message = str(info.value)
    assert "the call to fn" in message and "return fn(x)" in message
    assert "source_for" in message


def test_missing_template_is_reported_at_grad_time_not_call_time():
    # grad() generates the generic code at once, so the error comes before any call
    with pytest.raises(errors.MissingTemplateError):
        srcad.grad(calls_unknown_numpy)


# ---- non-scalar output


def returns_array(x):
    y = x * 2.0
    return y


def test_non_scalar_output():
    with pytest.raises(errors.NonScalarOutputError) as info:
        srcad.grad(returns_array)(np.ones((2, 3)))
    message = str(info.value)
    assert "(2, 3)" in message
    lines, first = inspect.getsourcelines(returns_array)
    return_line = first + 2
    assert lines[2].strip() == "return y"
    assert message.startswith("%s:%d:4: error: " % (inspect.getsourcefile(returns_array),
                                                    return_line))
    assert "    return y\n    ^" in message
    assert "np.sum" in message  # says what to do


def test_non_scalar_output_value_and_grad():
    with pytest.raises(errors.NonScalarOutputError, match=r"\(4,\)"):
        srcad.value_and_grad(returns_array)(np.ones(4))


def test_an_array_holding_one_number_is_a_scalar_output():
    # as autograd takes it; its gradient is the gradient of that number
    x = np.array([0.7])
    gradient = srcad.grad(returns_array)(x)
    assert gradient.shape == (1,)
    np.testing.assert_allclose(gradient, [2.0])  # of y[0] = 2 x[0]
    with pytest.raises(errors.NonScalarOutputError, match=r"\(2,\)"):
        srcad.grad(returns_array)(np.ones(2))


# ---- source unavailable

_exec_namespace = {"np": np}
exec("def made_by_exec(x):\n    return x * 2.0\n", _exec_namespace)
made_by_exec = _exec_namespace["made_by_exec"]


@pytest.mark.parametrize("function", [np.sin, len, print, np.ndarray.sum, made_by_exec],
                         ids=["np.sin", "len", "print", "ndarray.sum", "exec"])
def test_source_unavailable(function):
    with pytest.raises(errors.SourceUnavailableError) as info:
        srcad.grad(function)
    message = str(info.value)
    assert "cannot read the source" in message
    name = getattr(function, "__name__")
    assert name in message


def test_source_unavailable_for_exec_says_to_use_a_file():
    with pytest.raises(errors.SourceUnavailableError, match="file"):
        srcad.grad(made_by_exec)


# ---- bad wrt and options


def two_args(x, y):
    return x * y


@pytest.mark.parametrize("wrt, words", [
    (2, "out of range"),
    (-3, "out of range"),
    (100, "out of range"),
    ("z", "not a parameter"),
    ((0, 5), "out of range"),
    ((0, "nope"), "not a parameter"),
    (1.0, "positions or parameter names"),
    (True, "positions or parameter names"),
    (None, "positions or parameter names"),
    ((0, None), "positions or parameter names"),
    ((), "empty"),
    ((0, 0), "twice"),
    ((1, "y"), "twice"),
])
@pytest.mark.parametrize("entry", [srcad.grad, srcad.value_and_grad, srcad.source])
def test_bad_wrt(entry, wrt, words):
    with pytest.raises(errors.InvalidArgumentError) as info:
        entry(two_args, wrt=wrt)
    assert words in str(info.value)
    assert srcad.SrcadError in type(info.value).__mro__


def test_bad_wrt_message_lists_parameters():
    with pytest.raises(errors.InvalidArgumentError) as info:
        srcad.grad(two_args, wrt="z")
    assert "x, y" in str(info.value)


def test_unknown_option():
    with pytest.raises(errors.InvalidArgumentError, match="frobnicate"):
        srcad.grad(two_args, frobnicate=True)


def test_unknown_mode():
    with pytest.raises(errors.InvalidArgumentError, match="mode"):
        srcad.source(two_args, mode="sideways")


def test_bad_call_arguments_are_a_type_error_like_the_function():
    # binding the gradient's arguments fails as calling f would: a TypeError, not a KeyError
    g = srcad.grad(two_args)
    with pytest.raises(TypeError):
        g(1.0)
    with pytest.raises(TypeError):
        g(1.0, 2.0, 3.0)
    with pytest.raises(TypeError):
        g(1.0, z=2.0)


# ---- no internal exception escapes

ALL_ERROR_CASES = (
    [(uses_async, ())]
    + [(case[0], ()) for case in UNSUPPORTED if not hasattr(case, "values")]
    + [
        (calls_helper, (0.5,)),
        (calls_unknown_numpy, (0.5,)),
        (calls_unknown_linalg, (np.eye(2),)),
        (calls_argument, (0.5, np.i0)),
        (returns_array, (np.ones(3),)),
        (np.sin, ()),
        (len, ()),
        (made_by_exec, ()),
    ]
)


@pytest.mark.parametrize("function, args", ALL_ERROR_CASES,
                         ids=[getattr(c[0], "__name__", "?") for c in ALL_ERROR_CASES])
def test_only_srcad_errors_escape(function, args):
    try:
        srcad.grad(function)(*args)
    except Exception as exc:  # noqa: BLE001 - we want to see exactly what escaped
        mro = type(exc).__mro__
        assert srcad.SrcadError in mro, "internal exception escaped: %r" % (exc,)
        assert isinstance(exc, errors.SrcadError)
        assert str(exc).strip()
    else:
        raise AssertionError("no error for %s" % function)


def test_all_error_classes_derive_from_srcad_error():
    for name in ("UnsupportedSyntaxError", "MissingTemplateError", "TemplateError",
                 "NonScalarOutputError", "SourceUnavailableError", "InvalidArgumentError"):
        assert issubclass(getattr(errors, name), srcad.SrcadError)
    assert srcad.SrcadError is errors.SrcadError
