"""Replace runtime helper calls by what they reduce to for the known argument kinds.

Generated code calls ``rt.unbroadcast``, ``rt.zeros_like``, ``rt.match_type``,
``rt.check_scalar_output`` and the dot/matmul adjoint helpers, which decide at
run time what to do from the shapes they see. When shape inference
(analysis/shapes.py) already knows those shapes, the decision is made here
instead::

    a_bar = rt.unbroadcast(mul_bar * b, a)     (a, b Python floats)
 -> a_bar = mul_bar * b

    b1_bar = rt.unbroadcast(add_bar, b1)       (add: rank 2, b1: rank 1)
 -> b1_bar = add_bar.sum(axis=0)

    h_bar = rt.dot_adjoint_left(dot_bar, h, W2)  (both rank 2)
 -> h_bar = np.dot(dot_bar, W2.T)

    rt.check_unshared(acc, None, x, ...)        (acc a float: never written in place)
 -> None

After this pass every remaining runtime call is one whose outcome depends on
something only known at run time. Each helper's rule (its *specializer*) sits
in the helper's record, beside its templates (srcad/templates/runtime_helpers.py):
``rule(pass_, args, kinds)`` returns the replacement expression, or None.
"""

from __future__ import annotations

import builtins

import gast
import numpy as np

from .. import registry, runtime, syntax
from ..annotations import is_placeholder
from ..analysis import shapes
from ..analysis.operations import operation_of


def specialize_runtime_calls(tree: gast.FunctionDef, env: dict, resolve, aliases,
                             stored: dict | None = None):
    """``stored``: how often each name is assigned in ``tree`` (Store or Del), if counted
    already (shapes.infer counts them; specializing never assigns nor drops an assignment)."""
    _Specialize(env, resolve, aliases, tree, stored=stored).visit(tree)
    return tree


def names_read_once_specialized(statements: list, env: dict, resolve, aliases) -> set:
    """The names ``statements`` read once this pass specialized them (they stay unchanged):
    what specialization removes (the shape argument of rt.unbroadcast...) is not read."""
    specialize = _Specialize(env, resolve, aliases)
    read = set()
    for statement in statements:
        _add_reads_once_specialized(statement, specialize, read)
    return read


def names_read_once_specialized_alike(statements: list, shapes: dict, env: dict, resolve,
                                      aliases) -> set:
    """``names_read_once_specialized(statements, ...)``, specializing one statement of each
    group that specializing changes alike (``shapes``: statement -> its template statement
    and slots, templates.instantiate's record, for those made from templates): what the one
    reads is read in each of the others' names."""
    alike, rest = {}, []
    for statement in statements:
        shape = shapes.get(statement)
        key = _specialized_alike(shape, env, aliases) if shape is not None else None
        if key is None:
            rest.append(statement)
        else:
            alike.setdefault(key, []).append((statement, shape[1]))
    read = set()
    for group in alike.values():
        if len(group) == 1:
            rest.append(group[0][0])
            continue
        first, slots = group[0]
        found = names_read_once_specialized([first], env, resolve, aliases)
        slot_names = {slot[1] for slot in slots if slot[0] != "c"}
        read |= found - slot_names
        positions = [index for index, slot in enumerate(slots)
                     if slot[0] != "c" and slot[1] in found]
        for _, other in group:
            read.update(other[index][1] for index in positions)
    if rest:
        read |= names_read_once_specialized(rest, env, resolve, aliases)
    return read


_BUILTIN_NAMES = frozenset(dir(builtins))


def _specialized_alike(shape, env, aliases):
    """A key equal for statements that specializing changes alike: their template statement,
    and per slot its constant, or the kind of its name (with which earlier slot holds the
    same name), or the name itself when it has no kind or its meaning is not its kind (an
    alias, a builtin). None when a kind cannot be a key."""
    origin, slots = shape
    key, first = [origin], {}
    for index, slot in enumerate(slots):
        if slot[0] == "c":
            key.append(slot)
            continue
        name = slot[1]
        same = first.setdefault(name, index)
        if name in aliases.bindings or name in _BUILTIN_NAMES:
            key.append(("v", name))
        elif name in env:
            kind = env[name]
            key.append(("k", type(kind), kind, same))
        elif slot[0] == "t":
            key.append(("t", same))  # a fresh temporary: no kind, named for this use only
        else:
            key.append(("v", name))
    key = tuple(key)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _add_reads_once_specialized(node, specialize, read: set) -> None:
    """Add to ``read`` the names ``node`` reads once specialized. Specializing a statement
    or expression depends on it alone (its calls, bottom-up), so a compound statement's
    parts are taken one by one: only a part holding a call to specialize is copied and
    specialized, the others are read as they are."""
    blocks = _BLOCK_FIELDS_OF.get(type(node))
    if blocks is None:
        blocks = _BLOCK_FIELDS_OF[type(node)] = frozenset(
            field for field in syntax.child_fields(type(node))
            if field in ("body", "orelse", "finalbody")) if isinstance(node, gast.stmt) else ()
    if blocks:
        for field in syntax.child_fields(type(node)):
            value = getattr(node, field, None)
            if field in blocks:
                for statement in value:
                    _add_reads_once_specialized(statement, specialize, read)
            elif value is not None:
                _add_reads_once_specialized(value, specialize, read)
        return
    loads, specialized = _loads_and_specialized_calls(node, specialize)
    if specialized:
        read |= syntax.load_names(specialize.visit(syntax.deepcopy(node)))
    else:
        read |= loads


