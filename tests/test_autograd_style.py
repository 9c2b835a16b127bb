"""Programs in the style of autograd's examples (tests/autograd_style_programs.py), checked.

Issue 11 was found by running autograd's example scripts through srcad. These
are our own small models written the same way; each is checked in every mode:
the gradient (same structure as the parameters) against central finite
differences, jvp against the gradient (dot-product test), hvp against finite
differences of the gradient, and ``optimize=False`` agreeing with the default.
A few are trained by gradient descent for some steps to show the loss falls.
"""

import itertools
import zlib

import numpy as np
import pytest

import srcad
from tests import autograd_style_programs as programs
from tests.test_container_arguments import (
    _along,
    _assert_trees_equal,
    assert_matches,
    assert_same_structure,
    at,
    inner,
    leaves,
    numeric_gradient,
    random_tangent,
)

RS = np.random.RandomState(zlib.crc32(b"autograd style programs"))


def normal(*shape):
    return RS.randn(*shape)


def one_hot(labels, classes):
    return np.eye(classes)[labels]


INPUTS = normal(5, 3)
TARGETS = one_hot(np.array([0, 1, 2, 1, 0]), 3)


def rnn_params(hidden, vocabulary):
    return {"Wxh": 0.5 * normal(hidden, vocabulary), "Whh": 0.5 * normal(hidden, hidden),
            "bh": normal(hidden), "Why": normal(vocabulary, hidden), "by": normal(vocabulary)}


MODEL = programs.LogisticModel(INPUTS, np.array([0.0, 1.0, 1.0, 0.0, 1.0]), 2.0)

CASES = [  # (name, function, args, wrt)
    ("mlp_list_of_layers", programs.mlp_loss,
     (programs.init_mlp([3, 4, 3], 0.5, RS), INPUTS, TARGETS), 0),
    ("mlp_dict_of_params", programs.dict_mlp_loss,
     ({"W1": normal(3, 4), "b1": normal(4), "W2": normal(4, 4), "b2": normal(4),
       "W3": normal(4, 3), "b3": normal(3)}, INPUTS, TARGETS), 0),
    ("rnn_one_hot_list", programs.rnn_loss, (rnn_params(3, 4), [0, 2, 1, 3, 2], 4), 0),
    ("rnn_one_hot_matrix", programs.rnn_loss_2d_onehot,
     (rnn_params(3, 4), [1, 0, 3, 3, 2], 4), 0),
    ("lstm", programs.lstm_loss,
     ({"W": 0.5 * normal(12, 5), "b": normal(12), "Wout": normal(2, 3)}, normal(4, 2),
      normal(4, 2)), 0),
    ("gaussian_process", programs.gp_negative_log_marginal_likelihood,
     (np.array([0.1, 0.2, -1.0]), np.linspace(-1.0, 1.0, 4), normal(4)), 0),
    ("mixture_of_gaussians", programs.mixture_log_likelihood,
     (0.5 * normal(10), normal(6, 2), 2), 0),
    ("mixture_flattened_by_comprehension", programs.mixture_from_parts,
     ((0.3 * normal(2), normal(2, 2), 0.3 * normal(2, 2)), normal(6, 2)), 0),
    ("black_box_vi", programs.elbo, (0.3 * normal(4), normal(5, 2)), 0),
    ("diffusion_1d", programs.diffusion_mismatch, (normal(6), 0.3, normal(6)), (0, 1)),
    ("smoke_2d", programs.smoke_2d, (normal(4, 5), normal(4, 5)), 0),
    ("builder_returns_lambda", programs.make_regression_objective(INPUTS, normal(5), 0.5),
     ([normal(3, 4), normal(4), normal(4)],), 0),
    ("bound_method", MODEL.negative_log_posterior, (normal(3),), 0),
    ("prints_asserts_comprehension", programs.training_objective,
     (normal(3), INPUTS, normal(5), 3), 0),
    ("output_of_shape_one", programs.loss_of_shape_one, (normal(3, 1), INPUTS, normal(5, 1)),
     0),
    ("dropout_mask", programs.dropout_network, (normal(3, 4), INPUTS, 0.7), 0),
    ("hidden_markov_model", programs.hmm_log_likelihood,
     (normal(3, 3), normal(3), normal(3, 4), [0, 3, 1, 2, 2]), (0, 1, 2)),
    ("variational_autoencoder", programs.vae_lower_bound,
     (([(0.5 * normal(4, 3), normal(3)), (0.5 * normal(3, 4), normal(4))],
       [(0.5 * normal(2, 3), normal(3)), (0.5 * normal(3, 4), normal(4))]),
      (RS.rand(5, 4) > 0.5).astype(float), normal(5, 2)), 0),
    ("neural_ode_rk4", programs.ode_fit, (normal(2, 2), normal(2), normal(4, 2)), (0, 1)),
    ("bayesian_nn_flat_vector", programs.bnn_log_posterior,
     (0.5 * normal(3 * 4 + 4 + 4 + 1), INPUTS, normal(5, 1), [3, 4, 1], 0.5), 0),
    ("nested_augmented_write", programs.softmax_cross_entropy_by_hand,
     (normal(3, 3), INPUTS, [0, 2, 1, 1, 0]), 0),
    ("matrix_accumulation_in_loops", programs.pairwise_energy, (normal(3, 2), normal(3)),
     (0, 1)),
    ("enumerate_zip_targets", programs.paired_residuals, (normal(4), normal(4)), (0, 1)),
    ("closure_called_at_once", programs.closure_called_at_once, (normal(3),), 0),
    ("activation_passed_as_argument", programs.regression_with_passed_activation,
     ([(normal(3, 2), normal(2)), (normal(2, 1), normal(1))], INPUTS, normal(5)), 0),
    ("partial_made_inside", programs.penalty_by_partial_made_inside,
     ([normal(2, 2), normal(3)],), 0),
    ("relu_by_boolean_mask", programs.relu_by_mask_layer, (normal(3, 4), INPUTS), 0),
    ("preallocated_outputs", programs.preallocated_outputs, (normal(3, 2), normal(4, 3)), 0),
    ("rows_normalized_in_place", programs.normalize_rows_in_place, (normal(3, 4),), 0),
    ("matrix_product_by_loops", programs.matrix_product_by_loops, (normal(3, 3),), 0),
    ("convolve_and_max_pool", programs.convolve_and_pool, (normal(3), normal(7)), (0, 1)),
    ("newton_while_loop", programs.newton_square_roots, (np.array([1.5, 2.0, 3.0]),), 0),
    ("hidden_state_history", programs.hidden_state_history, (normal(3), normal(3)), (0, 1)),
    ("nested_dict_params_and_prints", programs.nested_dict_autoencoder,
     ({"encoder": {"W": normal(2, 3), "b": normal(3)}, "decoder": {"W": normal(3, 2)}},
      normal(4, 2)), 0),
    ("diagonal_writes_in_a_loop", programs.diagonal_writes_in_a_loop, (normal(3),), 0),
    ("dict_copied_by_unpacking", programs.overridden_entries, ({"w": normal(3), "b": 0.7},),
     0),
]


