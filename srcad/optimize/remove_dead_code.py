"""Remove statements whose results are never read and that have no effect.

After this pass every top-level assignment's target is read later (or
returned), and no expression statement without an effect remains; comment
markers are kept only when the block they title still has statements.
Inside loops and branches, an effect-free assignment is removed when no
statement anywhere reads its target, and a block left with only comments
becomes ``pass`` (or disappears, for an ``else``).

An expression is effect-free when it only reads names, does arithmetic,
indexing and attribute reads, and calls known pure functions (NumPy, math,
srcad's runtime helpers, registered primitives).
"""

from __future__ import annotations

import builtins
from collections import Counter

import gast
import numpy as np

from .. import registry, runtime, syntax
from ..annotations import comment_text
from ..syntax import load_names

_PURE_BUILTINS = {float, int, abs, len, min, max, slice, tuple, range, sum, pow, round}
_IMPURE_METHODS = {"fill", "sort", "resize", "put", "itemset", "setfield", "partition",
                   "setflags", "tofile", "dump"}


def remove_dead_code(tree: gast.FunctionDef, resolve, reads: Counter | None = None
                     ) -> gast.FunctionDef:
    """``reads``: how often each name is read in ``tree``, when known (it is updated)."""
    facts = _Facts(resolve)
    # how often each name is read: statements are only dropped here, so the count is kept
    # up to date by subtracting what a dropped statement read (no walk of the tree per round)
    if reads is None:
        reads = Counter(n.id for n in syntax.names(tree) if type(n.ctx) is gast.Load)
    for _ in range(3):  # removing a statement can make what it read dead too
        before = _count_statements(tree)
        dropped = []
        tree.body = _top_level(tree.body, facts, dropped)
        facts.forget(dropped, reads)
        read_anywhere = {name for name, count in reads.items() if count > 0}
        dropped = []
        tree.body = _nested(tree.body, read_anywhere, facts, dropped, top=True)
        facts.forget(dropped, reads)
        if _count_statements(tree) == before:
            break
    return tree


class _Facts:
    """Per statement, worked out once: this pass drops statements but changes none, so what
    a statement reads, assigns and whether its value is pure stay true across rounds."""

    def __init__(self, resolve):
        self.resolve = resolve
        self.entries = {}  # id(statement) -> its _Entry (which keeps the statement alive)

    def entry(self, statement) -> _Entry:
        found = self.entries.get(id(statement))
        if found is None:
            found = self.entries[id(statement)] = _Entry(statement, self.resolve)
        return found

    def reads_now(self, statement) -> set:
        """The names ``statement`` reads (a loop or branch: as its blocks stand now)."""
        entry = self.entry(statement)
        if not isinstance(statement, _COMPOUND):
            return entry.read
        names = set(entry.read)
        for block in (statement.body, statement.orelse):
            for inner in block:
                names |= self.reads_now(inner)
        return names

    def forget(self, dropped, reads):
        """``dropped`` statements (simple ones) left the tree: their reads no longer count."""
        for statement in dropped:
            for name in self.entry(statement).loaded:
                reads[name] -= 1


class _Entry:
    """What one statement reads (``loaded``: every read, ``read``: the names), assigns
    (``targets``, for an assignment), what its value reads and whether it is pure."""

    __slots__ = ("loaded", "purity", "read", "resolve", "statement", "targets", "value_read")

    def __init__(self, statement, resolve):
        self.statement = statement  # kept: no id is reused while the entry exists
        self.resolve = resolve
        self.purity = None  # worked out when first asked
        Load = gast.Load
        if isinstance(statement, _COMPOUND):  # the header (the blocks change)
            header = ([statement.target, statement.iter] if isinstance(statement, gast.For)
                      else statement.test)
            self.loaded = [n.id for n in syntax.names(header) if type(n.ctx) is Load]
        else:
            self.loaded = [n.id for n in syntax.names(statement) if type(n.ctx) is Load]
        self.read = set(self.loaded)
        self.targets = self.value_read = None
        if type(statement) is gast.Assign:
            targets = statement.targets
            if all(type(t) is gast.Name and getattr(t, "annotation", None) is None
                   for t in targets):  # the common case: nothing inside the targets
                self.targets = {t.id for t in targets}
                self.value_read = self.read
            else:
                self.targets = {n.id for t in targets for n in syntax.walk(t)
                                if isinstance(n, gast.Name)}
                self.value_read = load_names(statement.value)

    @property
    def pure(self) -> bool:
        """Whether the value of this assignment or expression statement is effect-free."""
        if self.purity is None:
            self.purity = _pure(self.statement.value, self.resolve)
        return self.purity


_COMPOUND = (gast.For, gast.While, gast.If)


def _count_statements(tree) -> int:
    """How many statements ``tree`` holds (the passes here only drop them from blocks)."""
    count, blocks = 0, [tree.body]
    while blocks:
        for statement in blocks.pop():
            count += 1
            for field in ("body", "orelse"):
                block = getattr(statement, field, None)
                if isinstance(block, list):
                    blocks.append(block)
    return count


def _nested(statements, read_anywhere, facts, dropped, top=False):
    """Inside loops and branches: drop pure assignments to names read nowhere."""
    out = []
    for statement in statements:
        if isinstance(statement, _COMPOUND):
            statement.body = _tidy(_nested(statement.body, read_anywhere, facts, dropped),
                                   dropped) or [gast.Pass()]
            statement.orelse = _tidy(_nested(statement.orelse, read_anywhere, facts, dropped),
                                     dropped)
        elif (not top and isinstance(statement, gast.Assign) and facts.entry(statement).pure
              and not facts.entry(statement).targets & read_anywhere):
            dropped.append(statement)
            continue
        out.append(statement)
    return out


def _tidy(statements, dropped):
    """No comment without a statement after it, no ``pass`` beside other statements."""
    out = []
    for statement in reversed(statements):
        if comment_text(statement) is not None and (not out or comment_text(out[-1]) is not None):
            dropped.append(statement)
            continue
        out.append(statement)
    out.reverse()
    real = [s for s in out if not isinstance(s, gast.Pass)]
    if real and len(real) < len(out):
        dropped.extend(s for s in out if isinstance(s, gast.Pass))
    return real if real else out


def _top_level(statements, facts, dropped):
    live: set[str] = set()
    kept = []
    for statement in reversed(statements):
        if comment_text(statement) is not None:
            # a comment titles the statements after it: keep it only if there are some
            if kept and comment_text(kept[-1]) is None and not isinstance(kept[-1], gast.Return):
                kept.append(statement)
            else:
                dropped.append(statement)
            continue
        if isinstance(statement, gast.Assign):
            entry = facts.entry(statement)
            targets = entry.targets
            if not (targets & live) and entry.pure:
                dropped.append(statement)
                continue
            live -= targets
            live |= entry.value_read
        elif isinstance(statement, gast.Expr):
            if facts.entry(statement).pure:
                dropped.append(statement)
                continue
            live |= facts.reads_now(statement)
        else:
            live |= facts.reads_now(statement)
        kept.append(statement)
    return list(reversed(kept))


def _pure(node, resolve) -> bool:
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
