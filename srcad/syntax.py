"""Small constructors for gast nodes, so passes read as what they build."""

from __future__ import annotations

import collections

import gast


def name(identifier: str, store: bool = False) -> gast.Name:
    # what gast.Name(id=..., ctx=..., annotation=None, type_comment=None) makes, in a third
    # of the time gast's generic constructor takes: the passes make names by thousands
    node = _NAME.__new__(_NAME)
    node.__dict__ = {"id": identifier, "ctx": STORE if store else LOAD, "annotation": None,
                     "type_comment": None}
    return node


_NAME = gast.Name
# Contexts and operators have no fields and are never changed: the nodes srcad makes share
# them, as ast.parse's do (a new one per node is an allocation the passes pay thousands of)
LOAD, STORE = gast.Load(), gast.Store()


def constant(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def attribute(value, attr: str) -> gast.Attribute:
    if isinstance(value, str):
        value = name(value)
    return gast.Attribute(value=value, attr=attr, ctx=LOAD)


def dotted(path: str):
    """``"np.linalg.norm"`` as a Name/Attribute chain."""
    parts = path.split(".")
    node = name(parts[0])
    for part in parts[1:]:
        node = attribute(node, part)
    return node


def call(func, *args, **keywords) -> gast.Call:
    if isinstance(func, str):
        func = dotted(func)
    return gast.Call(func=func, args=list(args),
                     keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()])


def assign(target: str, value) -> gast.Assign:
    return gast.Assign(targets=[name(target, store=True)], value=value, type_comment=None)


def function_def(identifier: str, args: gast.arguments, body: list) -> gast.FunctionDef:
    fields = dict(name=identifier, args=args, body=body, decorator_list=[], returns=None,
                  type_comment=None)
    if "type_params" in gast.FunctionDef._fields:
        fields["type_params"] = []
    return gast.FunctionDef(**fields)


def arguments(names: list[str], defaults: list | None = None) -> gast.arguments:
    params = [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in names]
    return gast.arguments(args=params, posonlyargs=[],
                          vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                          defaults=list(defaults or []))


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


_LOCATED: dict = {}  # (new node type, old node type) -> the location attributes both have
_ABSENT = object()


def copy_location(new, old):
    """``gast.copy_location(new, old)``: ``old``'s location attributes set on ``new`` (those
    both node types have and ``old`` has a value for), the types' common ones found once, read
    and set through the nodes' dicts (every pass locates the nodes it makes)."""
    key = (type(new), type(old))
    common = _LOCATED.get(key)
    if common is None:
        common = _LOCATED[key] = tuple(attribute for attribute in _LOCATION if attribute in
                                       old._attributes and attribute in new._attributes)
    found, located = old.__dict__, new.__dict__
    for attribute in common:
        value = found.get(attribute, _ABSENT)
        if value is _ABSENT:  # not set on the node: its class's default, if any
            value = getattr(old, attribute, _ABSENT)
            if value is _ABSENT:
                continue
        located[attribute] = value
    return new


def shallow_copy(node):
    """A new node of ``node``'s type with its fields and attributes (the values shared), for a
    pass to change without changing ``node``."""
    kind = type(node)
    copy = kind.__new__(kind)
    copy.__dict__ = node.__dict__.copy()
    return copy


def deepcopy(node):
    """A copy of a gast tree: fields copied recursively, annotations kept (not copied),
    contexts and operators shared (nodes without fields or attributes: see LOAD).

    (Called for every template use and many rewrites: each node's attributes are copied as
    one dict, and only the fields holding nodes or lists are visited.)"""
    kind = type(node)
    if kind is list:
        return [deepcopy(item) for item in node]
    fields = _COPIED_FIELDS.get(kind, _UNSEEN)
    if fields is _UNSEEN:
        fields = _COPIED_FIELDS[kind] = kind._fields if issubclass(kind, gast.AST) else None
    if fields is None:  # a leaf value: shared
        return [deepcopy(item) for item in node] if isinstance(node, list) else node
    if not fields and not node.__dict__:  # a context or an operator (``ops``): shared
        return node
    attributes = node.__dict__.copy()  # location, annotations: shared, as they are
    copied_fields = _COPIED_FIELDS
    for field in fields:
        value = attributes.get(field)
        value_kind = type(value)
        if value_kind is list:
            attributes[field] = [_leaf_copy(item) if type(item) in _LEAVES else deepcopy(item)
                                 for item in value]
        elif value_kind in _LEAVES:
            attributes[field] = _leaf_copy(value)
        elif value is None:
            attributes[field] = None  # (a field never set is None in the copy)
        else:
            value_fields = copied_fields.get(value_kind, _UNSEEN)
            if value_fields == () and not value.__dict__:  # a context or an operator
                attributes[field] = value  # (shared, as ast.parse shares them: see LOAD)
            elif value_fields is not None:
                attributes[field] = deepcopy(value)
    new = kind.__new__(kind)
    new.__dict__ = attributes
    return new


