"""The pipeline: the ordered list of stages from a function object to generated code.

    parse -> fence -> normalize -> analyze -> transform -> optimize -> emit

``generate(request)`` runs them all for one Request (srcad/request.py: the
function, the mode, wrt, the argument kinds, the optimizations); with
``keep_stages=True`` it also records the source after each stage
(``srcad.source(..., stages=True)`` shows them). ``check(request)`` runs the
stages up to the transform, for their errors.
"""

from __future__ import annotations

import contextlib
import gc
from dataclasses import dataclass, field

import gast

from . import emit, invariants, recursion, registry, runtime, syntax
from .cache import memory
from .analysis import shapes
from .analysis.activity import analyze_activity
from .fence import fence
from .namespace import Aliases
from .naming import Namer, identifier
from .normalize.lower_exits import lower_exits
from .normalize.lower_mutations import lower_mutations
from .normalize.propagate_writes import parameters_written, propagate_writes
from .normalize.rename_versions import rename_versions
from .normalize.split_tapes import split_tapes
from .normalize.split_tuples import split_tuples
from .normalize.to_anf import to_anf
from .optimize.accumulate_in_place import accumulate_in_place
from .optimize.fold_constants import fold_constants
from .optimize.fuse_single_use import fuse_single_use
from .optimize.keep_broadcasts_implicit import keep_broadcasts_implicit
from .optimize.propagate_copies import CopyFacts, propagate_copies
from .optimize.remove_dead_code import remove_dead_code
from .optimize.simplify_zeros import simplify_zeros
from .optimize.specialize_runtime_calls import (names_read_once_specialized,
                                                names_read_once_specialized_alike,
                                                specialize_runtime_calls)
from .parse import ParsedFunction, read, signature_of
from .request import OPTIMIZATIONS, ForwardRequest, Request, ReverseRequest
from .resolve import Resolver
from .transform.context import TransformContext
from .transform.forward import forward
from .transform.insert_discrete_checks import insert_discrete_checks
from .transform.lower_accumulations import lower_accumulations
from .transform.reverse import reverse

STAGES = ("parse", "fence", "normalize", "analyze", "transform", "optimize", "emit")

@dataclass
class Generated:
    name: str
    source: str
    function: object
    stages: dict = field(default_factory=dict)
    aliases: dict = field(default_factory=dict)
    callees: list = field(default_factory=list)  # user functions inlined into the code


def checked(pass_name: str, tree, parsed: ParsedFunction, aliases: Aliases | None):
    """The debug hook run after every pass: when invariant checks are on (tests switch them
    on), check that ``tree`` holds what ``pass_name``'s docstring promises (invariants.py)."""
    if invariants.enabled():
        def lookup(name):
            if aliases is not None and name in aliases.bindings:
                return aliases.bindings[name]
            return parsed.resolve_name(name, invariants.MISSING)

        invariants.check(pass_name, tree, invariants.Context(lookup))
    return tree


def normalize(parsed: ParsedFunction, namer: Namer, aliases: Aliases,
              inlined: list | None = None, kinds=None,
              resolve: Resolver | None = None, asked: list | None = None,
              values=None) -> gast.FunctionDef:
    """The normalize stage; ``kinds`` (the parameters' abstract values, when specializing)
    tells propagate_writes which values are scalars, never written in place. Without
    ``kinds``, the names propagate_writes asks about are appended to ``asked`` (if given):
    none asked, and the tree is the same for arguments of any kind. ``values`` (the
    parameters' ByValue kinds, shapes.values_of; None: any) resolves calls through them
    (normalize/calls_by_value.py), and the parameters such a call asked about are appended
    to ``asked`` too."""
    resolve = resolve or Resolver(parsed, aliases, namer)
    tree = _normalize_values(parsed, namer, aliases, inlined, resolve, values, asked)
    if _generated_by_srcad(parsed):
        return checked("rename_versions", rename_versions(tree, namer), parsed, aliases)
    is_scalar = holds_nothing = None
    if kinds is None and asked is not None:
        def is_scalar(name):  # the answer without kinds, noted
            asked.append(name)
            return False

        holds_nothing = is_scalar
    elif kinds is not None:
        # inferred at the first question only: most functions write into nothing, and then
        # propagate_writes asks none (it asks before it changes the tree)
        inferred = []

        def kind_of(name):
            if not inferred:
                inferred.append(shapes.infer(tree, dict(zip(parsed.params, kinds)), resolve))
            return shapes.plain(inferred[0].get(name))

        def is_scalar(name):
            return isinstance(kind_of(name), shapes.Scalar)

        def holds_nothing(name):
            return isinstance(kind_of(name), (shapes.Scalar, shapes.Array))

    tree = propagate_writes(tree, resolve, namer, aliases, is_scalar=is_scalar,
                            holds_nothing=holds_nothing, callee_writes=parameters_written_by)
    tree = checked("propagate_writes", tree, parsed, aliases)
    return checked("rename_versions", rename_versions(tree, namer), parsed, aliases)


