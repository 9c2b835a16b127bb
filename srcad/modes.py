"""jvp, vjp, jacobian, hessian and hvp: the public functions beyond ``grad``.

Each is a thin wrapper over pipeline.py, caching generated code on the
function object like ``grad`` does (srcad/cache.py) and specializing it on
the kinds of the arguments it is called with.
"""

from __future__ import annotations

import inspect
import threading

import numpy as np

from . import cache, persistent_cache, pipeline, trees
from .analysis import shapes
from .errors import InvalidArgumentError
from .parse import parse_function, unwrap_function
from .transform.forward import ForwardRequest
from .transform.reverse import ReverseRequest


class _Specializations:
    """Generated code for one request, one compiled function per tuple of argument kinds."""

    def __init__(self, generate):
        self.generate = generate
        self.functions = {}
        self.lock = threading.Lock()

    def function_for(self, values):
        kinds = tuple(map(shapes.of_value, values))
        generated = self.functions.get(kinds)
        if generated is None:
            with self.lock:
                generated = self.functions.get(kinds)
                if generated is None:
                    generated = self.functions[kinds] = self.generate(kinds)
                    cache.statistics["generated"] += 1
        return generated


def _cached(function, key, make):
    found = cache.lookup(function, key)
    if found is None:
        found = make()
        cache.store(function, key, found)
    return found


def _checked(function):
    """The plain function behind ``function``; an error now if it has no Python source."""
    target = unwrap_function(function)
    if not inspect.isfunction(target):
        parse_function(target)  # SourceUnavailableError for builtins, C functions...
    return target


def _params(function):
    return list(inspect.signature(function).parameters)


def _forward(function, names, enabled, tangent_only=False) -> _Specializations:
    request = ForwardRequest(wrt=list(names), tangent_only=tangent_only)
    return _cached(function, ("jvp", tuple(names), tangent_only, enabled),
                   lambda: _Specializations(lambda kinds: persistent_cache.generate_forward(
                       function, request, kinds, enabled=enabled)))


def _reverse_vjp(function, enabled, held=0) -> _Specializations:
    """Cotangents for all parameters but the first ``held`` (a bound method's self)."""
    request = ReverseRequest(wrt=_params(function)[held:], single=False, seed="cotangent",
                             check_scalar_output=False, extra_params=["cotangent"])
    return _cached(function, ("vjp", enabled, held),
                   lambda: _Specializations(lambda kinds: persistent_cache.generate_reverse(
                       function, request, kinds, name="vjp_" + function.__name__,
                       enabled=enabled)))


