"""Small constructors for gast nodes, so passes read as what they build."""

from __future__ import annotations

import collections

import gast


def name(identifier: str, store: bool = False) -> gast.Name:
    ctx = gast.Store() if store else gast.Load()
    return gast.Name(id=identifier, ctx=ctx, annotation=None, type_comment=None)


def constant(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def attribute(value, attr: str) -> gast.Attribute:
    if isinstance(value, str):
        value = name(value)
    return gast.Attribute(value=value, attr=attr, ctx=gast.Load())


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
_ALL_FIELDS: dict = {}  # node type -> its fields


_LOCATED: dict = {}  # (new node type, old node type) -> the location attributes both have
_ABSENT = object()


def copy_location(new, old):
    """``gast.copy_location(new, old)``: ``old``'s location attributes set on ``new`` (those
    both node types have and ``old`` has a value for), the types' common ones found once."""
    key = (type(new), type(old))
    common = _LOCATED.get(key)
    if common is None:
        common = _LOCATED[key] = tuple(attribute for attribute in _LOCATION if attribute in
                                       old._attributes and attribute in new._attributes)
    for attribute in common:
        value = getattr(old, attribute, _ABSENT)
        if value is not _ABSENT:
            setattr(new, attribute, value)
    return new


def deepcopy(node):
    """A copy of a gast tree: fields copied recursively, annotations kept (not copied)."""
    if isinstance(node, list):
        return [deepcopy(item) for item in node]
    if not isinstance(node, gast.AST):
        return node
    return _copy_node(node)


def _copy_node(node):
    # (no constructor call: gast's keeps its keyword arguments as the node's attributes,
    # which is what filling the copy's __dict__ directly does, at a fraction of the cost)
    kind = type(node)
    fields = _ALL_FIELDS.get(kind)
    if fields is None:
        fields = _ALL_FIELDS[kind] = kind._fields
    attributes = node.__dict__
    new = kind.__new__(kind)
    copied = new.__dict__
    copied.update(attributes)  # annotations and locations: shared, not copied
    AST = gast.AST
    for field in fields:
        value = attributes[field] if field in attributes else getattr(node, field, None)
        if isinstance(value, AST):
            copied[field] = _copy_node(value)
        elif isinstance(value, list):
            copied[field] = deepcopy(value)
        else:
            copied[field] = value
    return new


_LEAF_FIELDS = frozenset(("ctx", "op", "ops"))  # operator and context nodes hold no names
_CHILD_FIELDS: dict = {}  # node type -> its fields that may hold names


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
            fields = child_fields[kind] = tuple(f for f in kind._fields
                                                if f not in _LEAF_FIELDS)
        for field in fields:
            value = getattr(current, field, None)
            if isinstance(value, (AST, list)):
                stack.append(value)


def walk(node):
    """Every node inside ``node``, itself first, in the order of ``gast.walk`` (breadth
    first), at about twice its speed: each node type's fields are looked up once."""
    queue = collections.deque((node,))
    AST = gast.AST
    all_fields = _ALL_FIELDS
    pop, push = queue.popleft, queue.append
    while queue:
        current = pop()
        yield current
        kind = type(current)
        fields = all_fields.get(kind)
        if fields is None:
            fields = all_fields[kind] = kind._fields
        for field in fields:
            value = getattr(current, field, None)
            if isinstance(value, AST):
                push(value)
            elif type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)


_BLOCK_FIELDS = frozenset(("body", "orelse", "finalbody", "handlers", "cases"))
_BLOCKS: dict = {}  # node type -> its fields that may hold statements, in field order


def statements(node):
    """Every statement inside ``node`` (itself first, if one) in the order ``walk`` gives
    them, without visiting expressions: only statements, and the except handlers and
    match cases between them, hold statements."""
    queue = collections.deque((node,))
    stmt, holders = gast.stmt, (gast.stmt, gast.excepthandler, gast.match_case)
    blocks = _BLOCKS
    pop, push = queue.popleft, queue.append
    while queue:
        current = pop()
        if isinstance(current, stmt):
            yield current
        kind = type(current)
        fields = blocks.get(kind)
        if fields is None:
            fields = blocks[kind] = tuple(f for f in kind._fields if f in _BLOCK_FIELDS)
        for field in fields:
            children = getattr(current, field, None)
            if type(children) is list:
                for child in children:
                    if isinstance(child, holders):
                        push(child)


def load_names(node) -> set[str]:
    """Identifiers read anywhere inside ``node``."""
    Load = gast.Load
    return {n.id for n in names(node) if type(n.ctx) is Load}


def stored_names(node) -> set[str]:
    """Identifiers assigned anywhere inside ``node``."""
    Store, Del = gast.Store, gast.Del
    return {n.id for n in names(node) if type(n.ctx) in (Store, Del)}


def own_statements(node):
    """The statements ``walk_own`` visits, in its order, without visiting expressions."""
    stack = [node]
    stmt, holders = gast.stmt, (gast.stmt, gast.excepthandler, gast.match_case)
    blocks = _BLOCKS
    while stack:
        current = stack.pop()
        if isinstance(current, stmt):
            yield current
        kind = type(current)
        fields = blocks.get(kind)
        if fields is None:
            fields = blocks[kind] = tuple(f for f in kind._fields if f in _BLOCK_FIELDS)
        for field in fields:
            children = getattr(current, field, None)
            if type(children) is list:
                for child in children:
                    if isinstance(child, holders) and not isinstance(child, gast.FunctionDef):
                        stack.append(child)


def walk_own(node):
    """Like ``gast.walk`` but not into nested function definitions and lambdas."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in gast.iter_child_nodes(current):
            if not isinstance(child, (gast.FunctionDef, gast.Lambda)):
                stack.append(child)


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
