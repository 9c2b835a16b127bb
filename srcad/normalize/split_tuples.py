"""Replace tuples, lists and string-keyed dicts of fixed shape by one variable per element.

After this pass, a variable holding a literal tuple (or list, or dict with
constant string keys) that is only ever unpacked, indexed with constants,
copied or measured with ``len`` no longer exists: each element has its own
variable, so every element is an ordinary value for the rest of the pipeline::

    rhs = (mul, sub)                 rhs_0 = mul
    k1x, k1y = rhs          ->       rhs_1 = sub
    n = len(rhs)                     k1x = rhs_0
                                     k1y = rhs_1
                                     n = 2

Unpacking a container that stays whole becomes indexing (``a = t[0]``; a
starred name a list of a slice: ``first, *rest = t`` is ``first = t[0]``,
``rest_items = t[1:]``, ``rest = list(rest_items)``), so after this pass no
assignment unpacks.

This is how values returned together by an inlined helper (``return a, b``)
reach the caller. Namedtuples and dataclasses built in the function are
split the same way (their fields read as attributes), and ``d["k"] = v`` on
a split dict assigns that element's variable. A container used any other
way (iterated by index, passed to a function, returned) is left as it is.
"""

from __future__ import annotations

import dataclasses

import gast

from .. import syntax
from ..annotations import located_like
from ..naming import Namer


def split_tuples(tree: gast.FunctionDef, namer: Namer, resolve) -> gast.FunctionDef:
    for _ in range(4):  # starred unpacking makes new tuples: split those on the next round
        assigns = [n for n in syntax.statements(tree) if isinstance(n, gast.Assign)]
        shapes = _candidates(assigns, resolve)
        shapes = _only_simple_uses(tree, assigns, shapes, resolve)
        if not shapes:
            break
        parts = {name: [namer.fresh("%s_%s" % (name, _suffix(key))) for key in keys]
                 for name, keys in shapes.items()}
        _rewrite_assignments(tree, _Split(shapes, parts, resolve).visit_Assign)
    _rewrite_assignments(tree, _IndexUnpacking(namer).visit_Assign)
    return tree


_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _rewrite_assignments(node, rewrite) -> None:
    """Replace each assignment statement inside ``node`` by what ``rewrite`` returns (the
    statement, or a list of statements), in program order, visiting statements only."""
    for field in _BLOCK_FIELDS:
        block = getattr(node, field, None)
        if type(block) is not list:
            continue
        changed, out = False, []
        for statement in block:
            if type(statement) is gast.Assign:
                new = rewrite(statement)
                if type(new) is list:
                    out.extend(new)
                    changed = True
                    continue
                changed = changed or new is not statement
                out.append(new)
            else:
                _rewrite_assignments(statement, rewrite)
                out.append(statement)
        if changed:
            block[:] = out


class _IndexUnpacking:
    """``a, b = t`` for a container that stays whole: ``a = t[0]; b = t[1]``.

    A nested target unpacks through a fresh name: ``a, (b, c) = t`` becomes
    ``a = t[0]; t_1 = t[1]; b = t_1[0]; c = t_1[1]``.
    """

    def __init__(self, namer: Namer):
        self.namer = namer

    def visit_Assign(self, node):
        target = node.targets[0]
        if (len(node.targets) == 1 and isinstance(target, (gast.Tuple, gast.List))
                and isinstance(node.value, gast.Name) and syntax.is_target_of_names(target)):
            return self.unpack(target, node.value.id, node)
        return node

    def unpack(self, target, source, like) -> list:
        """A starred name takes a list of the middle items (``first, *rest = t``:
        ``rest_items = t[1:]; rest = list(rest_items)``); names after it index from the end."""
        out = []
        star = next((i for i, e in enumerate(target.elts) if isinstance(e, gast.Starred)), None)
        after = 0 if star is None else len(target.elts) - star - 1
        for index, element in enumerate(target.elts):
            position = index if star is None or index < star else index - len(target.elts)
            item = gast.Subscript(value=syntax.name(source), slice=syntax.constant(position),
                                  ctx=gast.Load())
            if isinstance(element, gast.Starred):
                middle = self.namer.fresh("%s_items" % element.value.id)
                item.slice = gast.Slice(lower=syntax.constant(star), upper=syntax.constant(
                    -after) if after else None, step=None)
                out.append(located_like(syntax.assign(middle, item), like))
                out.append(located_like(gast.Assign(targets=[element.value], value=syntax.call(
                    syntax.name("list"), syntax.name(middle)), type_comment=None), like))
                continue
            if isinstance(element, gast.Name):
                out.append(located_like(gast.Assign(targets=[element], value=item, type_comment=None),
                                 like))
                continue
            part = self.namer.fresh("%s_%d" % (source, index))
            out.append(located_like(syntax.assign(part, item), like))
            out.extend(self.unpack(element, part, like))
        return out


