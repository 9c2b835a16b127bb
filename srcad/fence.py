"""Stage 2, fence: reject every construct the later stages do not handle, up front.

After this stage the function body holds only constructs that normalize,
analyze and transform support; anything else has been reported with an
UnsupportedSyntaxError naming the construct, at file:line:col with a caret.
Nothing unsupported may reach a later stage and fail there with an internal
exception.
"""

from __future__ import annotations

import gast
import numpy

from . import syntax
from .errors import UnsupportedSyntaxError
from .parse import ParsedFunction
from .registry import describe
from .resolve import Resolver

# node type -> (what it is called, what the user can do instead)
_REJECTED_STATEMENTS = {
    gast.Try: ("a `try` statement", "Move error handling outside the differentiated function."),
    gast.With: ("a `with` statement", "Move the context manager outside the differentiated function."),
    gast.Delete: ("a `del` statement", "Remove the `del`; srcad manages variable lifetimes."),
    gast.Global: ("a `global` declaration", "Pass the value in as an argument instead."),
    gast.Nonlocal: ("a `nonlocal` declaration", "Pass the value in as an argument instead."),
    gast.Import: ("an `import` statement", "Import at module level."),
    gast.ImportFrom: ("an `import` statement", "Import at module level."),
    gast.ClassDef: ("a class definition", "Define classes at module level."),
    gast.AsyncFunctionDef: ("an async function", "Differentiate synchronous code only."),
    gast.AsyncFor: ("an `async for` loop", "Differentiate synchronous code only."),
    gast.AsyncWith: ("an `async with` statement", "Differentiate synchronous code only."),
}

_REJECTED_EXPRESSIONS = {
    gast.SetComp: ("a set comprehension", "Sets cannot carry gradients."),
    gast.GeneratorExp: (("a generator expression that is not consumed where it is made "
                         "(assigned, returned, stored or combined)"),
                        ("Write a list comprehension `[... for ...]`, or pass the generator "
                         "straight to the function that consumes it (`sum(... for ...)`).")),
    gast.Yield: ("`yield`", "Generators cannot be differentiated."),
    gast.YieldFrom: ("`yield from`", "Generators cannot be differentiated."),
    gast.Await: ("`await`", "Differentiate synchronous code only."),
    gast.NamedExpr: ("an assignment expression (`:=`)", "Use a separate assignment statement."),
    gast.Starred: ("a starred expression (`*x`)", "Pass arguments one by one."),
    gast.Set: ("a set literal", "Sets cannot carry gradients."),
}


# methods that change their object in place (append on a list is supported: it becomes a new list)
_MUTATING_METHODS = {"extend", "insert", "remove", "reverse", "sort", "clear", "fill",
                     "resize", "put", "itemset", "setfield", "partition", "update",
                     "setdefault", "popitem", "byteswap", "setflags"}


# functions that write into one of their arguments
_WRITING_FUNCTIONS = ("copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis")


_WRITERS = tuple(getattr(numpy, name, None) for name in _WRITING_FUNCTIONS)


_WRITER_IDS = frozenset(id(writer) for writer in _WRITERS)  # (they live as long)


def _writes_into_argument(function) -> bool:
    # (rt.add_at in srcad's own code is not one: forward mode follows it, reverse mode
    # refuses it)
    return id(function) in _WRITER_IDS


def fence(parsed: ParsedFunction, *, has_aux: bool = False, inlined: bool = False) -> None:
    """Raise UnsupportedSyntaxError at the first construct srcad cannot handle.

    ``inlined``: the function is a callee that srcad inlines, so any signature
    will do (*args and **kwargs become a tuple and a dict of the call's values).
    """
    tree = parsed.tree
    if not inlined:
        _check_signature(parsed)
    body = [s for s in tree.body if not _is_docstring(s)]
    for statement in body:
        _check_statement(parsed, statement, loop_depth=0)
    returns = [n for n in syntax.own_statements(tree) if isinstance(n, gast.Return)]
    if inlined:
        return  # a helper may return nothing (None), e.g. one that writes into its argument
    for returned in returns:
        if returned.value is None:
            _reject(parsed, returned, "a `return` without a value",
                    "A differentiated function must return its output.")
    if not returns:
        _reject(parsed, body[-1] if body else tree, "a function without `return <value>`",
                "A differentiated function must return its output.")
    if has_aux:
        returned = body[-1].value if isinstance(body[-1], gast.Return) else None
        if len(returns) > 1 or not (isinstance(returned, gast.Tuple) and len(returned.elts) == 2):
            _reject(parsed, returns[0], "has_aux=True with a return that is not a single "
                    "final `return loss, aux`", "Return once, at the end: `return loss, aux`.")


