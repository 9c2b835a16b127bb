"""Give every assignment inside a loop body its own name; carry values over explicitly.

After this pass each name is assigned at most once per iteration of a loop
body, and every variable whose value flows from one iteration to the next
(read in the body before it is assigned there, or assigned more than once)
is copied back at the end of the body::

    for i in range(n):               for i in range(n):
        mul = r * x                      mul = r * x
        x = mul * (1.0 - x)   ->         x_2 = mul * (1.0 - x)
        s = s + x * x                    s_2 = s + x_2 * x_2
                                         x = x_2
                                         s = s_2

So inside the body ``x`` always means the value at the start of the
iteration and ``x_2`` the value at its end: the reverse sweep can restore
the start of an iteration from the tape and find its end in ``x``.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..annotations import mark_carry, set_origin
from ..naming import Namer
from .rename_redefinitions import _RenameLoads


def rename_loop_carried(tree: gast.FunctionDef, namer: Namer) -> gast.FunctionDef:
    for node in list(gast.walk(tree)):
        if isinstance(node, gast.For):
            node.body = _rename_body(node.body, namer)
    return tree


def _rename_body(body, namer):
    carried = set()
    seen = set()
    counts = {}
    for statement in body:
        reads = syntax.load_names(statement.value) if isinstance(statement, gast.Assign) \
            else syntax.load_names(statement)
        carried |= {n for n in reads if n in _stored(body) and n not in seen}
        for target in _targets(statement):
            counts[target] = counts.get(target, 0) + 1
            seen.add(target)
    carried |= {n for n, c in counts.items() if c > 1}
    current: dict[str, str] = {}
    out = []
    for statement in body:
        if isinstance(statement, gast.Assign):
            _RenameLoads(current).visit(statement.value)
            for target in statement.targets:
                for n in gast.walk(target):
                    if isinstance(n, gast.Name) and n.id in carried:
                        original = n.id
                        n.id = namer.fresh(original)
                        current[original] = n.id
        else:
            _RenameLoads(current).visit(statement)
        out.append(statement)
    for original in sorted(carried, key=list(current).index):
        copy_back = mark_carry(syntax.assign(original, syntax.name(current[original])))
        out.append(set_origin(gast.copy_location(copy_back, body[-1]), body[-1]))
    return out


def _targets(statement):
    if not isinstance(statement, gast.Assign):
        return []
    return [n.id for t in statement.targets for n in gast.walk(t) if isinstance(n, gast.Name)]


def _stored(body):
    names = set()
    for statement in body:
        names.update(_targets(statement))
    return names
