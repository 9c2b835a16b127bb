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
        self.nested_assignments: dict = {}  # name -> the assignments inside blocks to it
        self.top_of: dict = {}  # id(statement inside a block) -> its top-level statement
        # id(top-level statement) -> {name it reads: the top-level assignment it reads it from}
        self.sources: dict = {}
        # id(top-level assignment) -> {target: the reads of it that see this assignment's value}
        self.seen: dict = {}
        self._remove_dead(self._survey(tree.body))

    def _survey(self, body) -> list:
        """Count, and return the statements that may go already."""
        facts, assignments = self.facts, self.assignments
        Assign, Expr = gast.Assign, gast.Expr
        nested_assignments, top_of, sources, seen = (self.nested_assignments, self.top_of,
                                                     self.sources, self.seen)
        last_assigned = {}  # name -> the top-level assignment that assigned it last
        waiting = []
        for statement in body:
            kind = type(statement)
            if kind is Assign:
                _, targets, loads = assignments.of(statement)
            elif kind is Expr:
                if comment_text(statement) is not None:
                    continue
                if facts.pure(statement):  # read nowhere: goes
                    waiting.append(statement)
                    continue
                loads = facts.entry(statement).loaded
            elif kind in COMPOUND:
                loads = list(facts.entry(statement).loaded)
                blocks = [statement.body, statement.orelse]
                while blocks:
                    for inner in blocks.pop():
                        top_of[id(inner)] = statement
                        inner_kind = type(inner)
                        loads += facts.entry(inner).loaded
                        if inner_kind is Assign:
                            for name in assignments.of(inner)[1]:
                                nested_assignments.setdefault(name, []).append(inner)
                        elif inner_kind in COMPOUND:
                            blocks.append(inner.orelse)
                            blocks.append(inner.body)
            else:
                loads = facts.entry(statement).loaded
            found = {}
            for name in loads:
                source = last_assigned.get(name)
                if source is not None:
                    found[name] = source
                    seen[id(source)][name] += 1
            if found:
                sources[id(statement)] = found
            if kind is Assign:
                seen[id(statement)] = dict.fromkeys(targets, 0)
                for name in targets:
                    last_assigned[name] = statement
        reads = self.reads
        waiting += [s for s in body if type(s) is Assign and not any(seen[id(s)].values())]
        waiting += [s for assigned in nested_assignments.values() for s in assigned
                    if all(reads[name] <= 0 for name in assignments.of(s)[1])]
        return waiting

    def _remove_dead(self, waiting):
        facts, assignments, reads = self.facts, self.assignments, self.reads
        removed, nested_assignments, top_of = self.removed, self.nested_assignments, self.top_of
        sources, seen = self.sources, self.seen
        Assign = gast.Assign
        while waiting:
            statement = waiting.pop()
            if id(statement) in removed:
                continue
            top = top_of.get(id(statement))
            if type(statement) is Assign:
                if top is None:
                    if any(seen[id(statement)].values()):
                        continue
                elif any(reads[name] > 0 for name in assignments.of(statement)[1]):
                    continue
                if not facts.pure(statement):
                    continue
            removed.add(id(statement))
            loaded = facts.entry(statement).loaded
            for name in loaded:
                reads[name] -= 1
                if reads[name] == 0:
                    waiting += nested_assignments.get(name, ())
            # the reads that saw a top-level assignment's value
            if top is None:
                if type(statement) is not Assign:
                    continue  # an expression statement: counted for no assignment
                found, loaded = sources.get(id(statement)), assignments.of(statement)[2]
            else:
                found = sources.get(id(top))
            if found:
                for name in loaded:
                    source = found.get(name)
                    if source is not None:
                        counts = seen[id(source)]
                        counts[name] -= 1
                        if counts[name] == 0:
                            waiting.append(source)


def _kept_top_level(statements, removed) -> list:
    """The top-level statements kept: a comment titles the statements after it, so it stays
    only if the next one kept is neither a comment nor a ``return``."""
    kept = []
    titled = False  # whether the statement kept last (the next one) can have a title
    Return = gast.Return
    for statement in reversed(statements):
        if id(statement) in removed:
            continue
        if comment_text(statement) is not None:
            if titled:
                kept.append(statement)
                titled = False
            continue
        kept.append(statement)
        titled = type(statement) is not Return
    kept.reverse()
    return kept


def _tidy_blocks(statements, removed):
    """The blocks of the loops and branches in ``statements``, without what was removed and
    tidied; an emptied loop or ``if`` body becomes ``pass``."""
    for statement in statements:
        if type(statement) in COMPOUND:
            statement.body = _tidied([s for s in statement.body if id(s) not in removed],
                                     removed) or [gast.Pass()]
            statement.orelse = _tidied([s for s in statement.orelse if id(s) not in removed],
                                       removed)


def _tidied(block, removed) -> list:
    _tidy_blocks(block, removed)
    while True:  # (at most three times: comments before a ``pass`` dropped go next time)
        dropped = []
        block = _tidy(block, dropped)
        if not dropped:
            return block


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
    counted = facts.counts(tree, stores=False)[0]
    if +counted != +reads or any(count < 0 for count in reads.values()):
        raise AssertionError("remove_dead_code: the read counts it kept are not the tree's")
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