def _is_docstring(statement) -> bool:
    return isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant)


def _check_signature(parsed: ParsedFunction) -> None:
    args = parsed.tree.args
    if args.vararg is not None or args.kwarg is not None:
        _reject(parsed, args.vararg or args.kwarg, "a `*args` or `**kwargs` parameter",
                "Name each parameter explicitly.")
    if args.kwonlyargs:
        _reject(parsed, args.kwonlyargs[0], "a keyword-only parameter",
                "Make it an ordinary parameter.")
    if args.posonlyargs:
        _reject(parsed, args.posonlyargs[0], "a positional-only parameter",
                "Make it an ordinary parameter.")


def _check_statement(parsed, statement, loop_depth) -> None:
    rejected = _REJECTED_STATEMENTS.get(type(statement))
    if rejected:
        _reject(parsed, statement, *rejected)
    if isinstance(statement, (gast.For, gast.While, gast.If)):
        _check_compound(parsed, statement, loop_depth)
        return
    if isinstance(statement, gast.FunctionDef):
        _check_nested_function(parsed, statement)
        return
    if isinstance(statement, gast.Assign):
        for target in statement.targets:
            _check_target(parsed, target)
    elif isinstance(statement, (gast.AugAssign, gast.AnnAssign)):
        _check_target(parsed, statement.target)
        if isinstance(statement, gast.AnnAssign) and statement.value is None:
            _reject(parsed, statement, "an annotation without a value", "Assign a value.")
    elif isinstance(statement, (gast.Break, gast.Continue)):
        if loop_depth == 0:
            _reject(parsed, statement, "`%s` outside a loop" % type(statement).__name__.lower(),
                    "Python would reject this too.")
    elif not isinstance(statement, (gast.Return, gast.Expr, gast.Pass, gast.Assert, gast.Raise)):
        _reject(parsed, statement, "a `%s` statement" % type(statement).__name__.lower(),
                "Rewrite it with assignments.")
    _check_expressions(parsed, statement)


_ITERATION_HELPERS = (range, enumerate, zip, reversed)


def _check_compound(parsed, statement, loop_depth) -> None:
    if isinstance(statement, gast.For):
        _check_for_header(parsed, statement)
        _check_expressions(parsed, gast.Expr(value=statement.iter), loop=statement)
    else:
        _check_expressions(parsed, gast.Expr(value=statement.test))
    inner_depth = loop_depth + (0 if isinstance(statement, gast.If) else 1)
    for inner in statement.body:
        _check_statement(parsed, inner, inner_depth)
    for inner in statement.orelse:
        _check_statement(parsed, inner, loop_depth)


def _check_for_header(parsed, loop) -> None:
    """``for x in <expression>`` (also a comprehension's ``for``); the items may be unpacked
    into names, nested to any depth, one of them starred at each level."""
    iterator = loop.iter
    helper = _static_object(parsed, iterator.func) if isinstance(iterator, gast.Call) else None
    if helper in _ITERATION_HELPERS and (iterator.keywords or not iterator.args):
        _reject(parsed, iterator, "%s(...) with keyword arguments" % helper.__name__,
                "Pass positional arguments only.")
    if helper is range and len(iterator.args) > 3:
        _reject(parsed, iterator, "range(...) with more than 3 arguments", "")
    target = loop.target
    if helper is zip and any(isinstance(a, gast.Starred) for a in iterator.args) and len(
            iterator.args) != 1:
        _reject(parsed, iterator, "zip(*sequences) with other arguments",
                "Zip the sequences of one list: `zip(*([u, v] + rows))`.")
    if isinstance(target, gast.Name) or helper is not range and syntax.is_target_of_names(target):
        return  # for W, b in layers, for first, *rest in rows: each item unpacked
    _reject(parsed, target, "this loop target", "Loop with a plain name, or unpack "
            "the items into names: `for W, b in layers`, `for i, x in enumerate(xs)`.")


def _is_unpacking_target(target) -> bool:
    """A name, or a tuple or list of such targets (no starred names): ``(W, b)``."""
    if isinstance(target, gast.Name):
        return True
    return isinstance(target, (gast.Tuple, gast.List)) and all(
        _is_unpacking_target(e) for e in target.elts)