def _unpacks(target, keys) -> bool:
    """``a, b = t`` or ``a, *rest, z = t`` fits a tuple with these keys."""
    if not isinstance(target, (gast.Tuple, gast.List)) or not keys or not isinstance(
            keys[0], int):
        return False
    starred = sum(isinstance(e, gast.Starred) for e in target.elts)
    if starred == 0:
        return len(target.elts) == len(keys)
    return starred == 1 and len(target.elts) - 1 <= len(keys)


def _suffix(key) -> str:
    return str(key) if isinstance(key, int) else "".join(c if c.isalnum() else "_" for c in key)


def _literal_items(value, resolve):
    """(key, value node) pairs of a literal container, or None.

    Tuples and lists have keys 0..n-1; dicts their constant string keys;
    namedtuple and dataclass constructions their field names.
    """
    if isinstance(value, (gast.Tuple, gast.List)):
        return list(enumerate(value.elts))
    if isinstance(value, gast.Dict) and all(
            isinstance(k, gast.Constant) and isinstance(k.value, str) for k in value.keys):
        keys = [k.value for k in value.keys]
        return list(zip(keys, value.values)) if len(set(keys)) == len(keys) else None
    if isinstance(value, gast.Call):
        fields = record_fields(resolve(value.func))
        if fields is None or len(value.args) > len(fields):
            return None
        given = dict(zip(fields, value.args))
        for keyword in value.keywords:
            if keyword.arg not in fields or keyword.arg in given:
                return None
            given[keyword.arg] = keyword.value
        if set(given) != set(fields):
            return None  # defaults are not split: keep the record whole
        return [(field, given[field]) for field in fields]
    return None


def record_fields(cls):
    """The field names of a namedtuple or dataclass type, else None."""
    if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return tuple(cls._fields)
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return None


def _literal_keys(value, resolve):
    items = _literal_items(value, resolve)
    return None if items is None else tuple(key for key, _ in items)


def _update_of(value, shapes, resolve):
    """For ``rt.updated(d, "key", v)`` on a split container: (d, key, v), else None."""
    # (the callee resolved last: most calls fail the cheaper tests)
    if (isinstance(value, gast.Call) and len(value.args) == 3
            and isinstance(value.args[0], gast.Name) and value.args[0].id in shapes
            and isinstance(value.args[1], gast.Constant)
            and getattr(resolve(value.func), "__name__", "") == "updated"
            and value.args[1].value in _normalized_keys(shapes[value.args[0].id])):
        return value.args[0].id, value.args[1].value, value.args[2]
    return None


def _candidates(assigns, resolve) -> dict:
    """Names whose every definition is a literal container (or a copy of one), by keys."""
    shapes, rejected = {}, set()
    for _ in range(len(assigns) + 1):
        changed = False
        for node in assigns:
            if len(node.targets) != 1 or not isinstance(node.targets[0], gast.Name):
                continue
            name = node.targets[0].id
            if name in rejected:
                continue
            keys = _literal_keys(node.value, resolve)
            if keys is None and isinstance(node.value, gast.Name) and node.value.id in shapes:
                keys = shapes[node.value.id]
            update = _update_of(node.value, shapes, resolve)
            if keys is None and update is not None:
                keys = shapes[update[0]]
            if keys is None or (name in shapes and shapes[name] != keys):
                if name in shapes or keys is None:
                    rejected.add(name)
                    shapes.pop(name, None)
                    changed = True
                continue
            if name not in shapes:
                shapes[name] = keys
                changed = True
        if not changed:
            break
    if not shapes:
        return shapes
    for node in assigns:  # a definition that is not a literal or a copy rules the name out
        for target in node.targets:
            for n in syntax.names(target):
                if n.id in shapes and not (isinstance(target, gast.Name) and (
                        _literal_keys(node.value, resolve) is not None
                        or _update_of(node.value, shapes, resolve) is not None or (
                            isinstance(node.value, gast.Name) and node.value.id in shapes))):
                    shapes.pop(n.id)
    return shapes


