"""Remove statements whose results are never read and that have no effect.

After this pass every top-level assignment's target is read later (or
returned), and no expression statement without an effect remains; comment
markers are kept only when the block they title still has statements.
Inside loops and branches, an effect-free assignment is removed when no
statement anywhere reads its target, and a block left with only comments
becomes ``pass`` (or disappears, for an ``else``). Dead chains of any length
go (``b = a + 1`` read nowhere, then ``a = x * 2``, read only by it); names
that read each other (a loop's carried ``s = s_2``, ``s_2 = s * x``) are read.

An expression is effect-free when it only reads names, does arithmetic,
indexing and attribute reads, and calls known pure functions (NumPy, math,
srcad's runtime helpers, registered primitives).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter

import gast

from .. import syntax
from ..annotations import comment_text
from .statement_facts import COMPOUND, StatementFacts, is_pure

_pure = is_pure  # the rule for an effect-free expression (statement_facts.py)


def remove_dead_code(tree: gast.FunctionDef, resolve, reads: Counter | None = None,
                     facts: StatementFacts | None = None, confirm: bool = False
                     ) -> gast.FunctionDef:
    """``reads``: how often each name is read in ``tree``, when known (it is updated);
    ``facts``: what earlier passes learned about the statements (statement_facts.py). This
    pass drops statements but changes none, so what each statement reads, assigns and
    whether its value is pure stay true while it works. ``confirm`` (a debug mode): check
    the result against the rules stated above, applied one by one, and the read counts
    against the tree's."""
    if facts is None:
        facts = StatementFacts(resolve)
    if reads is None:
        reads = facts.counts(tree, stores=False)[0]
    assignments = _Assignments(facts)
    removed = _Removal(tree, facts, assignments, reads).removed
    tree.body = _kept_top_level(tree.body, removed)
    _tidy_blocks(tree.body, removed)
    if confirm:
        _confirm(tree, facts, assignments, reads)
    return tree


class _Assignments:
    """Per assignment, worked out once: the names its targets hold and what its value reads."""

    def __init__(self, facts):
        self.facts = facts
        self.known = {}  # id(assignment) -> (it, target names, names its value reads)

    def of(self, statement) -> tuple:
        found = self.known.get(id(statement))
        if found is None:
            targets = statement.targets
            if all(type(t) is gast.Name and getattr(t, "annotation", None) is None
                   for t in targets):  # the common case: nothing inside the targets
                found = (statement, {t.id for t in targets}, self.facts.entry(statement).read)
            else:
                found = (statement, {n.id for t in targets for n in syntax.walk(t)
                                     if isinstance(n, gast.Name)},
                         syntax.load_names(statement.value))
            self.known[id(statement)] = found
        return found