def _check_nested_function(parsed, definition) -> None:
    """A nested ``def``: inlined where it is called, so it follows the same rules."""
    if definition.decorator_list:
        _reject(parsed, definition.decorator_list[0], "a decorated nested function",
                "Define it without decorators.")
    args = definition.args
    _check_expressions(parsed, gast.Expr(value=gast.Tuple(elts=list(args.defaults) + [
        d for d in args.kw_defaults if d is not None], ctx=gast.Load())))
    for statement in definition.body:
        if _is_docstring(statement):
            continue
        _check_statement(parsed, statement, loop_depth=0)


def _check_target(parsed, target) -> None:
    if isinstance(target, gast.Name):
        return
    if isinstance(target, (gast.Tuple, gast.List)):
        if _is_unpacking_target(target):
            return  # names, nested to any depth: (W, b), rest = ...
        starred = [e for e in target.elts if isinstance(e, gast.Starred)]
        for element in target.elts:
            if isinstance(element, gast.Starred) and isinstance(element.value, gast.Name) \
                    and len(starred) == 1:
                continue
            if not isinstance(element, gast.Name):
                _reject(parsed, element, "a nested unpacking target with a starred name",
                        "Unpack into names (one of them may be starred), or nest "
                        "without a starred name.")
        return
    if isinstance(target, gast.Subscript):
        container = target.value
        while isinstance(container, gast.Subscript):  # y[i] = v, xs[t][k] = v, ...
            container = container.value
        if isinstance(container, gast.Name):
            return
        _reject(parsed, target, "an assignment into an element of something not named "
                "(`f(x)[i] = ...`, `obj.items[i] = ...`)",
                "Give the object a name first (`items = obj.items`), then write into it.")
    what = {
        gast.Attribute: "an assignment to an attribute (`obj.attr = ...`)",
    }.get(type(target), "this assignment target")
    _reject(parsed, target, what, "Assign to a plain variable instead.")


_CHECKED_EXPRESSIONS = frozenset([gast.Starred, gast.Lambda, gast.Dict, gast.Call, gast.ListComp,
                                  gast.DictComp, gast.Constant, gast.Slice]) | frozenset(
                                      _REJECTED_EXPRESSIONS)

# srcad's templates are derivatives of real functions: a complex value inside would get
# derivatives without the conjugates complex calculus needs
_COMPLEX_MAKERS = (complex, numpy.complex64, numpy.complex128)
_COMPLEX_MAKER_IDS = frozenset(id(maker) for maker in _COMPLEX_MAKERS)  # (they live as long)
_COMPLEX_HINT = ("srcad differentiates real-valued code; write the real and imaginary parts as "
                 "separate real arrays.")


# builtins that consume an iterable lazily, as their own caller consumes them (zip(g, xs) in
# a loop)
_LAZY_BUILTINS = (zip, enumerate)


def _consumed_generators(parsed, statement, loop, checked_nodes) -> set:
    """The ids of the generator expressions in ``statement`` that are consumed where they
    are made, so evaluating them there as a list changes nothing.

    A generator given to a function is consumed at once (by ``sum``, ``max``, ``tuple``...
    or by the user's own functions, inlined, which iterate it once), except by NumPy, which
    takes it as one object (rejected); so is one a comprehension's ``for`` iterates. One
    that a ``for`` loop iterates (also through zip or enumerate) is consumed element by
    element between iterations of the body: it acts as a list when the body writes nothing
    it reads. (``checked_nodes``: the statement's nodes _checked_nodes gives, in its order.)
    """
    consumed, lazy = set(), []
    for node in checked_nodes:
        if isinstance(node, gast.Call):
            generators = [a for a in node.args if isinstance(a, gast.GeneratorExp)]
            if not generators:
                continue
            callee = _static_object(parsed, node.func)
            if any(callee is c for c in _LAZY_BUILTINS):
                lazy.extend(generators)
            elif _is_numerical_library(callee):
                _reject(parsed, generators[0], "a generator expression passed to %s"
                        % describe(callee), "NumPy takes a generator as one object (a 0-d "
                        "object array): pass a list comprehension `[... for ...]`.")
            else:  # a builtin that consumes it (sum, max...), one of the user's functions
                consumed.update(id(g) for g in generators)
        elif isinstance(node, COMPREHENSION_TYPES):
            consumed.update(id(c.iter) for c in node.generators
                            if isinstance(c.iter, gast.GeneratorExp))
    if loop is None:  # zip(g, xs) given to a consumer, or iterated by a comprehension
        consumed.update(id(g) for g in lazy)
    else:
        iterated = statement.value
        if isinstance(iterated, gast.GeneratorExp):
            lazy.append(iterated)
        # (what the body writes, found only for a loop that iterates a generator lazily)
        written = _written_names(loop.body) | syntax.stored_names(loop.target) if lazy \
            else set()
        for generator in lazy:
            read = syntax.load_names(generator) - syntax.stored_names(generator)
            if not read & written:
                consumed.add(id(generator))
            else:
                _reject(parsed, generator, "a generator expression iterated by a loop whose "
                        "body changes `%s`, which it reads" % min(read & written),
                        "Write a list comprehension `[... for ...]` (evaluated before the "
                        "loop), or an explicit loop.")
    return consumed