CASES = [case if hasattr(case, "values") else pytest.param(*case, id=case[0])
         for case in CASES]
CASES = [pytest.param(*case.values, marks=case.marks, id=case.values[0]) for case in CASES]

HVP_CASES = CASES


def _positions(wrt):
    return wrt if isinstance(wrt, tuple) else (wrt,)


def as_scalar(function):
    """The function with its (1,)-shaped or scalar output as a float, for differences."""
    return lambda *args: float(np.sum(function(*args)))


# Programs whose generic code (optimize=False: made for arguments of any kind) refuses a
# write the code specialized for the arguments' kinds follows. None is left: the last one,
# diagonal_writes_in_a_loop, was refused while a comprehension's list was taken to hold
# itself (propagate_writes); an array's element stores a copy of what is put there.
GENERIC_CODE_REFUSES: frozenset = frozenset()


def without_optimizations(name, run):
    """run(), or for GENERIC_CODE_REFUSES the AliasedWriteError it raises (then None)."""
    if name not in GENERIC_CODE_REFUSES:
        return run()
    with pytest.raises(srcad.errors.AliasedWriteError):
        run()
    return None


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
@pytest.mark.parametrize("name, function, args, wrt", CASES)
def test_gradient_matches_finite_differences(name, function, args, wrt, optimize):
    if not optimize and name in GENERIC_CODE_REFUSES:
        without_optimizations(name, lambda: srcad.grad(function, wrt=wrt, optimize=False)(*args))
        return
    value, gradients = srcad.value_and_grad(function, wrt=wrt, optimize=optimize)(*args)
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    if not isinstance(wrt, tuple):
        gradients = (gradients,)
    for position, gradient in zip(_positions(wrt), gradients):
        assert_same_structure(gradient, args[position])
        assert_matches(gradient, numeric_gradient(as_scalar(function), args, position))


