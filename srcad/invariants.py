"""Check, after each pass, what its docstring says holds after it (a debug mode).

Each pass of the pipeline states its postcondition in its docstring. The
checkers here verify those statements mechanically on the pass's output, so a
pass that breaks its contract fails at that pass, naming it, instead of three
stages later as a wrong derivative or an internal exception. The invariants
accumulate: what to_anf establishes must still hold after every later
normalize pass, for instance.

The checks cost a few walks of the tree per pass, so they are off by default;
``SRCAD_CHECK_INVARIANTS=1`` switches them on (tests/conftest.py does, for the
whole test suite). The pipeline calls ``check(pass_name, tree, context)``
after every pass; a violation raises BrokenInvariantError naming the pass, the
invariant and the offending statement (its generated line and the user line it
came from).
"""

from __future__ import annotations

import ast
import os

import gast

from . import annotations, syntax
from .emit import to_source
from .normalize.split_tapes import layout, tapes

ENVIRONMENT_VARIABLE = "SRCAD_CHECK_INVARIANTS"


def enabled() -> bool:
    """Whether the pipeline checks invariants (read on every call: tests switch it)."""
    return os.environ.get(ENVIRONMENT_VARIABLE, "") not in ("", "0")


class BrokenInvariantError(AssertionError):
    """A pass produced output that breaks the invariant its docstring states: a bug in srcad."""

    def __init__(self, pass_name: str, invariant: str, node=None):
        self.pass_name = pass_name
        self.invariant = invariant
        self.node = node
        message = "internal error: after %s, %s" % (pass_name, invariant)
        if node is not None:
            message += "\n    offending statement: %s" % _first_line(node)
            origin = annotations.origin(node)
            if origin is not None:
                message += "\n    from the user's code at %s:%d" % (origin.filename,
                                                                    origin.lineno)
        super().__init__(message)


class Context:
    """What a checker may need to know beyond the tree.

    ``lookup(name)``: the object a free name means (one of srcad's aliases, or a
    global, closure variable or builtin of the user's), else ``MISSING``.
    """

    def __init__(self, lookup=None):
        self.lookup = lookup or (lambda name: MISSING)

    def is_free(self, name) -> bool:
        return self.lookup(name) is not MISSING


MISSING = object()


def check(pass_name: str, tree, context: Context | None = None) -> None:
    """Raise BrokenInvariantError if ``tree``, just made by ``pass_name``, breaks its contract."""
    context = context or Context()
    for checker in CHECKS.get(pass_name, ()):
        checker(pass_name, tree, context)


# ---- helpers


def _first_line(node) -> str:
    try:
        text = to_source(syntax.deepcopy(node) if isinstance(node, gast.stmt)
                         else gast.Expr(value=syntax.deepcopy(node)))
    except Exception:  # noqa: BLE001 - a broken node may not print; name its type then
        return "<%s>" % type(node).__name__
    return text.strip().splitlines()[0] if text.strip() else "<%s>" % type(node).__name__


def _statements(body):
    """Every statement of ``body``, nested blocks included (not nested function bodies)."""
    for statement in body:
        yield statement
        if isinstance(statement, (gast.FunctionDef, gast.Lambda)):
            continue
        for field in ("body", "orelse"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _nodes(tree) -> list:
    """Every node under ``tree`` (a plain stack walk: checks run after every pass, so they
    must be cheap)."""
    nodes, stack = [], [tree]
    while stack:
        node = stack.pop()
        nodes.append(node)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, gast.AST))
            elif isinstance(value, gast.AST):
                stack.append(value)
    return nodes


def _local_names(tree, nodes=None) -> set:
    """The names the function binds: its parameters and every name it assigns."""
    local = {a.id for a in tree.args.args}
    for node in nodes if nodes is not None else _nodes(tree):
        if type(node) is gast.Name and type(node.ctx) is not gast.Load:
            local.add(node.id)
    return local


def _statement_holding(tree, target):
    """The innermost statement whose own expressions contain ``target`` (to report it)."""
    for statement in _statements(tree.body):
        if any(node is target for node in _own_expressions(statement)):
            return statement
    return None


def _is_comment(statement) -> bool:
    return annotations.comment_text(statement) is not None