_BLOCK_FIELDS_OF: dict = {}  # statement type -> its fields holding statements only


def _loads_and_specialized_calls(node, specialize) -> tuple:
    """(the names ``node`` reads, whether a call in it may be specialized: one with a
    specializer, or any call in a Name's annotation, where the reads do not look)."""
    loads = set()
    stack = [node]
    pop, push = stack.pop, stack.append
    Name, Call, Load, AST = gast.Name, gast.Call, gast.Load, gast.AST
    fields_of = _CHILD_FIELDS
    while stack:
        current = pop()
        kind = type(current)
        if kind is Name:
            if type(current.ctx) is Load:
                loads.add(current.id)
            if getattr(current, "annotation", None) is not None:
                return loads, True  # (specialized as a whole: exact, and rare)
            continue
        if kind is list:
            stack.extend(current)
            continue
        if kind is Call and specialize.rule_for(current) is not None:
            return loads, True
        if kind is gast.Constant or not isinstance(current, AST):
            continue
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = syntax.child_fields(kind)
        for field in fields:
            value = getattr(current, field, None)
            if value is not None:
                push(value)
    return loads, False



def specialize_zeros(tree: gast.FunctionDef, env: dict, resolve, aliases,
                     skipped=frozenset(), stored: dict | None = None):
    """The ``rt.zeros_like`` calls of ``tree`` replaced by what they reduce to for the known
    kinds. simplify_zeros reads such a call as a zero (a product with it is dropped), so the
    pass above leaves an array's for it, and simplify_zeros calls this once it is done.
    ``skipped``: the ids of statements known to hold no such call (not looked into);
    ``stored``: as for specialize_runtime_calls."""
    _Specialize(env, resolve, aliases, tree, zeros_simplified=True, skipped=skipped,
                stored=stored).visit(tree)
    return tree


def shape_sources(tree: gast.FunctionDef, env: dict, resolve, aliases, stored=None):
    """``shape_source`` (below) for the names of ``tree``: name -> a name of the same shape.
    ``stored``: how often each name is assigned (Store or Del) in ``tree``, if counted."""
    specialize = _Specialize(env, resolve, aliases, tree)
    if stored is not None:
        specialize._definitions = _single_definitions(tree, stored)
    return specialize.shape_source


