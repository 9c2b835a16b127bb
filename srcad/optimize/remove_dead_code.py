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
    whether its value is pure stay true across its rounds. ``confirm`` (a debug mode): run
    the round known to change nothing all the same, and fail if it does."""
    if facts is None:
        facts = StatementFacts(resolve)
    # how often each name is read: statements are only dropped here, so the count is kept
    # up to date by subtracting what a dropped statement read (no walk of the tree per round)
    if reads is None:
        reads = facts.counts(tree, stores=False)[0]
    assignments = _Assignments(facts)
    for _ in range(3):  # removing a statement can make what it read dead too
        dropped, dropped_nested, passes_added = _round(tree, facts, assignments, reads)
        # statements are dropped, and ``pass`` put in a block left empty: as many of each,
        # and the function holds as many statements as before (the rounds' old test)
        if len(dropped) + len(dropped_nested) == passes_added:
            break
        if _settled(dropped_nested):
            if confirm and any(_round(tree, facts, assignments, reads)):
                raise AssertionError("remove_dead_code: a round it would have skipped "
                                     "changed the tree")
            break
    return tree


def _settled(dropped_nested) -> bool:
    """Whether the round after one that dropped ``dropped_nested`` inside blocks would change
    nothing: it reads the same names and sees the same top level (dropping there is done in
    one backward walk) unless an assignment inside a block went; and it tidies blocks as
    this one did unless a ``pass`` went (a comment before it may be left with nothing)."""
    return not any(type(s) in (gast.Assign, gast.Pass) for s in dropped_nested)


def _round(tree, facts, assignments, reads) -> tuple:
    """One round: the statements dropped at the top level, those dropped inside blocks, and
    how many ``pass`` it put in blocks left empty."""
    dropped, passes_added = [], [0]
    tree.body = _top_level(tree.body, facts, assignments, dropped)
    _forget(dropped, facts, reads)
    read_anywhere = {name for name, count in reads.items() if count > 0}
    dropped_nested = []
    tree.body = _nested(tree.body, read_anywhere, facts, assignments, dropped_nested,
                        passes_added, top=True)
    _forget(dropped_nested, facts, reads)
    return dropped, dropped_nested, passes_added[0]


def _forget(dropped, facts, reads):
    """``dropped`` statements (simple ones) left the tree: their reads no longer count."""
    subtract = reads.subtract
    for statement in dropped:
        subtract(facts.entry(statement).loaded)


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


def _nested(statements, read_anywhere, facts, assignments, dropped, passes_added, top=False):
    """Inside loops and branches: drop pure assignments to names read nowhere."""
    out = []
    for statement in statements:
        if type(statement) in COMPOUND:
            statement.body = _tidy(_nested(statement.body, read_anywhere, facts, assignments,
                                           dropped, passes_added), dropped)
            if not statement.body:
                statement.body = [gast.Pass()]
                passes_added[0] += 1
            statement.orelse = _tidy(_nested(statement.orelse, read_anywhere, facts,
                                             assignments, dropped, passes_added), dropped)
        elif (not top and type(statement) is gast.Assign
              and read_anywhere.isdisjoint(assignments.of(statement)[1])
              and facts.pure(statement)):
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


def _top_level(statements, facts, assignments, dropped):
    live: set[str] = set()
    kept = []
    titled = False  # whether the statement kept last (the next one) can have a title
    Assign, Expr, Return = gast.Assign, gast.Expr, gast.Return
    known, pure = assignments.known, facts.pure
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
            found = known.get(id(statement))
            _, targets, value_read = found if found is not None else assignments.of(statement)
            if live.isdisjoint(targets) and pure(statement):
                dropped.append(statement)
                continue
            live -= targets
            live |= value_read
        elif kind is Expr:
            if pure(statement):
                dropped.append(statement)
                continue
            live |= facts.reads_now(statement)
        else:
            live |= facts.reads_now(statement)
        kept.append(statement)
        titled = kind is not Return
    return list(reversed(kept))