def _normalize_values(parsed, namer, aliases, inlined=None, resolve=None, values=None,
                      asked=None) -> gast.FunctionDef:
    """normalize up to (not including) the last propagate_writes and rename_versions."""
    resolve = resolve or Resolver(parsed, aliases, namer)
    # lower_exits and to_anf read the parsed tree and make what they change: no copy of it
    read_only = _UnchangedNodes(parsed.tree, _PARSED_TREE)
    tree = checked("lower_exits", lower_exits(parsed.tree, namer, resolve, aliases), parsed,
                   aliases)
    if _generated_by_srcad(parsed):
        tree = checked("split_tapes", split_tapes(tree, namer), parsed, aliases)
    tree = checked("to_anf", to_anf(parsed, tree, namer, aliases, inlined, values, asked),
                   parsed, aliases)
    tree = checked("lower_mutations", lower_mutations(tree, namer, aliases), parsed, aliases)
    if not _generated_by_srcad(parsed):
        tree = propagate_writes(tree, resolve, namer, aliases, guard=False)
        tree = checked("propagate_writes", tree, parsed, aliases)
    tree = checked("split_tuples", split_tuples(tree, namer, resolve), parsed, aliases)
    read_only.confirm("normalize (up to split_tuples)")
    return tree


class _UnchangedNodes:
    """When invariant checks are on, every node of a tree as it is (its fields, location
    and annotations), to confirm that the stages reading it left every node as it was: the
    parsed function's tree, and the normalized tree kept for later requests."""

    def __init__(self, tree, what: str):
        self.tree = tree
        self.what = what  # the tree, as the error names it
        self.nodes = ([(node, _fields_of(node)) for node in gast.walk(tree)]
                      if invariants.enabled() else None)

    def confirm(self, stages: str) -> None:
        if self.nodes is not None and (
                any(_fields_of(node) != fields for node, fields in self.nodes)
                or len(self.nodes) != sum(1 for _ in gast.walk(self.tree))):
            raise invariants.BrokenInvariantError(stages, "%s changed" % self.what)


_PARSED_TREE = "a node of the parsed function's tree (which later requests read again)"
_KEPT_TREE = "the normalized tree it reads (the front kept for later requests)"


def _fields_of(node) -> dict:
    return {key: list(value) if type(value) is list else value
            for key, value in node.__dict__.items()}


def _generated_by_srcad(parsed) -> bool:
    """Code srcad generated (differentiated again: hvp, grad of grad) writes in place only
    into what it made and nothing else reads (its tape, its adjoints: accumulate_in_place),
    so propagate_writes has nothing to do there."""
    return getattr(parsed.function, "__source__", None) is not None


_computing_writes: set = set()  # functions whose parameters_written is being computed


def parameters_written_by(function) -> dict:
    """The parameters a user function writes into (generated code calls recursive ones)."""
    written = memory.lookup(function, "parameters_written", counted=False)
    if written is not None:
        return written
    if function in _computing_writes:
        return {}  # a recursive function asks about itself: its own body answers
    _computing_writes.add(function)
    try:
        parsed = read(function)
        fence(parsed, inlined=True)
        namer = Namer(parsed.identifiers)
        aliases = Aliases(parsed, namer)
        resolve = Resolver(parsed, aliases, namer)
        tree = _normalize_values(parsed, namer, aliases, resolve=resolve)
        written = parameters_written(tree, resolve)
    finally:
        _computing_writes.discard(function)
    memory.store(function, "parameters_written", written)
    return written


def check(request: Request) -> None:
    """Run the stages up to the transform for their errors only.

    ``srcad.grad(f)`` reports what srcad cannot differentiate at once, with
    its location (unsupported syntax, a call without a gradient template),
    and generates code only when a call (or ``.source``) needs it.
    """
    with collector_paused():
        registry.load_templates()
        # the transform reads the tree and changes nothing in it: the tree kept for the
        # first call is checked as it is
        front = _front(request.function, request, None, None)
        context = _context(front, None, request.enabled)
        name = front.namer.fresh("checked_" + front.parsed.name)
        kept = _UnchangedNodes(front.tree, _KEPT_TREE)
        if request.mode == "reverse":
            reverse(front.tree, context, request, name, check_only=True)
            kept.confirm("reverse (check_only)")
        else:
            forward(front.tree, context, request, name)
            kept.confirm("forward")