# ---- parse and fence


def _check_parse(pass_name, tree, context):
    if not isinstance(tree, gast.FunctionDef):
        raise BrokenInvariantError(pass_name, "the tree is a %s, not a function definition"
                                   % type(tree).__name__)
    if tree.decorator_list:
        raise BrokenInvariantError(pass_name, "the function keeps its decorators", tree)


_UNSUPPORTED = (gast.Try, gast.With, gast.Delete, gast.Global, gast.Nonlocal, gast.Import,
                gast.ImportFrom, gast.ClassDef, gast.AsyncFunctionDef, gast.AsyncFor,
                gast.AsyncWith, gast.SetComp, gast.Yield, gast.YieldFrom,
                gast.Await, gast.NamedExpr, gast.Set)


def _check_fence(pass_name, tree, context):
    for node in syntax.walk(tree):
        if isinstance(node, _UNSUPPORTED):
            raise BrokenInvariantError(pass_name, "an unsupported %s got through"
                                       % type(node).__name__, node)


# ---- normalize


def _check_lower_exits(pass_name, tree, context):
    body = tree.body
    if not body or not isinstance(body[-1], gast.Return):
        raise BrokenInvariantError(pass_name, "the last statement is not the function's "
                                   "return", body[-1] if body else tree)
    for statement in _statements(body[:-1]):
        if isinstance(statement, gast.Return):
            raise BrokenInvariantError(pass_name, "a return other than the last statement "
                                       "remains", statement)
        if isinstance(statement, (gast.Break, gast.Continue)):
            raise BrokenInvariantError(pass_name, "a break or continue remains", statement)
        if isinstance(statement, (gast.For, gast.While)) and statement.orelse:
            raise BrokenInvariantError(pass_name, "a loop keeps an else clause", statement)
        if isinstance(statement, gast.For) and not _iterates_over_range(statement.iter,
                                                                         context):
            raise BrokenInvariantError(pass_name, "a for loop iterates over something other "
                                       "than range(...)", statement)


def _iterates_over_range(iterator, context) -> bool:
    """``range(...)``, or ``range(...)[::-1]`` (what ``reversed(range(...))`` becomes)."""
    if isinstance(iterator, gast.Subscript) and isinstance(iterator.slice, gast.Slice):
        iterator = iterator.value
    return (isinstance(iterator, gast.Call) and isinstance(iterator.func, gast.Name)
            and context.lookup(iterator.func.id) is range)


def _check_anf(pass_name, tree, context):
    """to_anf's docstring: one operation per statement, operands atoms; writes into objects
    are statements of their own, marked as such."""
    _check_normalized(pass_name, tree, writes=True)


def _check_no_writes(pass_name, tree, context):
    """lower_mutations' docstring: A-normal form, and no statement writes into an object (a
    write is an assignment of a new value, still marked)."""
    _check_normalized(pass_name, tree, writes=False)


def _check_normalized(pass_name, tree, writes):
    local = _local_names(tree)
    body = tree.body
    if not body or not isinstance(body[-1], gast.Return):
        raise BrokenInvariantError(pass_name, "the function does not end in its return",
                                   body[-1] if body else tree)
    for statement in _statements(body):
        if statement is body[-1]:
            value = statement.value
            elements = value.elts if isinstance(value, gast.Tuple) else [value]
            if not all(_is_atom(e, local) for e in elements):
                raise BrokenInvariantError(pass_name, "the return value is not an atom (or a "
                                           "tuple of atoms)", statement)
            continue
        kind = annotations.write_kind(statement)
        if writes and kind is not None:
            problem = _write_problem(statement, kind, local)
        else:
            problem = _anf_problem(statement, local)
            if problem is None and kind is not None and not (
                    isinstance(statement, gast.Assign)
                    and isinstance(statement.targets[0], gast.Name)):
                problem = "a write (%s) is not an assignment to a name" % kind
        if problem is not None:
            raise BrokenInvariantError(pass_name, problem, statement)