class _Specialize:
    """Rewrites calls bottom-up (arguments first), as a NodeTransformer would, without one:
    a walk that looks each node type's fields up once and skips names and constants."""

    def __init__(self, env, resolve, aliases, tree=None, zeros_simplified=False,
                 skipped=frozenset(), stored=None):
        self.env = env
        self.resolve = resolve
        self.aliases = aliases
        self.tree = tree
        self._definitions = None
        self._stored = stored  # how often each name is assigned in tree, if counted
        self._placeholders = None
        # True after simplify_zeros: only rt.zeros_like calls are left to specialize
        self.zeros_simplified = zeros_simplified
        self.skipped = skipped  # ids of statements known to hold no call to specialize
        self._rules = {}  # callee "f" or ("m", "f") -> its specializer (rule_for)
        self._evaluated = {}  # shapes.evaluate's cache for the pass

    def shape_source(self, node):
        """A name whose array has the same shape as ``node``'s (a name), read for its
        ``.shape`` only: a parameter, when ``node`` is made elementwise from one of the same
        fully known pattern (``mul = out * W``: ``W``), so that ``node`` need not be
        computed just for its shape. ``node`` itself when none is known."""
        if self.tree is None or type(node) is not gast.Name:
            return node
        if self._definitions is None:
            self._definitions = _single_definitions(self.tree, self._stored)
        definitions, parameters = self._definitions
        kind = shapes.plain(self.env.get(node.id))
        if not isinstance(kind, shapes.Array) or None in kind.ones:
            return node
        pending, seen = [node.id], {node.id}
        while pending:
            name = pending.pop(0)
            if name in parameters:
                return syntax.name(name)
            for operand in _elementwise_operands(definitions.get(name), self.resolve):
                if operand not in seen and shapes.plain(self.env.get(operand)) == kind:
                    seen.add(operand)
                    pending.append(operand)
        return node

    def rule_for(self, node):
        """The specializer on the record of the function ``node`` calls, or None (kept per
        callee ``f`` or ``m.f``: what a name refers to stays the same during the pass, the
        names it makes being new)."""
        func = node.func
        kind = type(func)
        if kind is gast.Attribute and type(func.value) is gast.Name:
            key = (func.value.id, func.attr)
        elif kind is gast.Name:
            key = func.id
        else:
            return self._rule_of(func)
        rule = self._rules.get(key, _UNSEEN)
        if rule is _UNSEEN:
            rule = self._rules[key] = self._rule_of(func)
        return rule

    def _rule_of(self, func):
        function = self.resolve(func)
        if self.zeros_simplified and function is not runtime.zeros_like:
            return None
        return registry.fact(function, "specializer")

    def visit(self, node):
        """``node`` with its calls specialized (in place); the node to put where it stood."""
        kind = type(node)
        if kind is gast.Constant or (
                kind is gast.Name and getattr(node, "annotation", None) is None):
            return node  # (a parameter's annotation is an expression like any other)
        self._visit_children(node, kind)
        return self.call(node) if kind is gast.Call else node

    def _visit_children(self, node, kind):
        """``syntax.rewrite_children(node, self.visit)``, without a call for the children
        ``visit`` returns as they are (constants, names without an annotation)."""
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _CHILD_FIELDS[kind] = syntax.child_fields(kind)
        AST, Name, Constant, visit = gast.AST, gast.Name, gast.Constant, self.visit
        skipped = self.skipped
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for index, item in enumerate(value):
                    item_kind = type(item)
                    if item_kind is Constant or (
                            item_kind is Name and getattr(item, "annotation", None) is None):
                        continue
                    if item_kind in _WITHOUT_CALLS and _holds_no_call(item):
                        continue
                    if skipped and id(item) in skipped:
                        continue
                    if isinstance(item, AST):
                        new = visit(item)
                        if new is not item:
                            value[index] = new
            elif value is not None:
                value_kind = type(value)
                if value_kind is Constant or (
                        value_kind is Name and getattr(value, "annotation", None) is None):
                    continue
                if value_kind in _WITHOUT_CALLS and _holds_no_call(value):
                    continue  # np.dot, rt.unbroadcast, x.shape, a * b: no call inside
                if isinstance(value, AST):
                    new = visit(value)
                    if new is not value:
                        setattr(node, field, new)

    def call(self, node):
        rule = self.rule_for(node)
        if rule is None or node.keywords:
            return node
        env, plain = self.env, shapes.plain
        # (a name's kind is in env: the usual argument, looked up without evaluate)
        kinds = [plain(env[a.id]) if type(a) is gast.Name and a.id in env else plain(
            shapes.evaluate(a, env, self.resolve, self._evaluated)) for a in node.args]
        replacement = rule(self, node.args, kinds)
        return node if replacement is None else syntax.copy_location(replacement, node)

    def bound_everywhere(self, node):
        """True if ``node`` names a value no placeholder binds (``y = None`` at the top of the
        function, for a name only some paths assign: its kind is that of the other paths')."""
        if self.tree is None or type(node) is not gast.Name:
            return False
        if self._placeholders is None:
            self._placeholders = _placeholder_targets(self.tree)
        return node.id not in self._placeholders

    def np(self, attr):
        """``np.attr`` under the alias generated code uses for NumPy."""
        return syntax.attribute(self.aliases.name_for(np), attr)

    def exact_parameter(self, node):
        """True if ``node`` names a parameter never assigned: its kind is exactly that of the
        argument (``shapes.of_value``), never a join of kinds."""
        if self.tree is None or type(node) is not gast.Name:
            return False
        if self._definitions is None:
            self._definitions = _single_definitions(self.tree, self._stored)
        return node.id in self._definitions[1]

    def made_by_numpy(self, node):
        """True if ``node`` names a value assigned once, by a call of a NumPy ufunc or a
        function of NumPy's modules: never a Python float (NumPy returns its own scalars)."""
        if self.tree is None or type(node) is not gast.Name:
            return False
        if self._definitions is None:
            self._definitions = _single_definitions(self.tree, self._stored)
        value = self._definitions[0].get(node.id)
        if type(value) is not gast.Call:
            return False
        function = operation_of(value, self.resolve).primitive
        if getattr(np.ndarray, getattr(function, "__name__", ""), None) is function:
            # an array's method: its reductions give NumPy scalars; .item and .tolist do not,
            # nor a Python float's own .conjugate()
            return function.__name__ not in ("item", "tolist", "conj", "conjugate")
        if function is np.real or function is np.imag:
            return False  # np.real(0.5) is 0.5.real: a Python float
        module = getattr(function, "__module__", None) or ""
        return isinstance(function, np.ufunc) or (
            callable(function) and (module == "numpy" or module.startswith("numpy.")))