def generate(request: Request, keep_stages: bool = False) -> Generated:
    """Generate the derivative ``request`` asks for: ``request.function``'s, specialized for
    arguments of ``request.kinds`` (the abstract value of each parameter, analysis/shapes.py;
    None: code for arguments of any kind), with the optimizations ``request.enabled``.

    In forward mode the generated function takes the parameters, then the tangents of
    ``request.wrt``, and returns ``(output, output_tangent)``; ``kinds`` then covers the
    parameters followed by the tangents.
    """
    with collector_paused():
        return _generate(request, keep_stages)


@contextlib.contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while the stages run (back on after, if it was
    on). The stages make and drop many small tree nodes, freed by reference counting; the
    collections their allocations would trigger free next to nothing, and each of the
    oldest generation's scans every tracked object of the process: 10-25% of the time of a
    generation (benchmarks/bench_codegen_scaling.py). Cycles left behind wait for the next
    collection after the stages."""
    if not gc.isenabled():
        yield  # off already: by the user, or by an enclosing generation
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def generate_reverse(function, request: Request, kinds=None, *, name=None,
                     keep_stages=False, enabled=frozenset(OPTIMIZATIONS)) -> Generated:
    """``generate`` for a reverse-mode request, given its function, kinds, name, enabled."""
    return generate(request.of(function, kinds, name=name, enabled=enabled), keep_stages)


def generate_forward(function, request: Request, kinds=None, *, name=None,
                     keep_stages=False, enabled=frozenset(OPTIMIZATIONS)) -> Generated:
    """``generate`` for a forward-mode request, given its function, kinds, name, enabled."""
    return generate(request.of(function, kinds, name=name, enabled=enabled), keep_stages)


def _vjp_of_recursive(function):
    """``vjp_f(a, b, cotangent)``: the adjoint of every parameter (srcad/recursion.py)."""
    params = list(signature_of(function).parameters)
    cotangent = recursion.cotangent_name(params)
    request = ReverseRequest(params, single=False, seed=cotangent, check_scalar_output=False,
                             extra_params=[cotangent], function=function,
                             name="vjp_%s" % function.__name__)
    return generate(request).function


def _jvp_of_recursive(function):
    """``jvp_f(a, b, a_dot, b_dot) -> (value, tangent)`` (srcad/recursion.py)."""
    params = list(signature_of(function).parameters)
    return generate(ForwardRequest(params, function=function,
                                   name="jvp_%s" % function.__name__)).function


recursion.install_generators(vjp=_vjp_of_recursive, jvp=_jvp_of_recursive)


@dataclass
class _Front:
    """One request's function after the stages before the transform."""

    parsed: ParsedFunction
    namer: Namer
    aliases: Aliases
    resolve: Resolver
    tree: gast.FunctionDef  # normalized
    callees: list  # the user functions inlined into it
    activity: object  # analysis/activity.Activity
    # statement -> how its adjoint template binds (transform/reverse.py's, for its tree)
    template_uses: dict = field(default_factory=dict)

    def taken(self) -> "_Front":
        """This front for one request: the same tree (the transforms only read it), names and
        aliases of its own (a request makes names; this front stays as it is)."""
        namer = self.namer.copy()
        aliases = self.aliases.copy(namer)
        resolve = Resolver(self.parsed, aliases, namer, extra_locals=self.resolve.extra_locals)
        return _Front(self.parsed, namer, aliases, resolve, self.tree, list(self.callees),
                      self.activity, self.template_uses)