_UNSEEN = object()
_COPIED_FIELDS: dict = {}  # type -> its fields (None for a type that is not a node)
# the commonest nodes, whose fields hold no node to copy (a name's context is shared, its
# identifier and a constant's value are no nodes): copied as their dict, without a call of
# deepcopy (unless a name has a type annotation)
_LEAVES = frozenset((gast.Name, gast.Constant))


def _leaf_copy(node):
    if type(node) is gast.Name and node.__dict__.get("annotation") is not None:
        return deepcopy(node)
    kind = type(node)
    copy = kind.__new__(kind)
    copy.__dict__ = node.__dict__.copy()
    return copy


_LEAF_FIELDS = frozenset(("ctx", "op", "ops"))  # operator and context nodes hold no names
# fields that hold text or numbers, never nodes: walks need not look at them
_TEXT_FIELDS = {
    "Name": ("id",), "Constant": ("value", "kind"), "Attribute": ("attr",), "keyword": ("arg",),
    "FunctionDef": ("name",), "AsyncFunctionDef": ("name",), "ClassDef": ("name",),
    "alias": ("name", "asname"), "Global": ("names",), "Nonlocal": ("names",),
    "ImportFrom": ("module", "level"), "AnnAssign": ("simple",), "comprehension": ("is_async",),
    "FormattedValue": ("conversion",),
}


def _node_fields(kind, left_out=()) -> tuple:
    """The fields of node type ``kind`` that may hold nodes, but those in ``left_out``."""
    text = _TEXT_FIELDS.get(kind.__name__, ())
    return tuple(f for f in kind._fields
                 if f not in text and f != "type_comment" and f not in left_out)


_CHILD_FIELDS: dict = {}  # node type -> its fields that may hold names


def child_fields(kind) -> tuple:
    """The fields of node type ``kind`` that may hold expressions or statements (not its
    context, operator or text fields), looked up once per type: for hand-written walks."""
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = _node_fields(kind, _LEAF_FIELDS)
    return fields


def children(node) -> list:
    """The nodes directly inside ``node`` (``gast.iter_child_nodes`` but operators and
    contexts), in field order."""
    found, AST = [], gast.AST
    for field in child_fields(type(node)):
        value = getattr(node, field, None)
        if type(value) is list:
            found.extend(item for item in value if isinstance(item, AST))
        elif isinstance(value, AST):
            found.append(value)
    return found


def rewrite_children(node, rewrite) -> int:
    """Put ``rewrite(child)`` in place of each child of ``node`` (for children-first
    rewrites: ``rewrite`` returns the child itself, changed in place, or what replaces it);
    returns how many were replaced."""
    replaced, AST = 0, gast.AST
    for field in child_fields(type(node)):
        value = getattr(node, field, None)
        if type(value) is list:
            for index, item in enumerate(value):
                if isinstance(item, AST):
                    new = rewrite(item)
                    if new is not item:
                        value[index] = new
                        replaced += 1
        elif isinstance(value, AST):
            new = rewrite(value)
            if new is not value:
                setattr(node, field, new)
                replaced += 1
    return replaced


def parameters(arguments) -> list:
    """A function's parameter nodes in the order its code object lists them: positional
    ones, keyword-only ones, then ``*args`` and ``**kwargs``."""
    return arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [
        a for a in (arguments.vararg, arguments.kwarg) if a is not None]