def _placeholder_targets(tree) -> set:
    """The names the placeholders of ``tree`` assign (``is_placeholder``), its statements
    (``syntax.statements``) taken in one walk that does not look into those without blocks."""
    found = set()
    stack = [tree]
    pop, push = stack.pop, stack.append
    Assign, Expr, Name, holders = gast.Assign, gast.Expr, gast.Name, _STATEMENT_HOLDERS
    while stack:
        current = pop()
        kind = type(current)
        if kind is Assign:
            if is_placeholder(current):
                found.update(target.id for target in current.targets if type(target) is Name)
            continue
        if kind is Expr:
            continue
        blocks = _BLOCKS_OF.get(kind)
        if blocks is None:
            blocks = _BLOCKS_OF[kind] = tuple(
                field for field in kind._fields if field in _STATEMENT_BLOCKS)
        for field in blocks:
            children = getattr(current, field, None)
            if type(children) is list:
                for child in children:
                    if isinstance(child, holders):
                        push(child)
    return found


_STATEMENT_HOLDERS = (gast.stmt, gast.excepthandler, gast.match_case)  # (syntax.statements')
_STATEMENT_BLOCKS = frozenset(("body", "orelse", "finalbody", "handlers", "cases"))
_BLOCKS_OF: dict = {}  # node type -> its fields that may hold statements, in field order


_WITHOUT_CALLS = frozenset((gast.Attribute, gast.BinOp))  # forms _holds_no_call knows


def _holds_no_call(node) -> bool:
    """True for ``a.b`` and ``a op b`` of names without an annotation and constants: nothing
    for the rewrite to look at (False: it may hold something)."""
    if type(node) is gast.Attribute:
        parts = (node.value,)
    else:
        parts = (node.left, node.right)
    for part in parts:
        kind = type(part)
        if not (kind is gast.Constant or (
                kind is gast.Name and getattr(part, "annotation", None) is None)):
            return False
    return True


_ELEMENTWISE_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.Mod)


def _single_definitions(tree, stored=None):
    """({name: value} for names assigned once, at the top level of the function, and never
    elsewhere; the parameters never assigned). ``stored``: how often each name is assigned
    in ``tree``, if counted already."""
    if stored is None:
        stored = syntax.assignment_counts(tree)
    definitions = {}
    Assign, Name, count = gast.Assign, gast.Name, stored.get
    for statement in tree.body:
        if type(statement) is Assign:
            targets = statement.targets
            if len(targets) == 1 and type(targets[0]) is Name and count(targets[0].id) == 1:
                definitions[targets[0].id] = statement.value
    arguments = tree.args
    parameters = {a.id for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
                  if type(a) is gast.Name and a.id not in stored}
    return definitions, parameters


_CHILD_FIELDS: dict = {}  # node type -> syntax.child_fields(type)
_UNSEEN = object()


def _elementwise_operands(value, resolve):
    """The names an elementwise value (``a * b``, ``-a``, ``np.maximum(0, x)``) broadcasts
    together, or ()."""
    if type(value) is gast.BinOp and isinstance(value.op, _ELEMENTWISE_OPERATORS):
        operands = (value.left, value.right)
    elif type(value) is gast.UnaryOp and isinstance(value.op, (gast.USub, gast.UAdd)):
        operands = (value.operand,)
    elif type(value) is gast.Call and not value.keywords and registry.fact(
            resolve(value.func), "shape_rule") in (shapes.elementwise,
                                                   shapes.operator_elementwise):
        operands = value.args
    else:
        return ()
    return [operand.id for operand in operands if type(operand) is gast.Name]