def _front(function, request, kinds, stages: dict | None) -> _Front:
    """parse, fence, normalize and analyze activity (``stages``, if given, records them).

    A front made without ``kinds`` for which normalize asked no kind question is the same
    for arguments of every kind: kept with the function, later requests with the same
    function, wrt and has_aux take it over with names of their own (grad()'s check, then
    the first call) and the same tree: the transforms read their input and never change it
    (_UnchangedNodes checks that when invariant checks are on).
    """
    key = ("front", request.wrt, request.has_aux, request.extra_params)
    by_value = request.kinds is not None and any(
        isinstance(kind, shapes.ByValue) for kind in request.kinds)
    if stages is None and not by_value:
        kept = memory.lookup(function, key, counted=False)
        if kept is not None:
            return kept.taken()
    parsed = read(function)
    read_only = _UnchangedNodes(parsed.tree, _PARSED_TREE)
    checked("parse", parsed.tree, parsed, None)
    if stages is not None:
        stages["parse"] = emit.to_source(parsed.tree)
    fence(parsed, has_aux=request.has_aux)
    checked("fence", parsed.tree, parsed, None)
    namer = Namer(parsed.identifiers)
    aliases = Aliases(parsed, namer)
    # one resolver for the whole run: the names srcad makes are local as soon as made
    resolve = Resolver(parsed, aliases, namer, extra_locals=request.extra_params)
    callees = []
    asked = []
    # the values calls are resolved by, whether or not the code is specialized on kinds
    values = shapes.values_of(parsed.params, request.kinds) if request.kinds is not None \
        else None
    tree = normalize(parsed, namer, aliases, callees, kinds, resolve, asked, values)
    if stages is not None:
        stages["normalize"] = emit.to_source(tree)
    returned = tree.body[-1].value
    output = returned.elts[0] if request.has_aux else returned
    if isinstance(output, (gast.Tuple, gast.List)):  # several outputs (jvp, vjp, jacobian)
        outputs = [e.id for e in output.elts if isinstance(e, gast.Name)]
    else:
        outputs = [output.id] if isinstance(output, gast.Name) else []
    activity = analyze_activity(tree, request.wrt, outputs, resolve)
    insert_discrete_checks(tree, activity, parsed.location, aliases.name_for(runtime))
    read_only.confirm("the front (normalize, activity, insert_discrete_checks)")
    if stages is not None:
        stages["analyze"] = "active variables: %s" % ", ".join(sorted(activity.active))
    front = _Front(parsed, namer, aliases, resolve, tree, callees, activity)
    if kinds is None and not asked and not by_value:
        memory.store(function, key, front)
        return front.taken()
    return front


def _context(front: _Front, kinds, enabled) -> TransformContext:
    kinds_env = (shapes.infer(front.tree, dict(zip(front.parsed.params, kinds)), front.resolve)
                 if kinds is not None else {})
    return TransformContext(front.parsed, front.namer, front.aliases, front.activity,
                            front.resolve, kinds_env, recompute="recompute" in enabled,
                            reads_once_optimized=_reads_once_specialized(
                                kinds_env, front.namer, front.resolve, front.aliases)
                            if kinds_env else None, template_uses=front.template_uses)


def _generate(request: Request, keep_stages: bool) -> Generated:
    registry.load_templates()
    function, enabled = request.function, request.enabled
    name = identifier(request.name) if request.name else None
    kinds = shapes.shape_kinds(request.kinds) if "specialize" in enabled else None
    stages = {} if keep_stages else None
    front = _front(function, request, kinds, stages)
    parsed, namer, aliases, resolve = front.parsed, front.namer, front.aliases, front.resolve
    tree, callees = front.tree, front.callees
    stages = stages or {}
    context = _context(front, kinds, enabled)
    kept = _UnchangedNodes(tree, _KEPT_TREE)
    if request.mode == "reverse":
        name = name or namer.fresh("grad_" + parsed.name)
        # what the adjoint statements read, and which statements touch no adjoint: reverse
        # knows, lowering asks
        reads, primal = {}, []
        generated = checked("reverse", reverse(tree, context, request, name, reads=reads,
                                               primal=primal), parsed, aliases)
        kept.confirm("reverse")
        generated = lower_accumulations(generated, namer, aliases, reads, primal)
        generated = checked("lower_accumulations", generated, parsed, aliases)
        label = "grad of %s" % parsed.function.__qualname__
        defaults = function.__defaults__ if not request.extra_params else None
    else:
        name = name or namer.fresh("jvp_" + parsed.name)
        generated = checked("forward", forward(tree, context, request, name), parsed, aliases)
        kept.confirm("forward")
        label = "jvp of %s" % parsed.function.__qualname__
        defaults = None
    if keep_stages:
        stages["transform"] = emit.to_source(generated)
    generated = optimize(generated, parsed, namer, aliases, kinds, enabled, resolve)
    kept.confirm("the passes after the transform (through nodes it shares)")
    source = emit.to_source(generated)
    if keep_stages:
        stages["optimize"] = source
    compiled = emit.compile_function(source, name, aliases.bindings, parsed.function,
                                     label, defaults)
    return Generated(name, source, compiled, stages, dict(aliases.bindings), callees)