class _Removal:
    """Which statements go, worked out by counting reads (each statement visited once, and
    once more when it goes): an assignment inside a block goes when its targets' counts in
    the whole function (``reads``) are zero; a top-level one when the reads of its targets
    that see its value (the statements after it, up to the next top-level assignment of
    that name: a loop or branch there reads what any statement in it reads) number zero.
    When a statement goes, the counts of what it read drop, and the assignments whose
    counts reach zero are looked at next. ``removed``: the ids of the statements that go
    (effect-free expression statements at the top level among them)."""

    def __init__(self, tree, facts, assignments, reads):
        self.facts, self.assignments, self.reads = facts, assignments, reads
        self.removed: set = set()
        # name -> its top-level assignments in order, each as (position in the body, the
        # count of the reads that see its value, the assignment, all its targets' counts)
        self.assigned: dict = {}
        self.nested: list = []  # (assignment inside a block, its top-level position)
        self.nested_assignments: dict | None = None  # name -> those assigning it (when asked)
        self._remove_dead(self._survey(tree.body))

    def _survey(self, body) -> list:
        """Count; return what may go already, as the worklist of ``_remove_dead`` holds it:
        (statement, the position of its top-level statement, its targets' counts or None)."""
        facts, assignments, reads = self.facts, self.assignments, self.reads
        entries, entry = facts.entries, facts.entry
        Assign, Expr, Name = gast.Assign, gast.Expr, gast.Name
        assigned, nested, read_count = self.assigned, self.nested, reads.get
        last_assigned = {}  # name -> the count of the reads that see its last top-level value
        waiting = []
        for position, statement in enumerate(body):
            kind = type(statement)
            if kind is Assign:
                targets = statement.targets
                if (len(targets) == 1 and type(targets[0]) is Name
                        and targets[0].annotation is None):
                    targets = (targets[0].id,)
                    loads = (entries.get(id(statement)) or entry(statement)).read
                else:
                    _, targets, loads = assignments.of(statement)
            elif kind is Expr:
                if comment_text(statement) is not None:
                    continue
                if facts.pure(statement):  # read nowhere: goes
                    waiting.append((statement, position, None))
                    continue
                loads = entry(statement).loaded
            elif kind in COMPOUND:
                loads = list(entry(statement).loaded)
                blocks = [statement.body, statement.orelse]
                while blocks:
                    for inner in blocks.pop():
                        loads += (entries.get(id(inner)) or entry(inner)).loaded
                        inner_kind = type(inner)
                        if inner_kind is Assign:
                            nested.append((inner, position))
                            targets = inner.targets
                            if (len(targets) == 1 and type(targets[0]) is Name
                                    and targets[0].annotation is None):
                                dead = read_count(targets[0].id, 0) <= 0
                            else:
                                dead = all(read_count(name, 0) <= 0
                                           for name in assignments.of(inner)[1])
                            if dead:
                                waiting.append((inner, position, None))
                        elif inner_kind in COMPOUND:
                            blocks.append(inner.orelse)
                            blocks.append(inner.body)
                for name, count in Counter(loads).items():
                    seeing = last_assigned.get(name)
                    if seeing is not None:
                        seeing[0] += count
                continue
            else:
                loads = entry(statement).loaded
            for name in loads:
                seeing = last_assigned.get(name)
                if seeing is not None:
                    seeing[0] += 1
            if kind is Assign:
                counts = []
                for name in targets:
                    seeing = last_assigned[name] = [0]
                    counts.append(seeing)
                    record = (position, seeing, statement, counts)
                    found = assigned.get(name)
                    if found is None:
                        assigned[name] = [record]
                    else:
                        found.append(record)
        for records in assigned.values():
            for position, seeing, statement, counts in records:
                if seeing[0] == 0 and all(count[0] == 0 for count in counts):
                    waiting.append((statement, position, counts))
        return waiting

    def _assignments_inside_blocks(self) -> dict:
        """Per name, the assignments inside blocks to it (worked out when first needed)."""
        if self.nested_assignments is None:
            self.nested_assignments = by_name = {}
            for item in self.nested:
                for name in _target_names(item[0], self.assignments):
                    found = by_name.get(name)
                    if found is None:
                        by_name[name] = [(item[0], item[1], None)]
                    else:
                        found.append((item[0], item[1], None))
        return self.nested_assignments

    def _remove_dead(self, waiting):
        facts, assignments, reads = self.facts, self.assignments, self.reads
        removed, assigned = self.removed, self.assigned
        Assign = gast.Assign
        while waiting:
            statement, position, counts = waiting.pop()
            if id(statement) in removed:
                continue
            top_level = counts is not None or type(statement) is not Assign
            if type(statement) is Assign:
                if top_level:
                    if any(count[0] for count in counts):
                        continue
                elif any(reads[name] > 0 for name in _target_names(statement, assignments)):
                    continue
                if not facts.pure(statement):
                    continue
            removed.add(id(statement))
            if facts.stores is not None:  # (kept: what it assigned is assigned no more)
                for name in facts.entry(statement).stored:
                    facts.stores[name] -= 1
            loaded = facts.entry(statement).loaded
            for name in loaded:
                reads[name] -= 1
                if reads[name] == 0:
                    waiting += self._assignments_inside_blocks().get(name, ())
            if top_level:
                if type(statement) is not Assign:
                    continue  # an expression statement: its reads were counted for none
                loaded = assignments.of(statement)[2]
            # the reads that saw a top-level assignment's value: the last one before
            for name in loaded:
                records = assigned.get(name)
                if records is None:
                    continue
                index = bisect_left(records, position, key=_position) - 1
                if index >= 0:
                    source_position, seeing, source, source_counts = records[index]
                    seeing[0] -= 1
                    if seeing[0] == 0:
                        waiting.append((source, source_position, source_counts))


def _position(record):
    return record[0]


def _target_names(assignment, assignments):
    """The names ``assignment``'s targets hold (as ``_Assignments.of`` says)."""
    targets = assignment.targets
    if len(targets) == 1:
        target = targets[0]
        if type(target) is gast.Name and target.annotation is None:
            return (target.id,)
    return assignments.of(assignment)[1]