def is_target_of_names(target) -> bool:
    """A name, or a tuple or list of such targets with at most one starred name in each
    (``W, b``, ``first, *rest``, ``i, (u, v)``)."""
    if isinstance(target, gast.Name):
        return True
    if not isinstance(target, (gast.Tuple, gast.List)):
        return False
    starred = [e for e in target.elts if isinstance(e, gast.Starred)]
    return len(starred) <= 1 and all(isinstance(e.value, gast.Name) for e in starred) and all(
        is_target_of_names(e) for e in target.elts if not isinstance(e, gast.Starred))


def names(node):
    """Every Name node inside ``node`` (a faster ``gast.walk`` filtered to names)."""
    stack = [node]
    AST, Name = gast.AST, gast.Name
    child_fields = _CHILD_FIELDS
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is Name:
            yield current
            continue
        if kind is list:
            stack.extend(current)
            continue
        fields = child_fields.get(kind)
        if fields is None:
            if not isinstance(current, AST):  # None in Dict.keys, a string in Global.names
                continue
            fields = child_fields[kind] = _node_fields(kind, _LEAF_FIELDS)
        for field in fields:
            value = getattr(current, field, None)
            if isinstance(value, (AST, list)):
                stack.append(value)


_ALL_FIELDS: dict = {}  # node type -> its fields that may hold nodes


def walk(node):
    """Every node inside ``node``, itself first, in the order of ``gast.walk`` (breadth
    first), at about twice its speed: each node type's fields are looked up once."""
    return _breadth_first(node, _ALL_FIELDS, ())


def nodes(node):
    """Every node inside ``node`` but contexts and operators (``Load``, ``Add``...: they hold
    nothing), in the order ``walk`` gives them, at about twice its speed: for walks looking
    for statements, calls or names (a context or an operator is its node's field)."""
    return _breadth_first(node, _CHILD_FIELDS, _LEAF_FIELDS)


def _breadth_first(node, fields_of, left_out):
    """The nodes inside ``node`` breadth first, through each type's fields but ``left_out``
    (looked up once per type, kept in ``fields_of``)."""
    queue = collections.deque((node,))
    AST = gast.AST
    pop, push = queue.popleft, queue.append
    while queue:
        current = pop()
        yield current
        kind = type(current)
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = _node_fields(kind, left_out)
        for field in fields:
            value = getattr(current, field, None)
            if isinstance(value, AST):
                push(value)
            elif type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)


def _identifiers(node, contexts) -> set[str]:
    """The identifiers of the Name nodes inside ``node`` whose context is one of ``contexts``
    (the Names ``names`` yields, collected without a generator)."""
    found = set()
    add = found.add
    stack = [node]
    pop, push = stack.pop, stack.append
    AST, Name = gast.AST, gast.Name
    child_fields = _CHILD_FIELDS
    while stack:
        current = pop()
        kind = type(current)
        if kind is Name:
            if type(current.ctx) in contexts:
                add(current.id)
            continue
        if kind is list:
            stack.extend(current)
            continue
        fields = child_fields.get(kind)
        if fields is None:
            if not isinstance(current, AST):
                continue
            fields = child_fields[kind] = _node_fields(kind, _LEAF_FIELDS)
        for field in fields:
            value = getattr(current, field, None)
            if value is not None:
                push(value)
    return found


def assignment_counts(tree) -> dict:
    """How often each name is assigned (a Name in Store or Del context) inside ``tree``:
    the Names ``names`` gives, counted in one walk without a generator (passes keep these
    counts; the invariant checks compare them with the tree's)."""
    stored = {}
    stack = [tree]
    pop, extend = stack.pop, stack.extend
    Name, Store, Del, AST = gast.Name, gast.Store, gast.Del, gast.AST
    fields_of = _CHILD_FIELDS
    while stack:
        current = pop()
        kind = type(current)
        if kind is Name:
            context = type(current.ctx)
            if context is Store or context is Del:
                stored[current.id] = stored.get(current.id, 0) + 1
        elif kind is list:
            extend(current)
        elif kind is not gast.Constant and isinstance(current, AST):
            fields = fields_of.get(kind)
            if fields is None:
                fields = fields_of[kind] = child_fields(kind)
            for field in fields:
                value = getattr(current, field, None)
                if value is not None:
                    stack.append(value)
    return stored