COMPREHENSION_TYPES = (gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)


def _is_numerical_library(callee) -> bool:
    """A NumPy or SciPy function (or ufunc): they take a generator as one object."""
    if isinstance(callee, numpy.ufunc):
        return True
    module = getattr(callee, "__module__", None)
    return isinstance(module, str) and module.split(".")[0] in ("numpy", "scipy")


def _written_names(statements) -> set:
    """Names the statements rebind or write into (``y[i] = v``, ``y += v``, ``y.append(v)``)."""
    block = gast.Module(body=list(statements), type_ignores=[])
    written = set(syntax.stored_names(block))
    for node in syntax.walk(block):
        if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(
                node.ctx, gast.Store) or isinstance(node, gast.Call) and isinstance(
                node.func, gast.Attribute):
            base = node.func.value if isinstance(node, gast.Call) else node.value
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name):
                written.add(base.id)
    return written


def _check_comprehension(parsed, node) -> None:
    for clause in node.generators:
        if clause.is_async:
            _reject(parsed, node, "an asynchronous comprehension",
                    "Differentiate synchronous code only.")
        _check_for_header(parsed, clause)


def _starred_in_headers(parsed, clauses) -> set:
    """Ids of the starred names of loop targets (``first, *rest``) and of the ``*pairs`` of
    ``zip(*pairs)`` iterated: what _check_for_header accepted."""
    found = set()
    for clause in clauses:
        found.update(id(n) for n in syntax.walk(clause.target) if isinstance(n, gast.Starred))
        if isinstance(clause.iter, gast.Call) and _static_object(parsed, clause.iter.func) is zip:
            found.update(id(a) for a in clause.iter.args if isinstance(a, gast.Starred))
    return found


_CHILD_FIELDS: dict = {}  # node type -> syntax.child_fields of it


def _checked_nodes(statement) -> list:
    """The nodes inside ``statement`` whose type _check_expressions looks at (and so
    _consumed_generators: calls, comprehensions), in ``syntax.walk``'s order (breadth
    first: a call before its arguments), found in one walk that both loops share."""
    found, queue = [], [statement]
    checked, AST, fields_of = _CHECKED_EXPRESSIONS, gast.AST, _CHILD_FIELDS
    append, push = found.append, queue.append
    for current in queue:  # (the list grows as the walk goes: a queue never popped)
        kind = type(current)
        if kind in checked:
            append(current)
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = syntax.child_fields(kind)
        for field in fields:
            value = getattr(current, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)
    return found


