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

import gast
import numpy as np

from .. import registry, runtime, syntax
from ..annotations import comment_text
from ..syntax import load_names

_PURE_BUILTINS = {float, int, abs, len, min, max, slice, tuple, range, sum, pow, round}
_IMPURE_METHODS = {"fill", "sort", "resize", "put", "itemset", "setfield", "partition",
                   "setflags", "tofile", "dump"}


def remove_dead_code(tree: gast.FunctionDef, resolve) -> gast.FunctionDef:
    for _ in range(3):  # removing a statement can make what it read dead too
        before = _count_statements(tree)
        tree.body = _top_level(tree.body, resolve)
        read_anywhere = load_names(tree)
        tree.body = _nested(tree.body, read_anywhere, resolve, top=True)
        if _count_statements(tree) == before:
            break
    return tree


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


def _nested(statements, read_anywhere, resolve, top=False):
    """Inside loops and branches: drop pure assignments to names read nowhere."""
    out = []
    for statement in statements:
        if isinstance(statement, (gast.For, gast.While, gast.If)):
            statement.body = _tidy(_nested(statement.body, read_anywhere, resolve)) or [gast.Pass()]
            statement.orelse = _tidy(_nested(statement.orelse, read_anywhere, resolve))
        elif not top and isinstance(statement, gast.Assign) and _pure(statement.value, resolve):
            targets = {n.id for t in statement.targets for n in syntax.walk(t)
                       if isinstance(n, gast.Name)}
            if not targets & read_anywhere:
                continue
        out.append(statement)
    return out


def _tidy(statements):
    """No comment without a statement after it, no ``pass`` beside other statements."""
    out = []
    for statement in reversed(statements):
        if comment_text(statement) is not None and (not out or comment_text(out[-1]) is not None):
            continue
        out.append(statement)
    out.reverse()
    real = [s for s in out if not isinstance(s, gast.Pass)]
    return real if real else out


def _top_level(statements, resolve):
    live: set[str] = set()
    kept = []
    for statement in reversed(statements):
        if comment_text(statement) is not None:
            # a comment titles the statements after it: keep it only if there are some
            if kept and comment_text(kept[-1]) is None and not isinstance(kept[-1], gast.Return):
                kept.append(statement)
            continue
        if isinstance(statement, gast.Assign):
            targets = {n.id for t in statement.targets for n in syntax.walk(t)
                       if isinstance(n, gast.Name)}
            if not (targets & live) and _pure(statement.value, resolve):
                continue
            live -= targets
            live |= load_names(statement.value)
        elif isinstance(statement, gast.Expr):
            if _pure(statement.value, resolve):
                continue
            live |= load_names(statement)
        else:
            live |= load_names(statement)
        kept.append(statement)
    return list(reversed(kept))


def _pure(node, resolve) -> bool:
    for sub in syntax.walk(node):
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