def _anf_problem(statement, local):
    if isinstance(statement, (gast.Assert, gast.Raise, gast.Pass)) or _is_comment(statement):
        return None  # checks are kept as written
    if annotations.origin(statement) is None and not annotations.is_placeholder(statement):
        return "a statement does not record the user statement it came from"
    if isinstance(statement, gast.Assign):
        if len(statement.targets) != 1:
            return "an assignment has several targets"
        target = statement.targets[0]
        if isinstance(target, gast.Name):
            return None if _is_operation(statement.value, local) else (
                "an assignment's value is not one operation on atoms")
        if isinstance(target, (gast.Tuple, gast.List)):
            if not all(isinstance(n, (gast.Name, gast.Tuple, gast.List, gast.Starred))
                       for n in syntax.walk(target) if isinstance(n, gast.expr)):
                return "an unpacking assigns something other than names"
            return None if _is_atom(statement.value, local) else (
                "an unpacking's value is not an atom")
        return "an assignment's target is a %s, not a name" % type(target).__name__
    if isinstance(statement, gast.Expr):
        return None if _is_operation(statement.value, local) else (
            "an expression statement is not one operation on atoms")
    if isinstance(statement, gast.For):
        if not isinstance(statement.target, gast.Name):
            return "a for loop's target is not a name"
        iterator = statement.iter
        if isinstance(iterator, gast.Call):
            if iterator.keywords or not all(_is_atom(a, local) for a in iterator.args):
                return "a for loop's iterator call has operands that are not atoms"
            return None
        return None if _is_atom(iterator, local) else "a for loop iterates over a non-atom"
    if isinstance(statement, (gast.While, gast.If)):
        return None if _is_atom(statement.test, local) else "a test is not an atom"
    return "a %s statement remains" % type(statement).__name__


def _write_problem(statement, kind, local):
    """What is wrong with a write to_anf left for lower_mutations, or None."""
    if annotations.origin(statement) is None:
        return "a statement does not record the user statement it came from"
    if kind == "subscript":
        target = statement.targets[0] if isinstance(statement, gast.Assign) else None
        good = (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                and _is_index(target.slice, local) and _is_atom(statement.value, local))
    elif kind == "augmented":
        good = (isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name)
                and _is_atom(statement.value, local))
    elif kind == "pop":
        good = (isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Call)
                and isinstance(statement.value.func, gast.Attribute)
                and statement.value.func.attr == "pop"
                and isinstance(statement.value.func.value, gast.Name))
    else:  # append, add_at: a call whose first operand is the name written
        call = statement.value if isinstance(statement, gast.Expr) else None
        written = (call.func.value if kind == "append" else call.args[0]) if isinstance(
            call, gast.Call) and (call.args or kind == "append") else None
        good = (isinstance(written, gast.Name) and isinstance(call.func, gast.Attribute)
                and all(_is_argument(a, local) for a in call.args))
    return None if good else "a write (%s) is not in the form lower_mutations lowers" % kind


def _is_static_reference(node, local) -> bool:
    if isinstance(node, gast.Attribute):
        return _is_static_reference(node.value, local)
    return isinstance(node, gast.Name) and node.id not in local


def _is_atom(node, local) -> bool:
    return isinstance(node, (gast.Name, gast.Constant)) or _is_static_reference(node, local)


def _is_index(node, local) -> bool:
    if isinstance(node, gast.Slice):
        return all(part is None or _is_atom(part, local)
                   for part in (node.lower, node.upper, node.step))
    if isinstance(node, gast.Tuple):
        return all(_is_index(e, local) for e in node.elts)
    return _is_atom(node, local)


def _is_argument(node, local) -> bool:
    """An operand of a call: an atom, or an index spelled as an expression (``slice(a, b)``)."""
    if _is_atom(node, local):
        return True
    if isinstance(node, gast.Tuple):
        return all(_is_argument(e, local) for e in node.elts)
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "slice" and not node.keywords
            and all(_is_atom(a, local) for a in node.args))