def jvp(function, primals, tangents, *, optimize=True):
    """Forward mode: ``(f(*primals), J·tangents)``.

    ``tangents`` has one entry per primal; ``None`` marks an argument that is
    held constant. A tangent has its primal's shape; for a list, tuple or dict
    its structure, with None for a leaf held constant (srcad/trees.py).
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if inspect.ismethod(function):  # self is held constant
        primals, tangents = (function.__self__,) + primals, (None,) + tangents
        function = function.__func__
    target = _checked(function)
    if len(primals) != len(tangents):
        raise InvalidArgumentError("jvp needs one tangent per primal (None for a constant); "
                                   "got %d primals and %d tangents"
                                   % (len(primals), len(tangents)))
    params = _params(target)
    positions = [i for i, t in enumerate(tangents) if t is not None]
    names = [params[i] for i in positions]
    # a container's tangent has its structure: checked, with None (a zero) filled in
    given = [trees.tangent_for(tangents[i], primals[i], params[i])
             if trees.is_container(primals[i]) else tangents[i] for i in positions]
    specializations = _forward(target, names, pipeline.optimizations(optimize))
    generated = specializations.function_for(primals + tuple(given))
    return generated.function(*primals, *given)


def vjp(function, *primals, optimize=True):
    """Reverse mode for any output: ``(f(*primals), vjp_fn)``.

    ``vjp_fn(cotangent)`` returns a tuple with one cotangent per primal, each
    of its primal's shape (structure, for a container); ``cotangent`` has the
    output's shape (structure).
    """
    bound = inspect.ismethod(function)
    if bound:  # self is held constant: no cotangent for it
        primals = (function.__self__,) + primals
        function = function.__func__
    target = _checked(function)
    output = target(*map(trees.copied, primals))  # (the function may append to a list...)
    specializations = _reverse_vjp(target, pipeline.optimizations(optimize), held=int(bound))

    def vjp_fn(cotangent):
        if trees.is_container(output):  # of the output's structure, None for a zero
            cotangent = trees.tangent_for(cotangent, output, "cotangent")
        generated = specializations.function_for(primals + (cotangent,))
        return generated.function(*primals, cotangent)

    return output, vjp_fn


def _wrt_positions(function, wrt):
    params = _params(function)
    single = not isinstance(wrt, (tuple, list))
    if not single and not wrt:
        raise InvalidArgumentError("wrt is empty: name at least one argument to differentiate")
    positions = []
    for item in [wrt] if single else wrt:
        if isinstance(item, str):
            if item not in params:
                raise InvalidArgumentError("wrt=%r is not a parameter of %s"
                                           % (item, function.__qualname__))
            item = params.index(item)
        if isinstance(item, bool) or not isinstance(item, int) or not -len(params) <= item < len(
                params):
            raise InvalidArgumentError("wrt=%r is not a parameter position of %s"
                                       % (item, function.__qualname__))
        positions.append(item % len(params))
    return positions, single


def jacobian(function, wrt=0, mode: str = "reverse", *, optimize=True):
    """A function of the same arguments returning the Jacobian, shaped output.shape + input.shape.

    ``mode="reverse"`` computes it row by row (one vjp per output element),
    ``mode="forward"`` column by column (one jvp per input element). For a
    list, tuple or dict argument it has the argument's structure: one block
    per leaf, output.shape + leaf.shape (None for a leaf held constant).
    """
    if mode not in ("reverse", "forward"):
        raise InvalidArgumentError("mode must be 'reverse' or 'forward', not %r" % (mode,))
    target = unwrap_function(function)
    positions, single = _wrt_positions(target, wrt)

    def jacobian_function(*args):
        args = tuple(args)
        if mode == "reverse":
            output, vjp_fn = vjp(target, *args, optimize=optimize)
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
            output = target(*map(trees.copied, args))
            out_shape = _output_shape(output)
            blocks = []
            for p in positions:
                leaf_blocks = _blocks(args[p], out_shape)
                for path, block in leaf_blocks:
                    if block is None:
                        continue
                    in_shape = block.shape[len(out_shape):]
                    for index in np.ndindex(*in_shape):
                        tangents = [None] * len(args)
                        tangents[p] = trees.one_hot(args[p], path, index)
                        _, output_tangent = jvp(target, args, tangents, optimize=optimize)
                        block[(Ellipsis,) + index] = output_tangent
                blocks.append(leaf_blocks)
        results = [trees.unflatten(args[p], [_scalar_or_array(b) for _, b in leaf_blocks])
                   for p, leaf_blocks in zip(positions, blocks)]
        return results[0] if single else tuple(results)

    jacobian_function.__wrapped__ = target
    return jacobian_function


def _output_shape(output):
    if trees.is_container(output):
        raise InvalidArgumentError(
            "jacobian needs a function returning an array or a scalar, not a %s"
            % type(output).__name__, hint="Use jvp or vjp for a function returning a container.")
    return np.shape(output)


def _blocks(arg, out_shape) -> list:
    """``(path, zeros(out_shape + leaf shape))`` per leaf of ``arg``; None for leaves held constant."""
    return [(path, np.zeros(out_shape + np.shape(leaf)) if trees.differentiable(path, leaf)
             else None) for path, leaf in trees.leaves(arg)]


def _scalar_or_array(block):
    return float(block) if block is not None and np.ndim(block) == 0 else block


def hvp(function, wrt=0, *, optimize=True):
    """A function ``(*args, v) -> H·v`` for a scalar function, without forming H.

    Forward over reverse: srcad generates the gradient code, then differentiates
    that generated code in forward mode in direction ``v`` (its loops, branches,
    tape and in-place accumulations included).
    """
    from .api import grad

    target = unwrap_function(function)
    positions, single = _wrt_positions(target, wrt)
    if not single:
        raise InvalidArgumentError("hvp differentiates with respect to one argument")
    position = positions[0]
    gradient = grad(target, wrt=position, optimize=pipeline.optimizations(optimize))

    def hvp_function(*args_and_v):
        *args, v = args_and_v
        args = tuple(args)
        generated = gradient.generated_for(*args)
        tangents = [None] * len(args)
        tangents[position] = v
        return jvp(generated.function, args, tangents, optimize=optimize)[1]

    hvp_function.__wrapped__ = target
    return hvp_function


def hessian(function, wrt=0, *, optimize=True):
    """A function of the same arguments returning the Hessian (input.shape * 2).

    For a list, tuple or dict argument it is a tree of trees, as JAX gives:
    ``hessian(f)(p)["w"]["b"]`` is the block of second derivatives for the
    leaves ``p["w"]`` and ``p["b"]``, of shape w.shape + b.shape (None where
    either leaf is held constant).
    """
    target = unwrap_function(function)
    product = hvp(target, wrt, optimize=optimize)
    position = _wrt_positions(target, wrt)[0][0]

    def hessian_function(*args):
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
                for i, (row_path, row_leaf) in enumerate(leaves):
                    if blocks[i][j] is not None:
                        blocks[i][j][(Ellipsis,) + index] = trees.at(product_value, row_path)
        rows = [trees.unflatten(x, [_scalar_or_array(b) for b in row]) for row in blocks]
        return trees.unflatten(x, [row if trees.differentiable(p, a) else None
                                   for row, (p, a) in zip(rows, leaves)])

    hessian_function.__wrapped__ = target
    return hessian_function