def _only_simple_uses(tree, assigns, shapes, resolve) -> dict:
    """Drop candidates read in any way other than unpacking, constant indexing, copy or len
    (``assigns``: every assignment in ``tree``)."""
    while shapes:
        allowed = set()
        for node in assigns:
            value = node.value
            if isinstance(value, gast.Name) and value.id in shapes:
                target = node.targets[0]
                if isinstance(target, gast.Name) and target.id in shapes \
                        and shapes[target.id] == shapes[value.id]:
                    allowed.add(id(value))
                elif _unpacks(target, shapes[value.id]):
                    allowed.add(id(value))
            elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
                    and value.value.id in shapes and isinstance(value.slice, gast.Constant) \
                    and value.slice.value in _normalized_keys(shapes[value.value.id]):
                allowed.add(id(value.value))
            elif isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name) \
                    and value.value.id in shapes and value.attr in shapes[value.value.id]:
                allowed.add(id(value.value))
            elif _update_of(value, shapes, resolve) is not None \
                    and isinstance(node.targets[0], gast.Name) and node.targets[0].id in shapes:
                allowed.add(id(value.args[0]))
            elif isinstance(value, gast.Call) and resolve(value.func) is len \
                    and len(value.args) == 1 and isinstance(value.args[0], gast.Name) \
                    and value.args[0].id in shapes and not value.keywords:
                allowed.add(id(value.args[0]))
        bad = {n.id for n in syntax.names(tree)
               if isinstance(n.ctx, gast.Load) and n.id in shapes and id(n) not in allowed}
        bad |= _copies_of_dropped(assigns, shapes, resolve)
        if not bad:
            return shapes
        for name in bad:
            shapes.pop(name)
        # a copy from or into a dropped name drops its partner too: iterate
    return shapes


def _copies_of_dropped(assigns, shapes, resolve) -> set:
    """Candidates defined as a copy (or update) of a container that is no longer split."""
    out = set()
    for node in assigns:
        if isinstance(node.targets[0], gast.Name) \
                and node.targets[0].id in shapes and _literal_keys(node.value, resolve) is None \
                and _update_of(node.value, shapes, resolve) is None \
                and not (isinstance(node.value, gast.Name) and node.value.id in shapes):
            out.add(node.targets[0].id)
    return out


def _normalized_keys(keys):
    if keys and isinstance(keys[0], int):
        return set(keys) | {k - len(keys) for k in keys}  # negative indexes
    return set(keys) | set(range(-len(keys), len(keys)))  # a namedtuple's positions


class _Split:
    def __init__(self, shapes, parts, resolve):
        self.shapes = shapes
        self.parts = parts
        self.resolve = resolve

    def element(self, name, key):
        keys = self.shapes[name]
        if isinstance(key, int):
            position = key + len(keys) if key < 0 else key  # by position (also namedtuples)
        else:
            position = keys.index(key)
        return self.parts[name][position]

    def visit_Assign(self, node):
        target, value = node.targets[0], node.value
        if isinstance(target, gast.Name) and target.id in self.shapes:
            update = _update_of(value, self.shapes, self.resolve)
            if isinstance(value, gast.Name):  # a copy of a whole container
                sources = [syntax.name(p) for p in self.parts[value.id]]
            elif update is not None:  # d["key"] = v on a split dict
                container, key, new = update
                sources = [syntax.name(p) for p in self.parts[container]]
                sources[self.parts[container].index(self.element(container, key))] = new
            else:
                sources = [node for _, node in _literal_items(value, self.resolve)]
            return [located_like(syntax.assign(part, source), node)
                    for part, source in zip(self.parts[target.id], sources)]
        if isinstance(value, gast.Name) and value.id in self.shapes and isinstance(
                target, (gast.Tuple, gast.List)):
            parts = self.parts[value.id]
            elements = list(target.elts)
            star = next((i for i, e in enumerate(elements) if isinstance(e, gast.Starred)), None)
            if star is None:
                pairs = [(e, syntax.name(p)) for e, p in zip(elements, parts)]
            else:  # a, *rest, z = t: rest is the tuple of the middle parts
                after = len(elements) - star - 1
                middle = parts[star:len(parts) - after]
                pairs = [(e, syntax.name(p)) for e, p in zip(elements[:star], parts)]
                pairs.append((elements[star].value, gast.Tuple(
                    elts=[syntax.name(p) for p in middle], ctx=gast.Load())))
                pairs += [(e, syntax.name(p)) for e, p in zip(elements[star + 1:],
                                                              parts[len(parts) - after:])]
            return [located_like(gast.Assign(targets=[element], value=source, type_comment=None),
                          node) for element, source in pairs]
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
                and value.value.id in self.shapes:
            node.value = syntax.name(self.element(value.value.id, value.slice.value))
            return node
        if isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name) \
                and value.value.id in self.shapes:
            node.value = syntax.name(self.element(value.value.id, value.attr))
            return node
        if isinstance(value, gast.Call) and value.args and isinstance(value.args[0], gast.Name) \
                and value.args[0].id in self.shapes and self.resolve(value.func) is len:
            node.value = syntax.constant(len(self.shapes[value.args[0].id]))
            return node
        return node