def _is_operation(node, local) -> bool:
    if _is_atom(node, local):
        return True
    if isinstance(node, gast.BinOp):
        return _is_atom(node.left, local) and _is_atom(node.right, local)
    if isinstance(node, gast.UnaryOp):
        return _is_atom(node.operand, local)
    if isinstance(node, gast.Compare):
        return (len(node.ops) == 1 and _is_atom(node.left, local)
                and _is_atom(node.comparators[0], local))
    if isinstance(node, gast.Call):
        func = node.func
        callee_ok = _is_atom(func, local) or (isinstance(func, gast.Attribute)
                                              and _is_atom(func.value, local))
        # (f(*args), f(**options): a starred atom, where the call is no user function)
        return (callee_ok and all(_is_argument(a.value if isinstance(a, gast.Starred) else a,
                                               local) for a in node.args)
                and all(_is_argument(k.value, local) for k in node.keywords))
    if isinstance(node, gast.Attribute):
        return _is_atom(node.value, local)
    if isinstance(node, gast.Subscript):
        return _is_atom(node.value, local) and _is_index(node.slice, local)
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(_is_atom(e, local) for e in node.elts)
    if isinstance(node, gast.Dict):
        return all(_is_atom(v, local) for v in node.values)
    if isinstance(node, gast.JoinedStr):  # an f-string formatting atoms
        return all(not isinstance(part, gast.FormattedValue) or (
            _is_atom(part.value, local)
            and (part.format_spec is None or _is_operation(part.format_spec, local)))
            for part in node.values)
    return False


def _check_no_unpacking(pass_name, tree, context):
    """split_tuples' docstring: after it no assignment unpacks."""
    for statement in _statements(tree.body):
        if isinstance(statement, gast.Assign) and not isinstance(statement.targets[0],
                                                                 gast.Name):
            raise BrokenInvariantError(pass_name, "an assignment still unpacks", statement)


def _check_single_assignment(pass_name, tree, context):
    """rename_versions' docstring: outside loops one assignment per name on every path;
    inside a loop body one per iteration, and none to a name assigned before the loop but
    for the carries (``x = x_2``) at the end of the body."""
    _assigned_once(pass_name, tree.body, {a.id for a in tree.args.args}, frozenset(), False)


def _assigned_once(pass_name, body, own, enclosing, in_loop) -> set:
    """Check ``body``: ``own`` are the names already assigned at its level (outside loops, or
    in this iteration), ``enclosing`` those assigned outside the loop it is in. Returns the
    names assigned at its level after it (a loop's own assignments stay inside the loop)."""
    own = set(own)
    for statement in body:
        if isinstance(statement, gast.If):
            own = (_assigned_once(pass_name, statement.body, own, enclosing, in_loop)
                   | _assigned_once(pass_name, statement.orelse, own, enclosing, in_loop))
            continue
        if isinstance(statement, (gast.For, gast.While)):
            iteration = {statement.target.id} if isinstance(statement, gast.For) else set()
            _assigned_once(pass_name, statement.body, iteration, enclosing | own, True)
            continue
        if annotations.is_placeholder(statement):
            continue  # a placeholder is overwritten by the version it stands for
        for name in _assigned_names(statement):
            if in_loop and annotations.is_carry(statement):
                continue
            if name in own:
                raise BrokenInvariantError(pass_name, "%s is assigned twice on one path%s"
                                           % (name, " of an iteration" if in_loop else ""),
                                           statement)
            if name in enclosing:
                raise BrokenInvariantError(pass_name, "%s, assigned before a loop, is assigned "
                                           "in its body by a statement that is not a carry"
                                           % name, statement)
            own.add(name)
    return own


def _assigned_names(statement) -> list:
    if isinstance(statement, gast.Assign):
        return [n.id for target in statement.targets for n in syntax.names(target)]
    if isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name):
        return [statement.target.id]
    return []


# ---- transform and optimize


def _check_accumulation_form(pass_name, tree, context):
    """reverse's docstring: adjoints accumulate (``x_bar += e``, ``del x_bar``) into names."""
    for statement in _statements(tree.body):
        if isinstance(statement, gast.AugAssign) and not isinstance(statement.target, gast.Name):
            raise BrokenInvariantError(pass_name, "an accumulation into something other than "
                                       "a name", statement)
        if isinstance(statement, gast.Delete) and not all(
                isinstance(t, gast.Name) for t in statement.targets):
            raise BrokenInvariantError(pass_name, "a del of something other than a name",
                                       statement)


