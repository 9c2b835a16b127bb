"""Insert the run-time checks of the results activity analysis took to need no derivative.

A method srcad cannot resolve (``name.split("_")``, ``key.startswith("W")``) is taken to
give a result that needs no derivative; where a varied value reaches it, activity analysis
lists its statement in ``Activity.discrete`` (analysis/activity.py).

After this pass, each statement of ``activity.discrete`` is followed, in its block, by
``rt.check_discrete(target, "file:line:col", "method")``, which raises the located
MissingTemplateError when the result is a float after all; nothing else changes. It edits
the normalized tree in place before the transform, so both modes (and grad()'s check) see
the checks.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..analysis.activity import Activity


def insert_discrete_checks(tree, activity: Activity, location_of, rt: str) -> None:
    """After each statement of ``activity.discrete``, ``rt.check_discrete(target, where,
    method)``: the result taken to need no derivative is checked when the code runs."""
    if not activity.discrete:
        return
    checked = {id(node): node for node in activity.discrete}
    for holder in syntax.statements(tree):
        for field_name in ("body", "orelse"):
            block = getattr(holder, field_name, None)
            if type(block) is not list or not any(id(s) in checked for s in block):
                continue
            new_block = []
            for statement in block:
                new_block.append(statement)
                if id(statement) in checked:
                    where = location_of(statement.value)
                    new_block.append(gast.copy_location(gast.Expr(value=syntax.call(
                        syntax.attribute(syntax.name(rt), "check_discrete"),
                        syntax.deepcopy(statement.targets[0]),
                        syntax.constant("%s:%d:%d" % (where.filename, where.lineno, where.col)),
                        syntax.constant(statement.value.func.attr))), statement))
            setattr(holder, field_name, new_block)