def _reads_once_specialized(kinds_env, namer, resolve, aliases):
    """The transform's hook: the names adjoint statements read once specialized, an
    adjoint (``x_bar``) having its primal's kind."""

    def reads(statements, read_now, shapes):
        """read_now: the names they read (reverse knows them); shapes: statement -> its
        shape (templates.instantiate), for those made from templates."""
        env = dict(kinds_env)
        for name in read_now:
            primal = namer.primal_of(name)
            if primal in kinds_env:
                env[name] = kinds_env[primal]
        read = names_read_once_specialized_alike(statements, shapes, env, resolve, aliases)
        if invariants.enabled() and read != names_read_once_specialized(
                statements, env, resolve, aliases):
            raise invariants.BrokenInvariantError(
                "reverse (reads once specialized)",
                "statements specialized alike read other names than each specialized")
        return read

    return reads


def optimize(tree, parsed, namer, aliases, kinds, enabled=frozenset(OPTIMIZATIONS),
             resolve: Resolver | None = None):
    """Optimization passes, in order; each leaves valid code behind."""
    resolve = resolve or Resolver(parsed, aliases, namer)

    env, stored = {}, None
    if kinds is not None and "specialize" in enabled:
        params = [a.id for a in tree.args.args]
        stored = {}  # how often each name is assigned: counted by infer, read by the next pass
        env = shapes.infer(tree, dict(zip(params, kinds)), resolve, stored)
        tree = specialize_runtime_calls(tree, env, resolve, aliases, stored)
        tree = checked("specialize_runtime_calls", tree, parsed, aliases)
        _counts_confirmed(stored, tree, "specialize_runtime_calls")
        tree = keep_broadcasts_implicit(tree, env, resolve, aliases, stored)
        tree = checked("keep_broadcasts_implicit", tree, parsed, aliases)
    # dropping zero tangent terms is not only faster: 0 * log(x) is nan for x < 0
    tree = simplify_zeros(tree, env, resolve, namer.primal_of, aliases, stored)
    tree = checked("simplify_zeros", tree, parsed, aliases)
    if stored is not None:
        _counts_confirmed(stored, tree, "keep_broadcasts_implicit, simplify_zeros")
    return _dataflow(tree, parsed, namer, aliases, env, enabled, resolve)


def _counts_confirmed(stored, tree, passes: str) -> None:
    """When invariant checks are on: the assignment counts shapes.infer made (which the
    passes after it read instead of counting again) are still ``tree``'s after ``passes``."""
    if invariants.enabled() and stored != syntax.assignment_counts(tree):
        raise invariants.BrokenInvariantError(
            passes, "the assignments counted before them are their tree's")


def _dataflow(tree, parsed, namer, aliases, env, enabled, resolve):
    """The optimization passes after simplify_zeros: fold and propagate rounds, then
    remove_dead_code, accumulate_in_place, fuse_single_use (as ``enabled``)."""

    def is_floating(identifier):
        return namer.primal_of(identifier) is not None or env.get(identifier) == shapes.FLOAT

    # folding makes constants to propagate, propagating makes folds: fold, propagate, fold,
    # propagate, fold. A run is limited to what changed since (or skipped): folding a
    # statement depends on that statement alone, and folding never adds or removes a name,
    # so what propagate_copies learned about the statements stays true
    copies = CopyFacts(resolve)  # what each statement reads and assigns, shared by the passes
    # ids of the statements to fold: those where a rule may apply (statement_facts), first
    # all, then those changed since
    copies.reads, copies.stores, changed = copies.survey(tree)
    statements = None  # those statements themselves, when known: folded without a walk
    for step in range(3):
        if step:
            changed, statements = copies.foldable(changed)
        folded = set()
        if "fold_constants" in enabled and changed != set():
            tree = checked("fold_constants", fold_constants(
                tree, is_floating, changed, folded, statements), parsed, aliases)
        if step == 2:
            break
        changed = folded
        if "propagate_copies" in enabled and (folded or not copies.converged):
            tree = checked("propagate_copies", propagate_copies(
                tree, copies, changed, confirm=invariants.enabled()), parsed, aliases)
    if "remove_dead_code" in enabled:
        # (the read counts the passes kept: remove_dead_code keeps them the tree's)
        tree = checked("remove_dead_code", remove_dead_code(
            tree, resolve, copies.reads, copies, confirm=invariants.enabled()), parsed, aliases)
    if "accumulate_in_place" in enabled:
        tree = accumulate_in_place(tree, lambda n: namer.primal_of(n) is not None,
                                   resolve, copies)
        tree = checked("accumulate_in_place", tree, parsed, aliases)
    if "fuse_single_use" in enabled:
        # the user's own names and the derivatives stay; srcad's temporaries may go
        keep = set(parsed.identifiers) | {n for n in namer.taken
                                          if namer.primal_of(n) is not None}
        tree = fuse_single_use(tree, resolve, keep, copies, confirm=invariants.enabled())
        tree = checked("fuse_single_use", tree, parsed, aliases)
    return tree