def _check_no_accumulation(pass_name, tree, context):
    """lower_accumulations' docstring: no ``+=``/``-=`` and no ``del`` remain."""
    for statement in _statements(tree.body):
        if isinstance(statement, (gast.AugAssign, gast.Delete)):
            raise BrokenInvariantError(pass_name, "an accumulation (+=, -= or del) remains",
                                       statement)


def _check_reads_are_bound(pass_name, tree, context):
    """Generated code reads no name that nothing binds (e.g. an adjoint never assigned)."""
    nodes = _nodes(tree)
    local = _local_names(tree, nodes)
    free = {}
    for node in nodes:
        if type(node) is gast.Name and node.id not in local:
            if node.id not in free:
                free[node.id] = context.is_free(node.id)
            if not free[node.id]:
                raise BrokenInvariantError(pass_name, "%s is read but nothing binds it"
                                           % node.id, _statement_holding(tree, node))


def _own_expressions(statement):
    """The expression nodes of ``statement`` itself (not of the statements nested in it)."""
    for field, value in gast.iter_fields(statement):
        if field in ("body", "orelse"):
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, gast.AST):
                yield from syntax.walk(child)


def _check_constants_folded(pass_name, tree, context):
    """fold_constants' docstring: no operator has only constant operands (but 1 / 0)."""
    for node in _nodes(tree):
        if (type(node) is gast.BinOp and _is_number(node.left) and _is_number(node.right)
                and _evaluates(node)):
            raise BrokenInvariantError(pass_name, "an operator with only constant operands "
                                       "remains", _statement_holding(tree, node))


def _is_number(node) -> bool:
    return (isinstance(node, gast.Constant) and isinstance(node.value, (int, float, complex))
            and not isinstance(node.value, bool))


def _evaluates(node) -> bool:
    expression = ast.Expression(body=gast.gast_to_ast(syntax.deepcopy(node)))
    try:
        eval(compile(ast.fix_missing_locations(expression), "<fold>", "eval"), {})
    except Exception:  # noqa: BLE001 - 1 / 0, 10.0 ** 400: folding rightly leaves them
        return False
    return True


def _check_no_self_copies(pass_name, tree, context):
    """propagate_copies' docstring: ``a = a`` left behind by the replacement is removed."""
    for statement in _statements(tree.body):
        if (isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Name)
                and len(statement.targets) == 1 and isinstance(statement.targets[0], gast.Name)
                and statement.targets[0].id == statement.value.id):
            raise BrokenInvariantError(pass_name, "a copy of a name to itself remains",
                                       statement)


def _check_tapes_paired(pass_name, tree, context):
    """split_tapes' docstring: every pop of a tape reads back a layout a push on that same
    list records."""
    for tape, uses in tapes(tree).items():
        pushed = {layout(s.value.args[0]) for s in uses["push"]}
        for statement in uses["pop"]:
            if layout(statement.targets[0]) not in pushed:
                raise BrokenInvariantError(pass_name, "a pop of %s reads a layout no push "
                                           "on it records" % tape, statement)


_NORMALIZED = (_check_no_writes,)
_VALID_CODE = (_check_reads_are_bound,)

# pass name -> the checks of what holds after it (invariants of earlier passes that must
# survive are repeated)
CHECKS = {
    "parse": (_check_parse,),
    "fence": (_check_parse, _check_fence),
    "lower_exits": (_check_lower_exits,),
    "split_tapes": (_check_lower_exits, _check_tapes_paired),
    "to_anf": (_check_anf,),
    "lower_mutations": _NORMALIZED,
    "propagate_writes": _NORMALIZED,
    "split_tuples": _NORMALIZED + (_check_no_unpacking,),
    "rename_versions": _NORMALIZED + (_check_no_unpacking, _check_single_assignment),
    "reverse": (_check_accumulation_form,),
    "forward": _VALID_CODE,
    "lower_accumulations": (_check_no_accumulation,) + _VALID_CODE,
    "specialize_runtime_calls": _VALID_CODE,
    "simplify_zeros": _VALID_CODE,
    "fold_constants": (_check_constants_folded,) + _VALID_CODE,
    "propagate_copies": (_check_no_self_copies,) + _VALID_CODE,
    "remove_dead_code": _VALID_CODE,
    "accumulate_in_place": _VALID_CODE,
    "fuse_single_use": _VALID_CODE,
}
