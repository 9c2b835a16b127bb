"""Small programs written the way autograd's example scripts are written.

Each is what a scientist would type to fit a model: parameters in lists of
``(W, b)`` tuples or dicts, hand-written log-sum-exp, loops over time steps,
one-hot inputs built by element writes, a builder returning a lambda, a model
class, progress prints and asserts. tests/test_autograd_style.py checks each
against finite differences in every mode. NumPy functions srcad has no
template for yet (issue 12: ``np.linalg.solve``, ``np.linalg.slogdet``,
``scipy.special.logsumexp``) are written out by hand here, as noted.
"""

import functools

import numpy as np

# ------------------------------------------------------------------ shared pieces


def logsumexp(a, axis=None):
    """log(sum(exp(a))) along ``axis``, shifted by the maximum for stability."""
    biggest = np.max(a, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(a - biggest), axis=axis, keepdims=True)) + biggest


def sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


def log_softmax(logits):
    return logits - logsumexp(logits, axis=1)


# ------------------------------------------- 1. MLP classifier, list of (W, b) layers


def mlp_predict(params, inputs):
    """Log class probabilities; params is a list of (weights, biases) per layer."""
    activations = inputs
    for W, b in params[:-1]:
        activations = np.tanh(np.dot(activations, W) + b)
    W_out, b_out = params[-1]
    return log_softmax(np.dot(activations, W_out) + b_out)


def mlp_loss(params, inputs, targets, l2=0.01):
    log_prior = -l2 * sum(np.sum(W ** 2) for W, b in params)
    log_likelihood = np.sum(mlp_predict(params, inputs) * targets)
    return -(log_prior + log_likelihood) / inputs.shape[0]


def mlp_accuracy(params, inputs, targets):
    return np.mean(np.argmax(mlp_predict(params, inputs), axis=1) == np.argmax(targets, axis=1))


def init_mlp(layer_sizes, scale, rs):
    return [(scale * rs.randn(m, n), scale * rs.randn(n))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]  # noqa: RUF007


# --------------------------------------------------- 2. the same with a dict of params


def dict_mlp_loss(params, inputs, targets):
    hidden = np.maximum(0.0, inputs @ params["W1"] + params["b1"])
    hidden = np.tanh(hidden @ params["W2"] + params["b2"])
    logits = hidden @ params["W3"] + params["b3"]
    penalty = 1e-3 * sum(np.sum(value ** 2) for key, value in params.items()
                         if key.startswith("W"))
    return -np.mean(np.sum(log_softmax(logits) * targets, axis=1)) + penalty


# -------------------------------------------- 3. character RNN with one-hot inputs


def rnn_loss(params, text, vocabulary_size):
    """Cross-entropy of predicting each next character; one-hot rows written in place."""
    steps = len(text) - 1
    xs = [np.zeros(vocabulary_size) for t in range(steps)]
    for t in range(steps):
        xs[t][text[t]] = 1.0
    hidden = np.zeros(params["Whh"].shape[0])
    loss = 0.0
    for t in range(steps):
        hidden = np.tanh(params["Wxh"] @ xs[t] + params["Whh"] @ hidden + params["bh"])
        scores = params["Why"] @ hidden + params["by"]
        shifted = scores - np.max(scores)
        log_probs = shifted - np.log(np.sum(np.exp(shifted)))
        loss -= log_probs[text[t + 1]]
    return loss / steps


def rnn_loss_2d_onehot(params, text, vocabulary_size):
    """The one-hot matrix built with ``inputs[t][text[t]] = 1`` on a 2-D array."""
    steps = len(text) - 1
    inputs = np.zeros((steps, vocabulary_size))
    for t in range(steps):
        inputs[t][text[t]] = 1.0
    hidden = np.zeros(params["Whh"].shape[0])
    loss = 0.0
    for t in range(steps):
        hidden = np.tanh(params["Wxh"] @ inputs[t] + params["Whh"] @ hidden + params["bh"])
        scores = params["Why"] @ hidden + params["by"]
        loss = loss - (scores[text[t + 1]] - logsumexp(scores)[0])
    return loss / steps


