"""jvp, vjp, jacobian, hessian and hvp: the public functions beyond ``grad``.

Each is a thin wrapper over pipeline.py, caching generated code on the
function object like ``grad`` does (srcad/cache.py) and specializing it on
the kinds of the arguments it is called with.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from . import arguments, cache, derived, recursion, trees
from .analysis import shapes
from .api import grad
from .cache import generation
from .cache.specializations import Specializations
from .errors import InvalidArgumentError
from .request import ForwardRequest, ReverseRequest, optimizations, parse_wrt, shift_positions


def _cached(function, key, make):
    found = cache.lookup(function, key)
    if found is None:
        found = make()
        cache.store(function, key, found)
    return found


def _params(function):
    return list(derived.signature_of_target(function).parameters)


def _forward(function, names, enabled, tangent_only=False) -> Specializations:
    request = ForwardRequest(names, tangent_only=tangent_only, enabled=enabled)
    return _cached(function, ("jvp", tuple(names), tangent_only, enabled),
                   lambda: Specializations(lambda kinds: generation.generate(
                       request.of(function, kinds))))


def _reverse_vjp(function, enabled, names) -> Specializations:
    """Cotangents for the parameters ``names`` (not a bound method's self, not a string...)."""
    cotangent = recursion.cotangent_name(_params(function))
    request = ReverseRequest(names, single=False, seed=cotangent, check_scalar_output=False,
                             extra_params=[cotangent], enabled=enabled,
                             name="vjp_" + function.__name__)
    return _cached(function, ("vjp", enabled, tuple(names)),
                   lambda: Specializations(lambda kinds: generation.generate(
                       request.of(function, kinds))))


def _code(target, args):
    """The plain function to differentiate for these (complete) arguments."""
    if isinstance(target, derived.Made):
        return target.code_for(tuple(map(shapes.of_value, args)))
    return target


def _not_differentiable(what, reason, hint, signature, function):
    """Register ``what`` (a function srcad made) as one srcad cannot differentiate."""
    derived.register(what, derived.Made(
        name=reason[0], signature=signature, origin=derived.origin_of(function),
        reason=reason[1], hint=hint))
    return what


_HIGHER_ORDER_HINT = ("srcad differentiates the functions srcad.grad and srcad.value_and_grad "
                      "return (srcad.jacobian(srcad.grad(f)) is f's Hessian; nest srcad.grad "
                      "for higher derivatives), or a Python function that computes the same.")


def _held(inner, first):
    """``inner`` with its first arguments ``first`` (a bound method's self) given."""

    @functools.wraps(inner)
    def bound(*args, **kwargs):
        return inner(*first, *args, **kwargs)

    del bound.__wrapped__  # srcad made it: a bound derivative, never the function it wraps
    return derived.register_bound(bound, inner, first[0])


def jvp(function, primals, tangents, *, optimize=True):
    """Forward mode: ``(f(*primals), J·tangents)``.

    ``tangents`` has one entry per primal; ``None`` marks an argument that is
    held constant. A tangent has its primal's shape; for a list, tuple, dict or
    dataclass its structure, with None for a leaf held constant (srcad/trees.py).
    Parameters with defaults that ``primals`` leave out take their defaults,
    held constant.
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise InvalidArgumentError("jvp needs one tangent per primal (None for a constant); "
                                   "got %d primals and %d tangents"
                                   % (len(primals), len(tangents)))
    function, first = derived.split_bound(function)
    if first is not None:  # self is held constant
        primals, tangents = first + primals, (None,) * len(first) + tangents
    target = derived.target_of(function)
    primals = arguments.bind(derived.signature_of_target(target), primals, {})
    tangents = tangents + (None,) * (len(primals) - len(tangents))
    params = _params(target)
    positions = [i for i, t in enumerate(tangents) if t is not None]
    names = [params[i] for i in positions]
    given = [tangents[i] for i in positions]
    arguments.check(derived.origin_of(target), names, [primals[i] for i in positions])
    arguments.check(derived.origin_of(target), names, given, what="take a tangent for")
    # a container's tangent has its structure: checked, with None (a zero) filled in
    given = [trees.tangent_for(t, primals[i], params[i]) if trees.is_container(primals[i])
             else t for i, t in zip(positions, given)]
    code = _code(target, primals)
    specializations = _forward(code, names, optimizations(optimize))
    generated = specializations.for_values(primals + tuple(given))
    return generated.function(*primals, *given)


def vjp(function, *primals, optimize=True):
    """Reverse mode for any output: ``(f(*primals), vjp_fn)``.

    ``vjp_fn(cotangent)`` returns a tuple with one cotangent per primal, each
    of its primal's shape (None for a primal that has no derivative: a string,
    a function, None, a bool), or its structure for a container;
    ``cotangent`` has the output's shape (structure).
    """
    return _vjp(function, primals, None, optimize)


def _vjp(function, primals, wanted, optimize):
    """vjp, with cotangents for the parameter positions ``wanted`` only (None: every primal)."""
    given = len(primals)
    function, first = derived.split_bound(function)
    held = 0
    if first is not None:  # self is held constant: no cotangent for it
        primals, held = first + tuple(primals), len(first)
        given += held
    target = derived.target_of(function)
    primals = arguments.bind(derived.signature_of_target(target), primals, {})
    params = _params(target)
    if wanted is None:
        wanted = [i for i in range(held, len(primals))
                  if arguments.nondifferentiable(primals[i]) is None]
    code = _code(target, primals)
    output = code(*map(trees.copied, primals))  # (it may write into its arguments)
    enabled = optimizations(optimize)
    specializations = (_reverse_vjp(code, enabled, [params[i] for i in wanted])
                       if wanted else None)

    def vjp_fn(cotangent):
        if trees.is_container(output) and (cotangent is None or trees.is_container(cotangent)):
            # of the output's structure, None for a zero (a tuple of arrays of one shape
            # may also take one array stacking them)
            cotangent = trees.tangent_for(cotangent, output, "cotangent")
        cotangents = [None] * len(primals)
        if specializations is not None:
            generated = specializations.for_values(primals + (cotangent,))
            for position, value in zip(wanted, generated.function(*primals, cotangent)):
                cotangents[position] = value
        return tuple(cotangents[held:given])

    _not_differentiable(vjp_fn, ("srcad.vjp(%s)" % derived.name_of(target),
                                 "srcad does not differentiate vjp functions"),
                        _HIGHER_ORDER_HINT, inspect.Signature([inspect.Parameter(
                            "cotangent", inspect.Parameter.POSITIONAL_OR_KEYWORD)]), target)
    return output, vjp_fn


def _check_wrt(target, positions, args):
    params = _params(target)
    arguments.check(derived.origin_of(target), [params[p] for p in positions],
                    [args[p] for p in positions])


def jacobian(function, wrt=0, mode: str = "reverse", *, optimize=True):
    """A function of the same arguments returning the Jacobian, shaped output.shape + input.shape.

    ``mode="reverse"`` computes it row by row (one vjp per output element),
    ``mode="forward"`` column by column (one jvp per input element). For a
    list, tuple, dict or dataclass argument it has the argument's structure:
    one block per leaf, output.shape + leaf.shape (None for a leaf held constant).
    """
    if mode not in ("reverse", "forward"):
        raise InvalidArgumentError("mode must be 'reverse' or 'forward', not %r" % (mode,))
    unbound, first = derived.split_bound(function)
    if first is not None:  # as grad does: self held constant, wrt counted after it
        inner = jacobian(unbound, shift_positions(wrt, len(first)), mode, optimize=optimize)
        return _held(inner, first)
    target = derived.target_of(function)
    signature = derived.signature_of_target(target)
    parsed_wrt = parse_wrt(target, wrt)
    positions, single = parsed_wrt.positions, parsed_wrt.single

    def jacobian_function(*args, **kwargs):
        args = arguments.bind(signature, args, kwargs)
        _check_wrt(target, positions, args)
        if mode == "reverse":
            output, vjp_fn = _vjp(function, args, positions, optimize)
            out_shape = _output_shape(output)
            blocks = [_blocks(args[p], out_shape) for p in positions]
            for index in np.ndindex(*out_shape):
                cotangent = np.zeros(out_shape)
                cotangent[index] = 1.0
                cotangents = vjp_fn(cotangent if out_shape else 1.0)
                for leaf_blocks, p in zip(blocks, positions):
                    for path, block in leaf_blocks:
                        if block is not None:
                            block[index] = trees.at(cotangents[p], path)
        else:
            output = derived.called_with_bound_arguments(function)(*map(trees.copied, args))
            out_shape = _output_shape(output)
            blocks = []
            for p in positions:
                leaf_blocks = _blocks(args[p], out_shape)
                for path, block in leaf_blocks:
                    if block is None:
                        continue
                    for index in np.ndindex(*block.shape[len(out_shape):]):
                        tangents = [None] * len(args)
                        tangents[p] = trees.one_hot(args[p], path, index)
                        _, output_tangent = jvp(function, args, tangents, optimize=optimize)
                        block[(Ellipsis,) + index] = output_tangent
                blocks.append(leaf_blocks)
        results = [trees.unflatten(args[p], [_scalar_or_array(b) for _, b in leaf_blocks])
                   for p, leaf_blocks in zip(positions, blocks)]
        return results[0] if single else tuple(results)

    jacobian_function.__wrapped__ = function
    return _not_differentiable(
        jacobian_function, ("srcad.jacobian(%s)" % derived.name_of(target),
                            "srcad does not differentiate Jacobian functions"),
        _HIGHER_ORDER_HINT, signature, target)


def _output_shape(output):
    if not trees.is_container(output):
        return np.shape(output)
    if type(output) in (tuple, list):
        try:  # outputs of one shape: the Jacobian of their stack, as np.array(output)
            return np.shape(output)
        except ValueError:
            pass
    raise InvalidArgumentError(
        "jacobian needs a function returning an array or a scalar, not a %s"
        % type(output).__name__, hint="Use jvp or vjp for a function returning a container.")


def _blocks(arg, out_shape) -> list:
    """``(path, zeros(out_shape + leaf shape))`` per leaf of ``arg`` (None: held constant)."""
    return [(path, np.zeros(out_shape + np.shape(leaf)) if trees.differentiable(path, leaf)
             else None) for path, leaf in trees.leaves(arg)]


def _scalar_or_array(block):
    return float(block) if block is not None and np.ndim(block) == 0 else block


def hvp(function, wrt=0, *, optimize=True):
    """A function ``(*args, v) -> H·v`` for a scalar function, without forming H.

    Forward over reverse: srcad generates the gradient code, then differentiates
    that generated code in forward mode in direction ``v`` (its loops, branches,
    tape and in-place accumulations included). ``v`` is the last positional
    argument; the others (and keywords) bind to the function's parameters.
    """
    unbound, first = derived.split_bound(function)
    if first is not None:
        inner = hvp(unbound, shift_positions(wrt, len(first)), optimize=optimize)
        return _held(inner, first)
    target = derived.target_of(function)
    signature = derived.signature_of_target(target)
    parsed_wrt = parse_wrt(target, wrt)
    positions, single = parsed_wrt.positions, parsed_wrt.single
    if not single:
        raise InvalidArgumentError("hvp differentiates with respect to one argument")
    position = positions[0]
    gradient = grad(function, wrt=position, optimize=optimizations(optimize))

    def hvp_function(*args_and_v, **kwargs):
        if not args_and_v:
            raise InvalidArgumentError("the hvp function takes the arguments, then v")
        *args, v = args_and_v
        args = arguments.bind(signature, args, kwargs)
        _check_wrt(target, positions, args)
        generated = gradient.generated_for(*args)
        tangents = [None] * len(args)
        tangents[position] = v
        return jvp(generated.function, args, tangents, optimize=optimize)[1]

    hvp_function.__wrapped__ = function
    return _not_differentiable(  # (its signature leaves out v, which comes last)
        hvp_function, ("srcad.hvp(%s)" % derived.name_of(target),
                       "srcad does not differentiate Hessian-vector product functions"),
        _HIGHER_ORDER_HINT, signature, target)


def hessian(function, wrt=0, *, optimize=True):
    """A function of the same arguments returning the Hessian (input.shape * 2).

    For a list, tuple, dict or dataclass argument it is a tree of trees, as JAX
    gives: ``hessian(f)(p)["w"]["b"]`` is the block of second derivatives for
    the leaves ``p["w"]`` and ``p["b"]``, of shape w.shape + b.shape (None
    where either leaf is held constant).
    """
    unbound, first = derived.split_bound(function)
    if first is not None:
        inner = hessian(unbound, shift_positions(wrt, len(first)), optimize=optimize)
        return _held(inner, first)
    target = derived.target_of(function)
    signature = derived.signature_of_target(target)
    product = hvp(function, wrt, optimize=optimize)
    position = parse_wrt(target, wrt).positions[0]

    def hessian_function(*args, **kwargs):
        args = arguments.bind(signature, args, kwargs)
        x = args[position]
        leaves = trees.leaves(x)
        # blocks[i][j]: d2f / d(leaf i) d(leaf j), leaf i's shape + leaf j's shape
        blocks = [[np.zeros(np.shape(a) + np.shape(b))
                   if trees.differentiable(pa, a) and trees.differentiable(pb, b) else None
                   for pb, b in leaves] for pa, a in leaves]
        for j, (path, leaf) in enumerate(leaves):
            if not trees.differentiable(path, leaf):
                continue
            for index in np.ndindex(*np.shape(leaf)):
                product_value = product(*args, trees.one_hot(x, path, index))
                for i, (row_path, _) in enumerate(leaves):
                    if blocks[i][j] is not None:
                        blocks[i][j][(Ellipsis,) + index] = trees.at(product_value, row_path)
        rows = [trees.unflatten(x, [_scalar_or_array(b) for b in row]) for row in blocks]
        return trees.unflatten(x, [row if trees.differentiable(p, a) else None
                                   for row, (p, a) in zip(rows, leaves)])

    hessian_function.__wrapped__ = function
    return _not_differentiable(
        hessian_function, ("srcad.hessian(%s)" % derived.name_of(target),
                           "srcad does not differentiate Hessian functions"),
        _HIGHER_ORDER_HINT, signature, target)
