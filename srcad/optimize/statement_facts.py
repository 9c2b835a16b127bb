"""What each statement of a function reads and assigns, worked out once and shared by the
dataflow passes (propagate_copies, remove_dead_code, accumulate_in_place, fuse_single_use):
none of them walks every statement's names again for what an earlier one learned.

A statement's entry holds the names it reads (every read, in order), the names it assigns
or deletes, and whether its value is effect-free (worked out when first asked). A loop's or
branch's entry covers its header only (the ``for`` target and iterable, the ``while`` or
``if`` test): the statements of its blocks have entries of their own, so an entry stays true
when a block changes. The function's own entry covers what it holds outside its body.

Entries are keyed by the statement's identity and keep the statement alive (no identity is
reused while the table exists). A pass that changes a statement's expressions in place
calls ``forget(statement)``; a statement put in place of another gets an entry of its own
when first asked about. Folding constants never adds or removes a name, so entries outlive
it. This is an analysis, not a pass: it changes no tree.

An expression is effect-free when it only reads names, does arithmetic, indexing and
attribute reads, and calls known pure functions (NumPy, math, srcad's runtime helpers,
registered primitives): ``is_pure``.
"""

from __future__ import annotations

import builtins
from collections import Counter

import gast
import numpy as np

from .. import registry, runtime, syntax

COMPOUND = (gast.For, gast.While, gast.If)  # statements with blocks (no subclasses exist)


class Entry:
    """One statement's facts: ``loaded`` (every name read, in order), ``read`` (those names
    as a set), ``stored`` (every name assigned or deleted), ``assigned`` (those as a set),
    ``purity`` (whether its value is effect-free; None until asked)."""

    __slots__ = ("assigned", "loaded", "purity", "read", "statement", "stored")

    def __init__(self, statement, loaded, stored):
        self.statement = statement  # kept: no id is reused while the entry exists
        self.loaded = loaded
        self.read = set(loaded)
        self.stored = stored
        self.assigned = set(stored)
        self.purity = None


class StatementFacts:
    """The entries of one function's statements; ``resolve`` (srcad/resolve.py) tells which
    callees are pure. ``reads``: how often each name is read in the whole function, when a
    pass keeps it (propagate_copies counts it and keeps it up to date; remove_dead_code
    updates it for what it drops)."""

    def __init__(self, resolve=None):
        self.resolve = resolve
        self.entries: dict = {}  # id(statement) -> Entry
        self.reads: Counter | None = None

    def entry(self, statement) -> Entry:
        """``statement``'s entry, worked out now if it has none."""
        found = self.entries.get(id(statement))
        if found is None:
            loaded, stored = [], []
            if type(statement) in COMPOUND:
                _collect(statement.test if type(statement) is not gast.For
                         else [statement.target, statement.iter], loaded, stored)
            else:
                _collect(statement, loaded, stored)
            found = self.entries[id(statement)] = Entry(statement, loaded, stored)
        return found

    def function_entry(self, tree) -> Entry:
        """The entry of the function ``tree`` itself: what it holds outside its body."""
        found = self.entries.get(id(tree))
        if found is None:
            loaded, stored = [], []
            for field in tree._fields:
                value = getattr(tree, field, None)
                if field != "body" and isinstance(value, (gast.AST, list)):
                    _collect(value, loaded, stored)
            found = self.entries[id(tree)] = Entry(tree, loaded, stored)
        return found

    def reads_now(self, statement) -> set:
        """The names ``statement`` reads anywhere (a loop or branch: its header and its
        blocks as they are now)."""
        entry = self.entry(statement)
        if type(statement) not in COMPOUND:
            return entry.read
        names = set(entry.read)
        for block in (statement.body, statement.orelse):
            for inner in block:
                names |= self.reads_now(inner)
        return names

    def assigned_now(self, statement) -> set:
        """The names ``statement`` assigns or deletes anywhere (a loop or branch: its header
        and its blocks as they are now)."""
        entry = self.entry(statement)
        if type(statement) not in COMPOUND:
            return entry.assigned
        names = set(entry.assigned)
        for block in (statement.body, statement.orelse):
            for inner in block:
                names |= self.assigned_now(inner)
        return names

    def forget(self, statement):
        """``statement``'s expressions changed in place: its entry is worked out again when
        next asked for."""
        self.entries.pop(id(statement), None)

    def pure(self, statement) -> bool:
        """Whether the value of an assignment or expression statement is effect-free."""
        entry = self.entry(statement)
        if entry.purity is None:
            entry.purity = is_pure(statement.value, self.resolve)
        return entry.purity

    def counts(self, tree, stores: bool = True) -> tuple[Counter, Counter | None]:
        """How often each name is read, and (``stores``) assigned or deleted, in the function
        ``tree`` as it is now: its statements' entries summed (those missing worked out)."""
        header = self.function_entry(tree)
        reads, stored = Counter(header.loaded), Counter(header.stored) if stores else None
        count_read = reads.update
        count_stored = stored.update if stores else None
        entry, blocks = self.entry, [tree.body]
        while blocks:
            for statement in blocks.pop():
                found = entry(statement)
                count_read(found.loaded)
                if stores:
                    count_stored(found.stored)
                if type(statement) in COMPOUND:
                    blocks.append(statement.orelse)
                    blocks.append(statement.body)
        return reads, stored


