"""The pipeline: the ordered list of stages from a function object to generated code.

    parse -> fence -> normalize -> analyze -> transform -> optimize -> emit

``generate`` runs them all; with ``keep_stages=True`` it also records the
source after each stage (``srcad.source(..., stages=True)`` shows them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from . import emit, registry, syntax
from .analysis import shapes
from .analysis.activity import analyze_activity
from .analysis.operations import UNRESOLVED
from .errors import InvalidArgumentError
from .fence import fence
from .naming import Namer
from .namespace import Aliases
from .normalize.anf import to_anf
from .normalize.lower_exits import lower_exits
from .normalize.propagate_writes import parameters_written, propagate_writes
from .normalize.rename_versions import rename_versions
from .normalize.split_tuples import split_tuples
from .optimize.accumulate_in_place import accumulate_in_place
from .optimize.fold_constants import fold_constants
from .optimize.fuse_single_use import fuse_single_use
from .optimize.propagate_copies import propagate_copies
from .optimize.remove_dead_code import remove_dead_code
from .optimize.simplify_zeros import simplify_zeros
from .optimize.specialize_runtime_calls import (names_read_once_specialized,
                                                specialize_runtime_calls)
from .parse import ParsedFunction, parse_function
from .transform.lower_accumulations import lower_accumulations
from .transform.forward import ForwardRequest, forward
from .transform.reverse import ReverseContext, ReverseRequest, reverse

STAGES = ("parse", "fence", "normalize", "analyze", "transform", "optimize", "emit")

# Optimizations that can be switched off (srcad.grad(f, optimize=...)), in the order they run.
OPTIMIZATIONS = (
    "recompute",  # transform: recompute cheap loop intermediates instead of recording them
    "specialize",  # specialize code on the argument kinds (analysis/shapes.py)
    "fold_constants",
    "propagate_copies",
    "remove_dead_code",
    "accumulate_in_place",
    "fuse_single_use",
)


def optimizations(optimize) -> frozenset:
    """The set of optimizations meant by an ``optimize=`` option (True, False or names)."""
    if optimize is True:
        return frozenset(OPTIMIZATIONS)
    if optimize is False or optimize is None:
        return frozenset()
    chosen = frozenset([optimize] if isinstance(optimize, str) else optimize)
    unknown = chosen - set(OPTIMIZATIONS)
    if unknown:
        raise InvalidArgumentError("unknown optimization(s) %s; known: %s"
                                   % (", ".join(sorted(unknown)), ", ".join(OPTIMIZATIONS)))
    return chosen


@dataclass
class Generated:
    name: str
    source: str
    function: object
    stages: dict = field(default_factory=dict)
    aliases: dict = field(default_factory=dict)
    callees: list = field(default_factory=list)  # user functions inlined into the code


def make_resolver(parsed: ParsedFunction, aliases: Aliases | None, tree):
    """Resolve static references in ``tree``: srcad's aliases first, then the user's names."""
    local = syntax.stored_names(tree) | {a.id for a in tree.args.args} | set(parsed.local_names)

    def resolve(node):
        if isinstance(node, gast.Name):
            if aliases is not None and node.id in aliases.bindings:
                return aliases.bindings[node.id]
            if node.id in local:
                return UNRESOLVED
            return parsed.resolve_name(node.id, UNRESOLVED)
        if isinstance(node, gast.Attribute):
            base = resolve(node.value)
            if base is UNRESOLVED:
                return UNRESOLVED
            return getattr(base, node.attr, UNRESOLVED)
        return UNRESOLVED

    return resolve


def normalize(parsed: ParsedFunction, namer: Namer, aliases: Aliases,
              inlined: list | None = None, kinds=None) -> gast.FunctionDef:
    """The normalize stage; ``kinds`` (the parameters' abstract values, when specializing)
    tells propagate_writes which values are scalars, never written in place."""
    tree = _normalize_values(parsed, namer, aliases, inlined)
    if _generated_by_srcad(parsed):
        return rename_versions(tree, namer)
    resolve = make_resolver(parsed, aliases, tree)
    is_scalar = holds_nothing = None
    if kinds is not None:
        env = shapes.infer(tree, dict(zip(parsed.params, kinds)), resolve)

        def is_scalar(name):
            return isinstance(shapes.plain(env.get(name)), shapes.Scalar)

        def holds_nothing(name):
            return isinstance(shapes.plain(env.get(name)), (shapes.Scalar, shapes.Array))

    tree = propagate_writes(tree, resolve, namer, aliases, is_scalar=is_scalar,
                            holds_nothing=holds_nothing, callee_writes=parameters_written_by)
    return rename_versions(tree, namer)


def _normalize_values(parsed, namer, aliases, inlined=None) -> gast.FunctionDef:
    """normalize up to (not including) the last propagate_writes and rename_versions."""
    tree = syntax.deepcopy(parsed.tree)
    resolve = make_resolver(parsed, aliases, tree)
    tree = lower_exits(tree, namer, resolve, aliases)
    tree = to_anf(parsed, tree, namer, aliases, inlined)
    if not _generated_by_srcad(parsed):
        tree = propagate_writes(tree, make_resolver(parsed, aliases, tree), namer, aliases,
                                guard=False)
    return split_tuples(tree, namer, make_resolver(parsed, aliases, tree))


def _generated_by_srcad(parsed) -> bool:
    """Code srcad generated (differentiated again: hvp, grad of grad) writes in place only
    into what it made and nothing else reads (its tape, its adjoints: accumulate_in_place),
    so propagate_writes has nothing to do there."""
    return getattr(parsed.function, "__source__", None) is not None


_written_by: dict = {}  # function -> (its code, parameters_written); None while computing


def parameters_written_by(function) -> dict:
    """The parameters a user function writes into (generated code calls recursive ones)."""
    cached = _written_by.get(function)
    if cached is not None and cached[0] is function.__code__:
        return cached[1]
    if function in _written_by and cached is None:
        return {}  # a recursive function asks about itself: its own body answers
    _written_by[function] = None
    try:
        parsed = parse_function(function)
        fence(parsed, inlined=True)
        namer = Namer(parsed.identifiers)
        aliases = Aliases(parsed, namer)
        tree = _normalize_values(parsed, namer, aliases)
        written = parameters_written(tree, make_resolver(parsed, aliases, tree))
    except Exception:
        del _written_by[function]
        raise
    _written_by[function] = (function.__code__, written)
    return written


def generate_reverse(function, request: ReverseRequest, kinds=None, *, name=None,
                     keep_stages=False, enabled=frozenset(OPTIMIZATIONS)) -> Generated:
    """Generate the reverse-mode derivative of ``function``.

    ``kinds`` gives the abstract value (analysis/shapes.py) of each parameter,
    to specialize the code for; None generates code for any argument types.
    ``enabled`` names the optimizations to apply (all by default).
    """
    return _generate(function, "reverse", request, kinds, name, keep_stages, enabled)


def generate_forward(function, request: ForwardRequest, kinds=None, *, name=None,
                     keep_stages=False, enabled=frozenset(OPTIMIZATIONS)) -> Generated:
    """Generate the forward-mode derivative (jvp) of ``function``.

    The generated function takes the parameters, then the tangents of
    ``request.wrt``, and returns ``(output, output_tangent)``. ``kinds`` covers
    the parameters followed by the tangents.
    """
    return _generate(function, "forward", request, kinds, name, keep_stages, enabled)


def _generate(function, mode, request, kinds, name, keep_stages, enabled) -> Generated:
    registry.load_templates()
    if "specialize" not in enabled:
        kinds = None
    stages = {}
    parsed = parse_function(function)
    if keep_stages:
        stages["parse"] = emit.to_source(parsed.tree)
    fence(parsed, has_aux=getattr(request, "has_aux", False))
    namer = Namer(parsed.identifiers)
    aliases = Aliases(parsed, namer)
    callees = []
    tree = normalize(parsed, namer, aliases, callees, kinds)
    if keep_stages:
        stages["normalize"] = emit.to_source(tree)
    returned = tree.body[-1].value
    output = returned.elts[0] if getattr(request, "has_aux", False) else returned
    if isinstance(output, (gast.Tuple, gast.List)):  # several outputs (jvp, vjp, jacobian)
        outputs = [e.id for e in output.elts if isinstance(e, gast.Name)]
    else:
        outputs = [output.id] if isinstance(output, gast.Name) else []
    resolve = make_resolver(parsed, aliases, tree)
    activity = analyze_activity(tree, request.wrt, outputs, resolve)
    if keep_stages:
        stages["analyze"] = "active variables: %s" % ", ".join(sorted(activity.active))
    kinds_env = (shapes.infer(tree, dict(zip(parsed.params, kinds)), resolve)
                 if kinds is not None else {})
    context = ReverseContext(parsed, namer, aliases, activity, resolve, kinds_env,
                             recompute="recompute" in enabled,
                             reads_once_optimized=_reads_once_specialized(
                                 kinds_env, namer, resolve, aliases) if kinds_env else None)
    if mode == "reverse":
        name = name or namer.fresh("grad_" + parsed.name)
        generated = reverse(tree, context, request, name)
        generated = lower_accumulations(generated, namer, aliases)
        label = "grad of %s" % parsed.function.__qualname__
        defaults = function.__defaults__ if not request.extra_params else None
    else:
        name = name or namer.fresh("jvp_" + parsed.name)
        generated = forward(tree, context, request, name)
        label = "jvp of %s" % parsed.function.__qualname__
        defaults = None
    if keep_stages:
        stages["transform"] = emit.to_source(generated)
    generated = optimize(generated, parsed, namer, aliases, kinds, enabled)
    source = emit.to_source(generated)
    if keep_stages:
        stages["optimize"] = source
    compiled = emit.compile_function(source, name, aliases.bindings, parsed.function,
                                     label, defaults)
    return Generated(name, source, compiled, stages, dict(aliases.bindings), callees)


def _reads_once_specialized(kinds_env, namer, resolve, aliases):
    """The transform's hook: the names adjoint statements read once specialized, an
    adjoint (``x_bar``) having its primal's kind."""

    def reads(statements):
        env = dict(kinds_env)
        for name in syntax.load_names(statements):
            primal = namer.primal_of(name)
            if primal in kinds_env:
                env[name] = kinds_env[primal]
        return names_read_once_specialized(statements, env, resolve, aliases)

    return reads


def optimize(tree, parsed, namer, aliases, kinds, enabled=frozenset(OPTIMIZATIONS)):
    """Optimization passes, in order; each leaves valid code behind."""

    env = {}
    if kinds is not None and "specialize" in enabled:
        resolve = make_resolver(parsed, aliases, tree)
        params = [a.id for a in tree.args.args]
        env = shapes.infer(tree, dict(zip(params, kinds)), resolve)
        tree = specialize_runtime_calls(tree, env, resolve, aliases)
    # dropping zero tangent terms is not only faster: 0 * log(x) is nan for x < 0
    tree = simplify_zeros(tree, env, make_resolver(parsed, aliases, tree), namer.primal_of,
                          aliases)

    def is_floating(identifier):
        return namer.primal_of(identifier) is not None or env.get(identifier) == shapes.FLOAT

    for _ in range(2):  # folding makes constants to propagate, propagating makes folds
        if "fold_constants" in enabled:
            tree = fold_constants(tree, is_floating)
        if "propagate_copies" in enabled:
            tree = propagate_copies(tree)
    if "fold_constants" in enabled:
        tree = fold_constants(tree, is_floating)
    if "remove_dead_code" in enabled:
        tree = remove_dead_code(tree, make_resolver(parsed, aliases, tree))
    if "accumulate_in_place" in enabled:
        tree = accumulate_in_place(tree, lambda n: namer.primal_of(n) is not None,
                                   make_resolver(parsed, aliases, tree))
    if "fuse_single_use" in enabled:
        # the user's own names and the derivatives stay; srcad's temporaries may go
        keep = set(parsed.identifiers) | {n for n in namer.taken
                                          if namer.primal_of(n) is not None}
        tree = fuse_single_use(tree, make_resolver(parsed, aliases, tree), keep)
    return tree