# ----------------------------------------------------------------- 4. LSTM steps


def lstm_step(params, hidden, cell, x):
    stacked = np.concatenate((x, hidden))
    size = hidden.shape[0]
    gates = params["W"] @ stacked + params["b"]
    forget = sigmoid(gates[:size])
    ingate = sigmoid(gates[size:2 * size])
    outgate = sigmoid(gates[2 * size:3 * size])
    change = np.tanh(gates[3 * size:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_loss(params, sequence, targets):
    size = params["b"].shape[0] // 4
    hidden = np.zeros(size)
    cell = np.zeros(size)
    outputs = []
    for x in sequence:
        hidden, cell = lstm_step(params, hidden, cell, x)
        outputs.append(params["Wout"] @ hidden)
    predictions = np.stack(outputs)
    return np.sum((predictions - targets) ** 2)


# ------------------------------------------- 5. Gaussian process marginal likelihood


def rbf_covariance(log_length, log_amplitude, a, b):
    distances = (a[:, None] - b[None, :]) / np.exp(log_length)
    return np.exp(log_amplitude) * np.exp(-0.5 * distances ** 2)


def cholesky(K):
    """Lower-triangular L with L @ L.T == K, by the textbook loops (np.linalg.cholesky
    has no srcad template yet)."""
    n = K.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        L[j, j] = np.sqrt(K[j, j] - np.sum(L[j, :j] ** 2))
        for i in range(j + 1, n):
            L[i, j] = (K[i, j] - np.sum(L[i, :j] * L[j, :j])) / L[j, j]
    return L


def forward_substitution(L, y):
    n = y.shape[0]
    z = np.zeros(n)
    for i in range(n):
        z[i] = (y[i] - np.dot(L[i, :i], z[:i])) / L[i, i]
    return z


def gp_negative_log_marginal_likelihood(hyperparameters, x, y):
    log_length, log_amplitude, log_noise = hyperparameters
    K = rbf_covariance(log_length, log_amplitude, x, x) + np.exp(log_noise) * np.eye(len(x))
    L = cholesky(K)
    alpha = forward_substitution(L, y)
    # np.diag has no srcad template yet (issue 12): the diagonal by a comprehension.
    log_determinant = 2.0 * sum(np.log(L[i, i]) for i in range(len(x)))
    return 0.5 * np.dot(alpha, alpha) + 0.5 * log_determinant + 0.5 * len(x) * np.log(2 * np.pi)


# ------------------------------------------------- 6. mixture of Gaussians, flat params


def unpack_mixture(flat, components, dimension):
    log_weights = flat[:components]
    means = np.reshape(flat[components:components + components * dimension],
                       (components, dimension))
    log_stds = np.reshape(flat[components + components * dimension:], (components, dimension))
    return log_weights, means, log_stds


def mixture_log_likelihood(flat, data, components):
    dimension = data.shape[1]
    log_weights, means, log_stds = unpack_mixture(flat, components, dimension)
    log_weights = log_weights - logsumexp(log_weights)
    per_component = []
    for k in range(components):
        z = (data - means[k]) / np.exp(log_stds[k])
        per_component.append(log_weights[k] - np.sum(log_stds[k])
                             - 0.5 * np.sum(z ** 2, axis=1)
                             - 0.5 * dimension * np.log(2 * np.pi))
    stacked = np.stack(per_component, axis=1)
    return np.sum(logsumexp(stacked, axis=1))


def flatten_mixture(log_weights, means, log_stds):
    return np.concatenate([np.ravel(part) for part in (log_weights, means, log_stds)])


# ------------------------------------------- 7. black-box variational inference


def log_density(samples):
    """An unnormalized banana-shaped target density over 2-D points (one per row)."""
    first, second = samples[:, 0], samples[:, 1]
    return -0.5 * first ** 2 / 4.0 - 0.5 * (second - 0.5 * first ** 2) ** 2


def elbo(variational_params, noise):
    """Reparameterized ELBO estimate; ``noise`` is a fixed standard-normal sample."""
    mean, log_std = variational_params[:2], variational_params[2:]
    samples = noise * np.exp(log_std) + mean
    entropy = np.sum(log_std) + 0.5 * len(mean) * (1.0 + np.log(2 * np.pi))
    return -(np.mean(log_density(samples)) + entropy)


# --------------------------------------------------- 8. diffusion with periodic rolls


def roll_left(field):
    return np.concatenate((field[1:], field[:1]), axis=0)


def roll_right(field):
    return np.concatenate((field[-1:], field[:-1]), axis=0)


def diffuse_and_advect(initial, velocity, rate, steps):
    field = initial
    step = 0
    while step < steps:
        laplacian = roll_left(field) + roll_right(field) - 2.0 * field
        gradient = 0.5 * (roll_left(field) - roll_right(field))
        field = field + rate * laplacian - velocity * gradient
        step += 1
    return field


def diffusion_mismatch(initial, velocity, target):
    final = diffuse_and_advect(initial, velocity, 0.2, 6)
    return np.sum((final - target) ** 2)


def smoke_2d(density, target):
    """A 2-D grid smoothed by rolls along both axes (slices), a fixed number of times."""
    d = density
    t = 0
    while t < 3:
        up = np.concatenate((d[1:, :], d[:1, :]), axis=0)
        down = np.concatenate((d[-1:, :], d[:-1, :]), axis=0)
        left = np.concatenate((d[:, 1:], d[:, :1]), axis=1)
        right = np.concatenate((d[:, -1:], d[:, :-1]), axis=1)
        d = 0.6 * d + 0.1 * (up + down + left + right)
        t = t + 1
    return np.mean((d - target) ** 2)


# ---------------------------------------- 9. a builder returning a lambda over params


def make_regression_objective(inputs, targets, noise_scale):
    def predict(params, x):
        hidden = np.tanh(x @ params[0] + params[1])
        return hidden @ params[2]

    def loss(params, x, y):
        residuals = (predict(params, x) - y) / noise_scale
        return 0.5 * np.sum(residuals ** 2) + 0.01 * sum(np.sum(p ** 2) for p in params)

    return lambda params: loss(params, inputs, targets)


# ------------------------------------------------- 10. a model class with methods


class LogisticModel:
    def __init__(self, inputs, labels, prior_scale):
        self.inputs = inputs
        self.labels = labels
        self.prior_scale = prior_scale

    def predict(self, weights, x):
        return sigmoid(x @ weights)

    def negative_log_posterior(self, weights):
        probabilities = self.predict(weights, self.inputs)
        likelihood = self.labels * np.log(probabilities) + (1 - self.labels) * np.log(
            1 - probabilities)
        return -np.sum(likelihood) + np.sum(weights ** 2) / (2 * self.prior_scale ** 2)


# --------------------- 11. notebook habits: prints, asserts, comprehensions, (1,) output


def training_objective(weights, inputs, targets, iteration):
    assert inputs.shape[1] == weights.shape[0], "weights do not match the inputs"
    predictions = inputs @ weights
    errors = [(p - t) ** 2 for p, t in zip(predictions, targets)]
    loss = sum(errors) / len(errors)
    print(f"iteration {iteration}: loss {loss:.4f}")
    return loss


def loss_of_shape_one(weights, inputs, targets):
    """Returns an array of shape (1,): inputs (n, d) @ weights (d, 1) -> residuals (n, 1)."""
    residuals = inputs @ weights - targets
    return np.sum(residuals ** 2, axis=0) / len(targets)


def dropout_network(weights, inputs, keep):
    """Dropout with a fixed random mask: the mask is not differentiated."""
    rs = np.random.RandomState(0)
    hidden = np.tanh(inputs @ weights)
    mask = rs.rand(*hidden.shape) < keep
    return np.sum((hidden * mask / keep) ** 2)


# ---------------------------------------------------- 12. hidden Markov model, forward


def hmm_log_likelihood(log_transitions, log_initial, log_emissions, observations):
    """Forward algorithm in log space; transition rows normalized inside."""
    transitions = log_transitions - logsumexp(log_transitions, axis=1)
    alpha = log_initial - logsumexp(log_initial) + log_emissions[:, observations[0]]
    for observation in observations[1:]:
        alpha = logsumexp(alpha[:, None] + transitions, axis=0)[0] + log_emissions[:, observation]
    return logsumexp(alpha)[0]


# ------------------------------ 13. variational autoencoder, noise passed as an argument


def neural_net(layers, inputs):
    for W, b in layers[:-1]:
        inputs = np.tanh(inputs @ W + b)
    W, b = layers[-1]
    return inputs @ W + b


def vae_lower_bound(params, data, noise):
    encoder, decoder = params
    encoded = neural_net(encoder, data)
    latent_size = noise.shape[1]
    mean, log_std = encoded[:, :latent_size], encoded[:, latent_size:]
    latents = mean + np.exp(log_std) * noise
    logits = neural_net(decoder, latents)
    # log(1 + exp(logits)), stably (np.logaddexp has no srcad template yet: issue 12)
    softplus = np.maximum(logits, 0.0) + np.log1p(np.exp(-np.abs(logits)))
    log_likelihood = np.sum(data * logits - softplus)
    kl = 0.5 * np.sum(np.exp(2 * log_std) + mean ** 2 - 1.0 - 2 * log_std)
    return -(log_likelihood - kl) / data.shape[0]


# ------------------------------------------ 14. a neural ODE integrated with RK4 steps


def dynamics(state, weights):
    return np.tanh(weights @ state) - 0.1 * state


def integrate_rk4(initial, weights, step_size, steps):
    state = initial
    trajectory = [state]
    for _ in range(steps):
        k1 = dynamics(state, weights)
        k2 = dynamics(state + 0.5 * step_size * k1, weights)
        k3 = dynamics(state + 0.5 * step_size * k2, weights)
        k4 = dynamics(state + step_size * k3, weights)
        state = state + step_size / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        trajectory.append(state)
    return np.array(trajectory)


def ode_fit(weights, initial, observed):
    predicted = integrate_rk4(initial, weights, 0.1, len(observed) - 1)
    return np.mean((predicted - observed) ** 2)


# ------------- 15. Bayesian neural net: weights unpacked from one flat vector by shapes


def layer_shapes(sizes):
    return [(m, n) for m, n in zip(sizes[:-1], sizes[1:])]  # noqa: RUF007 (as written in notebooks)


def unflatten(flat, sizes):
    layers = []
    start = 0
    for m, n in layer_shapes(sizes):
        W = np.reshape(flat[start:start + m * n], (m, n))
        start += m * n
        b = flat[start:start + n]
        start += n
        layers.append((W, b))
    return layers


def bnn_log_posterior(flat, inputs, targets, sizes, noise_variance):
    layers = unflatten(flat, sizes)
    predictions = neural_net(layers, inputs)
    log_prior = -0.5 * np.sum(flat ** 2)
    log_likelihood = -0.5 * np.sum((predictions - targets) ** 2) / noise_variance
    return log_prior + log_likelihood


# -------------------------------------- 16. hand-written softmax regression pieces


def softmax_cross_entropy_by_hand(weights, inputs, labels):
    """Scores, then probabilities, then a gradient-style residual with ``delta[i][y[i]] -= 1``
    (as in hand-written backprop code), whose squared norm is the loss."""
    scores = inputs @ weights
    shifted = scores - np.max(scores, axis=1, keepdims=True)
    probabilities = np.exp(shifted) / np.sum(np.exp(shifted), axis=1, keepdims=True)
    delta = probabilities.copy()
    for i in range(len(labels)):
        delta[i][labels[i]] -= 1.0
    return np.sum(delta ** 2)


def pairwise_energy(points, strengths):
    """An energy accumulated into a matrix with ``y[i, j] += v`` inside loops."""
    n = points.shape[0]
    energy = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                energy[i, j] += strengths[i] * strengths[j] / (
                    1.0 + np.sum((points[i] - points[j]) ** 2))
    return np.sum(energy)


def paired_residuals(predictions, targets):
    """``for i, (p, t) in enumerate(zip(...))``: later pairs weigh more."""
    total = 0.0
    for i, (p, t) in enumerate(zip(predictions, targets)):
        total = total + (i + 1) * (p - t) ** 2
    return total


def make_scaled_loss(scale):
    def loss(weights):
        return scale * np.sum(np.sin(weights) ** 2)
    return loss


def closure_called_at_once(weights):
    return make_scaled_loss(2.0)(weights) + make_scaled_loss(0.5)(weights ** 2)


def tanh_function(x):
    return np.tanh(x)


# ------------------------------------- 17. notebook idioms: in-place array code and more


def relu_by_mask_layer(W, inputs):
    hidden = inputs @ W
    hidden[hidden < 0] = 0.0
    return np.sum(hidden ** 2)


def preallocated_outputs(W, inputs):
    outputs = np.zeros((inputs.shape[0], W.shape[1]))
    for i in range(inputs.shape[0]):
        outputs[i] = np.tanh(inputs[i] @ W)
    return np.sum(outputs ** 2)


def normalize_rows_in_place(scores):
    weights = np.exp(scores)
    for i in range(weights.shape[0]):
        weights[i] /= np.sum(weights[i])
    return np.sum(weights * np.arange(weights.shape[1]))


def matrix_product_by_loops(A):
    n = A.shape[0]
    C = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for k in range(n):
                C[i, j] += A[i, k] * A[k, j]
    return np.sum(C * A)


def convolve_and_pool(kernel, signal):
    k = len(kernel)
    responses = np.array([np.dot(kernel, signal[i:i + k]) for i in range(len(signal) - k + 1)])
    pooled = np.zeros(len(responses) // 2)
    for i in range(len(pooled)):
        pooled[i] = max(responses[2 * i], responses[2 * i + 1])
    return np.sum(np.tanh(pooled))


def newton_square_roots(x):
    root = x
    iteration = 0
    while iteration < 5:
        root = 0.5 * (root + x / root)
        iteration += 1
    return np.sum(root)


def hidden_state_history(w, x):
    states = []
    h = x
    for t in range(3):
        h = np.tanh(w * h + 0.1 * t)
        states.append(h)
    return np.sum(np.stack(states)) + np.sum(states[-1] ** 2)


def nested_dict_autoencoder(params, x):
    code = np.tanh(x @ params["encoder"]["W"] + params["encoder"]["b"])
    reconstruction = code @ params["decoder"]["W"]
    loss = np.mean((reconstruction - x) ** 2)
    print("reconstruction error", loss, "%.3f" % loss)  # noqa: UP031 (%-formatting in the primal)
    return loss


def diagonal_writes_in_a_loop(x):
    """One row per step, its own element written: a list of new arrays."""
    rows = [np.zeros(3) for _ in range(2)]
    for t in range(2):
        rows[t][t] = x[t]
    return np.sum(rows[0]) + np.sum(rows[1] * x)


def overridden_entries(params):
    """A dict of parameters copied with one entry changed, by unpacking."""
    scaled = {**params, "w": params["w"] * 2.0}
    return np.sum(scaled["w"] * params["w"]) + scaled["b"] ** 2


def mixture_from_parts(parts, data):
    """The flat vector built by a comprehension over the parts, inside the differentiated code."""
    flat = np.concatenate([np.ravel(part) for part in parts])
    return mixture_log_likelihood(flat, data, parts[0].shape[0])


# --------------------------------------- 18. callables: partial, map, activations passed


def squared_penalty(W, scale):
    return scale * np.sum(W ** 2)


def softplus(z):
    return np.log1p(np.exp(z))


def network_with_activation(params, inputs, activation):
    for W, b in params:
        inputs = activation(inputs @ W + b)
    return inputs


def regression_with_passed_activation(params, inputs, targets):
    predictions = network_with_activation(params, inputs, softplus)[:, 0]
    return np.mean((predictions - targets) ** 2)


def penalty_by_partial_made_inside(weights):
    """A functools.partial made inside the differentiated function, mapped over the weights."""
    l2 = functools.partial(squared_penalty, scale=0.1)
    return sum(map(l2, weights)) + sum(np.sum(np.sin(W)) for W in weights)