_READ = (gast.Load,)
_WRITTEN = (gast.Store, gast.Del)


_BLOCK_FIELDS = frozenset(("body", "orelse", "finalbody", "handlers", "cases"))
_BLOCKS: dict = {}  # node type -> its fields that may hold statements, in field order


def _block_fields(kind) -> tuple:
    fields = _BLOCKS.get(kind)
    if fields is None:
        fields = _BLOCKS[kind] = tuple(f for f in kind._fields if f in _BLOCK_FIELDS)
    return fields


def statements(node):
    """Every statement inside ``node`` (itself first, if one) in the order ``walk`` gives
    them, without visiting expressions: only statements, and the except handlers and
    match cases between them, hold statements."""
    queue = collections.deque((node,))
    stmt, holders = gast.stmt, (gast.stmt, gast.excepthandler, gast.match_case)
    pop, push = queue.popleft, queue.append
    while queue:
        current = pop()
        if isinstance(current, stmt):
            yield current
        for field in _block_fields(type(current)):
            children = getattr(current, field, None)
            if type(children) is list:
                for child in children:
                    if isinstance(child, holders):
                        push(child)


def load_names(node) -> set[str]:
    """Identifiers read anywhere inside ``node``."""
    return _identifiers(node, _READ)


def stored_names(node) -> set[str]:
    """Identifiers assigned anywhere inside ``node``."""
    return _identifiers(node, _WRITTEN)


def own_statements(node):
    """The statements ``walk_own`` visits, in its order, without visiting expressions."""
    stack = [node]
    stmt, holders = gast.stmt, (gast.stmt, gast.excepthandler, gast.match_case)
    while stack:
        current = stack.pop()
        if isinstance(current, stmt):
            yield current
        for field in _block_fields(type(current)):
            children = getattr(current, field, None)
            if type(children) is list:
                for child in children:
                    if isinstance(child, holders) and not isinstance(child, gast.FunctionDef):
                        stack.append(child)


def walk_own(node):
    """Like ``gast.walk`` but not into nested function definitions and lambdas."""
    stack = [node]
    AST, skipped = gast.AST, (gast.FunctionDef, gast.Lambda)
    all_fields = _ALL_FIELDS
    while stack:
        current = stack.pop()
        yield current
        kind = type(current)
        fields = all_fields.get(kind)
        if fields is None:
            fields = all_fields[kind] = _node_fields(kind)
        # children in gast.iter_child_nodes's order
        for field in fields:
            try:
                value = getattr(current, field)
            except AttributeError:
                continue
            if isinstance(value, AST):
                if not isinstance(value, skipped):
                    stack.append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, AST) and not isinstance(item, skipped):
                        stack.append(item)


def index_expression(index):
    """An index as an ordinary expression: ``1:n`` becomes ``slice(1, n)``."""
    if isinstance(index, gast.Slice):
        parts = [constant(None) if p is None else deepcopy(p)
                 for p in (index.lower, index.upper, index.step)]
        if isinstance(parts[2], gast.Constant) and parts[2].value is None:
            parts.pop()  # slice(lower, upper): never drop lower or upper, slice(1) means :1
        return call(name("slice"), *parts)
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[index_expression(e) for e in index.elts], ctx=gast.Load())
    return deepcopy(index)


def rename(node, mapping: dict, loads_only: bool = False):
    """Rename identifiers in ``node`` in place (only where read, with ``loads_only``)."""
    if mapping:
        Load = gast.Load
        for found in names(node):
            if found.id in mapping and (not loads_only or isinstance(found.ctx, Load)):
                found.id = mapping[found.id]
    return node


def holds(node, found) -> bool:
    """Whether ``node`` (or a list of nodes) holds a node for which ``found(node)`` is true:
    a walk with no visitor, for passes that skip the statements with nothing to change."""
    stack = [node]
    AST = gast.AST
    while stack:
        current = stack.pop()
        if type(current) is list:
            stack.extend(current)
            continue
        if found(current):
            return True
        for field in current._fields:
            value = getattr(current, field, None)
            if isinstance(value, (AST, list)):
                stack.append(value)
    return False