def _kept_top_level(statements, removed) -> list:
    """The top-level statements kept: a comment titles the statements after it, so it stays
    only if the next one kept is neither a comment nor a ``return``."""
    kept = []
    titled = False  # whether the statement kept last (the next one) can have a title
    Expr, Return = gast.Expr, gast.Return
    for statement in reversed(statements):
        if id(statement) in removed:
            continue
        kind = type(statement)
        if kind is Expr and comment_text(statement) is not None:
            if titled:
                kept.append(statement)
                titled = False
            continue
        kept.append(statement)
        titled = kind is not Return
    kept.reverse()
    return kept


def _tidy_blocks(statements, removed):
    """The blocks of the loops and branches in ``statements``, without what was removed and
    tidied; an emptied loop or ``if`` body becomes ``pass``."""
    for statement in statements:
        if type(statement) in COMPOUND:
            statement.body = _tidied(statement.body, removed) or [gast.Pass()]
            if statement.orelse:
                statement.orelse = _tidied(statement.orelse, removed)


def _tidied(block, removed) -> list:
    """``block`` without what was removed, its loops and branches tidied, then itself."""
    kept = []
    may_be_untidy = False  # holds a comment or a ``pass`` (else ``_tidy`` changes nothing)
    Expr, Pass = gast.Expr, gast.Pass
    for statement in block:
        if id(statement) in removed:
            continue
        kind = type(statement)
        if kind in COMPOUND:
            statement.body = _tidied(statement.body, removed) or [Pass()]
            if statement.orelse:
                statement.orelse = _tidied(statement.orelse, removed)
        elif kind is Expr or kind is Pass:
            may_be_untidy = True
        kept.append(statement)
    while may_be_untidy:  # (at most three times: comments before a dropped ``pass`` go next)
        dropped = []
        kept = _tidy(kept, dropped)
        may_be_untidy = bool(dropped)
    return kept


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


def _confirm(tree, facts, assignments, reads):
    """The rules, one by one, find nothing more to remove, and ``reads`` is the tree's."""
    counted, stored = facts.counts(tree, stores=facts.stores is not None)
    if +counted != +reads or any(count < 0 for count in reads.values()):
        raise AssertionError("remove_dead_code: the read counts it kept are not the tree's")
    if stored is not None and (+stored != +facts.stores
                               or any(count < 0 for count in facts.stores.values())):
        raise AssertionError("remove_dead_code: the assignment counts kept are not the tree's")
    if _top_level(tree.body, facts, assignments, []) != tree.body:
        raise AssertionError("remove_dead_code: a top-level statement left is dead")
    blocks = [s for s in tree.body if type(s) in COMPOUND]
    while blocks:
        compound = blocks.pop()
        for block in (compound.body, compound.orelse):
            if _tidy(block, []) != block or (block is compound.body and not block):
                raise AssertionError("remove_dead_code: a block left is untidy")
            for statement in block:
                if type(statement) in COMPOUND:
                    blocks.append(statement)
                elif (type(statement) is gast.Assign and facts.pure(statement)
                      and all(counted[name] == 0 for name in assignments.of(statement)[1])):
                    raise AssertionError("remove_dead_code: an assignment left is read "
                                         "nowhere")


def _top_level(statements, facts, assignments, dropped):
    """The top-level statements a backward walk keeps: the rule for them, stated directly."""
    live: set[str] = set()
    kept = []
    titled = False  # whether the statement kept last (the next one) can have a title
    Assign, Expr, Return = gast.Assign, gast.Expr, gast.Return
    for statement in reversed(statements):
        kind = type(statement)
        if kind is Expr and comment_text(statement) is not None:
            # a comment titles the statements after it: keep it only if there are some
            if titled:
                kept.append(statement)
                titled = False
            else:
                dropped.append(statement)
            continue
        if kind is Assign:
            _, targets, value_read = assignments.of(statement)
            if live.isdisjoint(targets) and facts.pure(statement):
                dropped.append(statement)
                continue
            live -= targets
            live |= value_read
        elif kind is Expr:
            if facts.pure(statement):
                dropped.append(statement)
                continue
            live |= facts.reads_now(statement)
        else:
            live |= facts.reads_now(statement)
        kept.append(statement)
        titled = kind is not Return
    return list(reversed(kept))
