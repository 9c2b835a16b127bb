"""Remove statements whose results are never read and that have no effect.

After this pass every top-level assignment's target is read later (or
returned), and no expression statement without an effect remains; comment
markers are kept only when the block they title still has statements.
Statements inside loops and branches are kept whole: their liveness is
decided for the compound statement as a unit.

An expression is effect-free when it only reads names, does arithmetic,
indexing and attribute reads, and calls known pure functions (NumPy, math,
srcad's runtime helpers, registered primitives).
"""

from __future__ import annotations

import builtins

import gast
import numpy as np

from .. import registry, runtime
from ..annotations import comment_text
from ..syntax import load_names

_PURE_BUILTINS = {float, int, abs, len, min, max, slice, tuple, range, sum, pow, round}
_IMPURE_METHODS = {"fill", "sort", "resize", "put", "itemset", "setfield", "partition",
                   "setflags", "tofile", "dump"}


def remove_dead_code(tree: gast.FunctionDef, resolve) -> gast.FunctionDef:
    live: set[str] = set()
    kept = []
    for statement in reversed(tree.body):
        if comment_text(statement) is not None:
            if kept and comment_text(kept[-1]) is None:
                kept.append(statement)
            continue
        if isinstance(statement, gast.Assign):
            targets = {n.id for t in statement.targets for n in gast.walk(t)
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
    tree.body = list(reversed(kept))
    return tree


def _pure(node, resolve) -> bool:
    for sub in gast.walk(node):
        if isinstance(sub, (gast.Yield, gast.YieldFrom, gast.Await, gast.NamedExpr)):
            return False
        if isinstance(sub, gast.Call) and not _pure_callee(sub.func, resolve):
            return False
    return True


def _pure_callee(func, resolve) -> bool:
    obj = resolve(func)
    if obj is runtime.check_scalar_output:
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