def _check_expressions(parsed, statement, loop=None) -> None:
    """``loop``: the for loop whose header ``statement`` (an Expr of its iterable) is."""
    checked_nodes = _checked_nodes(statement)
    summed = _consumed_generators(parsed, statement, loop, checked_nodes)
    allowed_lambda = (statement.value if isinstance(statement, gast.Assign)
                      and len(statement.targets) == 1 and isinstance(statement.targets[0], gast.Name)
                      and isinstance(statement.value, gast.Lambda) else None)
    if isinstance(statement, gast.Return) and isinstance(statement.value, gast.Lambda):
        allowed_lambda = statement.value  # a builder's `return lambda t: ...`, inlined
    starred_targets = {id(e) for t in getattr(statement, "targets", []) if isinstance(
        t, (gast.Tuple, gast.List)) for e in t.elts if isinstance(e, gast.Starred)}
    if loop is not None:  # the header of a for loop, checked by _check_for_header
        starred_targets |= _starred_in_headers(parsed, [gast.comprehension(
            target=gast.Name(id="_", ctx=gast.Store(), annotation=None, type_comment=None),
            iter=statement.value, ifs=[], is_async=0)])
    argument_lambdas = set()
    slice_bounds = set()
    for node in checked_nodes:  # breadth first: a call before its arguments
        # comprehensions become loops (normalize/lower_comprehensions.py), wherever they are
        if isinstance(node, COMPREHENSION_TYPES):
            _check_comprehension(parsed, node)
            starred_targets |= _starred_in_headers(parsed, node.generators)
        if isinstance(node, gast.Starred) and id(node) in starred_targets:
            continue
        if isinstance(node, gast.Constant):
            if isinstance(node.value, complex) and id(node) not in slice_bounds:
                _reject(parsed, node, "a complex number", _COMPLEX_HINT)
            continue
        if isinstance(node, gast.Slice):  # np.mgrid[0:1:5j]: a count of points, no number
            slice_bounds.update(id(part) for part in (node.lower, node.upper, node.step))
        if isinstance(node, gast.Call):  # f(*args): normalize spreads or binds them
            for argument in node.args:
                if type(argument) is gast.Starred:
                    starred_targets.add(id(argument))
                elif type(argument) is gast.Lambda:
                    # a lambda argument becomes a named local function (normalize/to_anf.py)
                    argument_lambdas.add(id(argument))
            for keyword in node.keywords:
                if type(keyword.value) is gast.Lambda:
                    argument_lambdas.add(id(keyword.value))
            if type(node.func) is gast.Lambda:  # (lambda t: t * t)(x), called where written
                argument_lambdas.add(id(node.func))
        if isinstance(node, gast.Lambda) and node is not allowed_lambda and \
                id(node) not in argument_lambdas:
            _reject(parsed, node, "a lambda that is not assigned to a name, passed to a "
                    "call, called where it is written or returned", "Name it (`square = lambda t: t * t`) and call it by "
                    "that name.")
        if isinstance(node, gast.Dict) and not all(
                k is None or isinstance(k, gast.Constant) and isinstance(k.value, str)
                for k in node.keys):
            _reject(parsed, node, "a dict whose keys are not constant strings",
                    "Use string keys: {\"weight\": w, \"bias\": b}.")
        rejected = _REJECTED_EXPRESSIONS.get(type(node))
        if rejected and id(node) not in summed:
            _reject(parsed, node, *rejected)
        if isinstance(node, gast.Call):
            for keyword in node.keywords:
                if keyword.arg == "out":
                    _reject(parsed, keyword.value, "an `out=` argument (it writes into an array)",
                            "Use the returned value: `y = np.add(a, b)`.")
            func = node.func
            callee = _static_object(parsed, func)
            if id(callee) in _COMPLEX_MAKER_IDS:
                _reject(parsed, func, "a complex number", _COMPLEX_HINT)
            if (isinstance(func, gast.Attribute) and func.attr == "pop"
                    and isinstance(func.value, gast.Name) and func.value.id in parsed.local_names
                    and not (node.args == [] and id(node) == _assigned_value_id(statement))):
                _reject(parsed, func, "a call to .pop() other than `x = items.pop()`",
                        "Pop the last item into a name: `x = items.pop()`.")
            if _writes_into_argument(callee):
                _reject(parsed, func, "a call to %s, which writes into an array"
                        % describe(callee),
                        "Assign the result instead (y = x.copy(), y[mask] = v ...).")
            if (isinstance(func, gast.Attribute) and func.attr in _MUTATING_METHODS
                    and isinstance(func.value, gast.Name) and func.value.id in parsed.local_names):
                _reject(parsed, func, "a call to .%s(), which changes its object in place"
                        % func.attr, "Build a new value instead (for example xs = xs[::-1]).")


def _assigned_value_id(statement):
    return id(statement.value) if isinstance(statement, gast.Assign) else None


def _static_object(parsed, node):
    """What ``node`` (a static reference to a free name) means; None if it is not one."""
    return Resolver(parsed).object_or(node, None)


def _reject(parsed: ParsedFunction, node, construct: str, hint: str):
    raise UnsupportedSyntaxError(
        "srcad does not support %s in a function it differentiates" % construct,
        parsed.location(node),
        hint,
    )
