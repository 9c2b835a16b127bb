"""Lower writes into existing objects to functional updates that make new values.

Runs right after to_anf, which leaves each write the user's code makes into an
object as a statement of its own, marked with its kind (annotations.write_kind).
After this pass no statement writes into an object: each write is an
assignment of a new value to the name that held the object, still marked with
its kind (for propagate_writes.py, which carries the write to every other name
that sees the object)::

    y[i] = v              ->   y = rt.updated(y, i, v)                  subscript
    y += v                ->   y = y + v                                augmented
    items.append(v)       ->   items = rt.appended(items, v)            append
    v = items.pop()       ->   popped = items[-1]                       pop
                               items = rt.all_but_last(items)
                               v = popped
    rt.add_at(total, i, g) ->  total = rt.added_at(total, i, g)         add_at

(``rt.add_at`` is srcad's own in-place accumulation, in generated code that is
differentiated again.) The calls written for an update the source made in place
are marked as such (annotations.is_in_place). Every other statement is left as
it is, so the function stays in A-normal form.
"""

from __future__ import annotations

import gast

from .. import runtime, syntax
from ..annotations import (located_like, mark_in_place, mark_write, origin, position,
                           set_origin, set_position, write_kind)
from ..naming import Namer


def lower_mutations(tree: gast.FunctionDef, namer: Namer, aliases) -> gast.FunctionDef:
    """Return ``tree`` with every write to_anf marked lowered to a functional update."""
    lowering = _LowerMutations(namer, aliases)
    tree.body = lowering.block(tree.body)
    return tree


class _LowerMutations:
    def __init__(self, namer: Namer, aliases):
        self.namer = namer
        self.aliases = aliases

    def block(self, statements) -> list:
        lowered = []
        for statement in statements:
            for field in ("body", "orelse"):
                if isinstance(getattr(statement, field, None), list):
                    setattr(statement, field, self.block(getattr(statement, field)))
            kind = write_kind(statement)
            if kind is None:
                lowered.append(statement)
            else:
                lowered.extend(getattr(self, "lower_" + kind)(statement))
        return lowered

    def helper(self, name: str) -> gast.Attribute:
        return syntax.attribute(self.aliases.name_for(runtime), name)

    def write(self, name: str, value, like, kind: str) -> gast.Assign:
        """``name = value``, standing where ``like`` stood, marked as a write of ``kind``."""
        statement = gast.Assign(targets=[syntax.name(name, store=True)], value=value,
                                type_comment=None)
        return mark_write(located_like(statement, like), kind)

    def lower_subscript(self, statement):
        """``y[index] = v`` -> ``y = rt.updated(y, index, v)``."""
        target = statement.targets[0]
        container = target.value.id
        call = gast.copy_location(gast.Call(func=self.helper("updated"), args=[
            syntax.name(container), syntax.index_expression(target.slice), statement.value],
            keywords=[]), statement)
        return [self.write(container, call, statement, "subscript")]

    def lower_augmented(self, statement):
        """``y += v`` -> ``y = y + v`` (in place only on arrays and lists: propagate_writes)."""
        name = statement.target.id
        operation = gast.copy_location(gast.BinOp(left=syntax.name(name), op=statement.op,
                                                  right=statement.value), statement)
        return [self.write(name, operation, statement, "augmented")]

    def lower_append(self, statement):
        """``items.append(v)`` -> ``items = rt.appended(items, v)``."""
        call = statement.value
        items = call.func.value.id
        appended = mark_in_place(gast.copy_location(gast.Call(
            func=self.helper("appended"), args=[syntax.name(items), call.args[0]],
            keywords=[]), call))
        return [self.write(items, appended, statement, "append")]

    def lower_add_at(self, statement):
        """``rt.add_at(total, index, g)`` -> ``total = rt.added_at(total, index, g)``."""
        call = statement.value
        total = call.args[0].id
        added = mark_in_place(gast.copy_location(gast.Call(
            func=self.helper("added_at"), args=[syntax.name(total)] + call.args[1:],
            keywords=[]), call))
        return [self.write(total, added, statement, "add_at")]

    def lower_pop(self, statement):
        """``v = items.pop()`` -> ``popped = items[-1]; items = rt.all_but_last(items);
        v = popped``: the last item read before the list loses it."""
        call = statement.value
        items = call.func.value.id
        popped = self.namer.fresh("popped")
        last = gast.copy_location(gast.Subscript(value=syntax.name(items),
                                                 slice=syntax.constant(-1), ctx=gast.Load()),
                                  call)
        read = gast.copy_location(gast.Assign(targets=[syntax.name(popped, store=True)],
                                              value=last, type_comment=None), call)
        set_origin(read, origin(statement))
        set_position(read, position(call))  # the pop itself, not the whole statement
        rest = mark_in_place(gast.copy_location(gast.Call(
            func=self.helper("all_but_last"), args=[syntax.name(items)], keywords=[]), call))
        assign = gast.Assign(targets=statement.targets, value=syntax.name(popped),
                             type_comment=None)
        return [read, self.write(items, rest, statement, "pop"), located_like(assign, statement)]