@pytest.mark.parametrize("name, function, args, wrt", CASES)
def test_forward_agrees_with_reverse(name, function, args, wrt):
    """Dot-product test: jvp along t equals <grad, t>, with and without optimizations."""
    rng = np.random.default_rng(zlib.crc32(("jvp " + name).encode()))
    tangents = [None] * len(args)
    for position in _positions(wrt):
        tangents[position] = random_tangent(args[position], rng)
    output, tangent = srcad.jvp(function, args, tangents)
    np.testing.assert_allclose(output, function(*args), rtol=1e-12)
    gradients = srcad.grad(function, wrt=_positions(wrt))(*args)
    expected = sum(inner(tangents[p], g) for p, g in zip(_positions(wrt), gradients))
    assert float(np.sum(tangent)) == pytest.approx(expected, rel=1e-8, abs=1e-10)
    plain = without_optimizations(name, lambda: srcad.jvp(function, args, tangents,
                                                           optimize=False)[1])
    if plain is not None:
        np.testing.assert_allclose(plain, tangent, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name, function, args, wrt", HVP_CASES)
def test_hvp_matches_differences_of_the_gradient(name, function, args, wrt):
    position = _positions(wrt)[0]
    direction = random_tangent(args[position], np.random.default_rng(zlib.crc32(name.encode())))
    product = srcad.hvp(function, wrt=position)(*args, direction)
    assert_same_structure(product, args[position])
    gradient = srcad.grad(function, wrt=position)
    shifted = []
    for sign in (1.0, -1.0):
        moved = list(args)
        moved[position] = _along(args[position], direction, sign * 1e-5)
        shifted.append(gradient(*moved))
    expected = [(path, (np.asarray(g) - np.asarray(at(shifted[1], path))) / 2e-5)
                for path, g in leaves(shifted[0])]
    assert_matches(product, expected, rtol=1e-4, atol=1e-6)
    plain = without_optimizations(name, lambda: srcad.hvp(function, wrt=position,
                                                          optimize=False)(*args, direction))
    if plain is not None:
        _assert_trees_equal(plain, product, rtol=1e-10)


# ------------------------------------------------- training runs, as the examples do


def sgd(objective, params, rate, steps):
    """Plain gradient descent on a pytree of parameters; the losses seen on the way."""
    value_and_gradient = srcad.value_and_grad(objective)
    losses = []
    for _ in range(steps):
        loss, gradient = value_and_gradient(params)
        losses.append(float(np.sum(loss)))
        params = _along(params, gradient, -rate)
    return params, losses


def test_mlp_training_lowers_the_loss_and_learns_the_labels():
    rs = np.random.RandomState(zlib.crc32(b"mlp training"))
    inputs = rs.randn(20, 2)
    labels = (inputs[:, 0] * inputs[:, 1] > 0).astype(int)
    targets = one_hot(labels, 2)
    params = programs.init_mlp([2, 8, 2], 0.5, rs)
    params, losses = sgd(lambda p: programs.mlp_loss(p, inputs, targets), params, 0.5, 60)
    assert losses[-1] < 0.6 * losses[0]
    assert all(later < earlier + 1e-9 for earlier, later in itertools.pairwise(losses))
    assert programs.mlp_accuracy(params, inputs, targets) >= 0.8
    assert isinstance(params, list) and all(isinstance(layer, tuple) for layer in params)


def test_rnn_training_lowers_the_loss():
    params = rnn_params(4, 3)
    text = [0, 1, 2, 0, 1, 2, 0, 1]
    _, losses = sgd(lambda p: programs.rnn_loss(p, text, 3), params, 0.1, 15)
    assert losses[-1] < 0.8 * losses[0]


def test_mixture_fit_raises_the_likelihood():
    rs = np.random.RandomState(zlib.crc32(b"mixture fit"))
    data = np.concatenate((rs.randn(10, 2) - 2.0, rs.randn(10, 2) + 2.0))
    flat = programs.flatten_mixture(np.zeros(2), 0.5 * rs.randn(2, 2), np.zeros((2, 2)))
    _, losses = sgd(lambda p: -programs.mixture_log_likelihood(p, data, 2), flat, 0.01, 20)
    assert losses[-1] < losses[0] - 5.0


def test_the_progress_line_prints_once_per_gradient_call(capsys):
    weights, targets = normal(3), normal(5)
    srcad.grad(programs.training_objective)(weights, INPUTS, targets, 7)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 1 and printed[0].startswith("iteration 7: loss ")


def test_a_failed_assert_still_raises_in_the_gradient():
    with pytest.raises(AssertionError, match="weights do not match"):
        srcad.grad(programs.training_objective)(normal(4), INPUTS, normal(5), 0)


def _weighted_by_key(params):
    total = 0.0
    for key in params:
        weight = float(key.startswith("W"))
        total = total + weight * np.sum(params[key] ** 2)
    return total


def test_a_string_method_of_a_dict_key_is_not_differentiated():
    """The minimal program behind the hvp failure of mlp_dict_of_params, at first order."""
    params = {"W1": np.array([1.0, 2.0]), "b": np.array([3.0])}
    gradient = srcad.grad(_weighted_by_key)(params)
    assert_matches(gradient, numeric_gradient(_weighted_by_key, (params,), 0))


def test_third_derivative_of_tanh_through_nested_grad():
    """grad of grad of grad, as autograd's tanh example plots."""
    third = srcad.grad(srcad.grad(srcad.grad(programs.tanh_function)))
    for x in (-0.7, 0.2, 1.1):
        t = np.tanh(x)
        assert third(x) == pytest.approx(-2.0 * (1 - t ** 2) * (1 - 3 * t ** 2), rel=1e-10)