_FIELDS: dict = {}  # node type -> its fields that may hold names (syntax.child_fields)


def _collect(node, loaded: list, stored: list):
    """The identifiers of the Name nodes inside ``node`` (a node or a list of them) that are
    read onto ``loaded``, those assigned or deleted onto ``stored``: the names
    ``syntax.names`` yields, without a generator."""
    Name, Load, Store, Del = gast.Name, gast.Load, gast.Store, gast.Del
    load, store = loaded.append, stored.append
    fields_of, child_fields = _FIELDS, syntax.child_fields
    stack = [node]
    pop, push, extend = stack.pop, stack.append, stack.extend
    AST = gast.AST
    while stack:
        current = pop()
        kind = type(current)
        if kind is Name:
            context = type(current.ctx)
            if context is Load:
                load(current.id)
            elif context is Store or context is Del:
                store(current.id)
            continue
        if kind is list:
            extend(current)
            continue
        fields = fields_of.get(kind)
        if fields is None:
            if not isinstance(current, AST):  # None in Dict.keys, a string in Global.names
                continue
            fields = fields_of[kind] = child_fields(kind)
        for field in fields:
            value = getattr(current, field, None)
            if value is not None:
                push(value)


_PURE_BUILTINS = {float, int, abs, len, min, max, slice, tuple, range, sum, pow, round}
_IMPURE_METHODS = {"fill", "sort", "resize", "put", "itemset", "setfield", "partition",
                   "setflags", "tofile", "dump"}


def is_pure(node, resolve) -> bool:
    """Whether evaluating ``node`` has no effect (see the module's docstring)."""
    for sub in syntax.nodes(node):
        if isinstance(sub, (gast.Yield, gast.YieldFrom, gast.Await, gast.NamedExpr)):
            return False
        if isinstance(sub, gast.Call) and not _pure_callee(sub.func, resolve):
            return False
    return True


def _pure_callee(func, resolve) -> bool:
    obj = resolve(func)
    if not registry.fact(obj, "pure", True):
        return False
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("numpy") or module in ("math", runtime.__name__):
        return not isinstance(func, gast.Attribute) or func.attr not in _IMPURE_METHODS
    if isinstance(obj, np.ufunc):
        return True
    try:
        if obj in _PURE_BUILTINS and getattr(builtins, obj.__name__, None) is obj:
            return True
    except TypeError:
        pass
    if isinstance(func, gast.Attribute) and not isinstance(obj, type(np)):
        # a method on a value: pure if it is a non-mutating ndarray method
        return hasattr(np.ndarray, func.attr) and func.attr not in _IMPURE_METHODS
    try:
        entry = registry.lookup(obj)
    except TypeError:
        entry = None
    return entry is not None
