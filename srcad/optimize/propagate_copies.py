"""Copy and constant propagation within each block.

For ``a = b`` (``b`` a name or a constant), later statements of the same block
read ``b`` instead of ``a`` until ``a`` or ``b`` is assigned again. When that
replaced every read of ``a`` in the function, the copy itself goes::

    div_bar = 1.0                  sum_bar = 1.0 / n
    sum_bar = div_bar / n     ->   h_bar = np.dot(add_bar, W2.T)
    out_bar = add_bar
    h_bar = np.dot(out_bar, W2.T)

    x_2_bar = x_bar                    (inside a loop body)
    x_2_bar = x_2_bar + g     ->   x_2_bar = x_bar + g

A loop or branch inside the range is entered only if it assigns neither
name; ``a = a`` left behind by the replacement is removed.
"""

from __future__ import annotations

import gast

from .. import syntax
from .statement_facts import COMPOUND, StatementFacts


def propagate_copies(tree: gast.FunctionDef, facts: CopyFacts | None = None,
                     changed: set | None = None, confirm: bool = False) -> gast.FunctionDef:
    """``facts``: what a previous run (or another pass) learned about ``tree``'s statements
    (statement_facts.py), kept true here; the ids of the statements a replacement changed
    are added to ``changed``. ``confirm`` (a debug mode): run the rounds known to change
    nothing all the same, and fail if one does."""
    if facts is None:
        facts = CopyFacts()
    if facts.reads is None:
        facts.reads = facts.counts(tree, stores=False)[0]
    changed = changed if changed is not None else set()
    facts.converged = False
    params = {a.id for a in tree.args.args}
    for _ in range(4):  # a copy made constant by an outer one propagates on the next round
        walk = _Round(params, facts, changed)
        tree.body = _block(tree.body, walk)
        if not walk.changes:
            facts.converged = True  # a run on the same tree would change nothing
            break
        if walk.settled():
            if confirm:
                check = _Round(params, facts, changed)
                tree.body = _block(tree.body, check)
                if check.changes:
                    raise AssertionError("propagate_copies: a round it would have skipped "
                                         "changed the tree")
            facts.converged = True
            break
    return tree


class _Round:
    """What one round over the tree does, and what tells whether another would do more."""

    def __init__(self, params, facts, changed):
        self.params, self.facts, self.changed = params, facts, changed
        self.changes = 0  # reads replaced and copies dropped
        self.dropped = []  # the copies dropped (and ``a = a``)
        self.blocking = set()  # ids of the statements that ended a copy kept, assigning a name
        self.kept = set()  # the targets of the copies ended and kept

    def settled(self) -> bool:
        """Count the reads (and assignments) the dropped statements made (what the next
        round would count afresh); then whether the next round would change nothing.

        Within a round, every read in a copy's range is replaced, and a copy is dropped
        when no read of its target is left. Inner blocks go first, so a loop or branch is
        entered with the copies of its blocks replaced and dropped already; entering one
        replaces reads of the copy's target only where neither its target nor its source is
        assigned, so the copies inside keep the ranges they had. What the next round sees
        anew is this round's drops and replacements made after a copy was kept: a dropped
        statement that ended a copy kept (the copy now reaches further), and reads of a kept
        copy's target gone since it ended (replaced by a copy of the same name that ended
        later, in an outer block, or made by a statement dropped): it goes when none is
        left."""
        reads, stores = self.facts.reads, self.facts.stores
        for statement in self.dropped:
            if type(statement.value) is gast.Name:
                reads[statement.value.id] -= 1
            if stores is not None:  # (kept when counted: each dropped assigns one name)
                stores[statement.targets[0].id] -= 1
        return all(reads[name] > 0 for name in self.kept) and not any(
            id(statement) in self.blocking for statement in self.dropped)


_COMPOUND = COMPOUND
_SUBSTITUTED = (gast.Assign, gast.Expr, gast.Return)  # the statements whose value is replaced


class CopyFacts(StatementFacts):
    """The statements' facts (statement_facts.py) and what propagate_copies keeps between its
    runs: replacing reads never changes what a statement assigns, and a statement's reads
    change only where a replacement happened (its entry follows it then). ``reads`` counts
    the reads of each name in the whole tree, kept up to date."""

    def __init__(self, resolve=None):
        super().__init__(resolve)
        self.converged = False  # the last run ended with a round that changed nothing
        self.value_loads = {}  # id(assignment) -> (it, what its value reads): other targets

    def value_reads(self, statement) -> set:
        """The names the value of ``statement`` (an assignment, expression or return) reads."""
        if type(statement) is gast.Assign and not all(
                type(t) is gast.Name for t in statement.targets):
            found = self.value_loads.get(id(statement))
            if found is None:  # (the statement kept with them: its id is never reused)
                found = self.value_loads[id(statement)] = (
                    statement, syntax.load_names(statement.value))
            return found[1]
        return self.entry(statement).read

    def replaced(self, statements, active, changed, everywhere=True):
        """Every read of the target of a copy in ``active`` inside ``statements`` (and their
        blocks; but ``everywhere`` false: inside their values) was replaced by the copy's
        source: their entries follow, and their ids are added to ``changed``."""
        entries, Name = self.entries, gast.Name
        for statement in statements:
            changed.add(id(statement))
            self.value_loads.pop(id(statement), None)
            entry = entries.get(id(statement))
            if entry is None:
                pass
            elif everywhere or type(statement) is not gast.Assign or all(
                    type(t) is Name for t in statement.targets):  # it reads in its value only
                loaded, folds = [], entry.folds
                for name in entry.loaded:
                    copy = active.get(name)
                    if copy is None:
                        loaded.append(name)
                    elif type(copy[0]) is Name:
                        loaded.append(copy[0].id)
                    else:
                        folds = True  # a constant: something to fold, perhaps
                entry.loaded, entry.read, entry.folds = loaded, set(loaded), folds
                entry.purity = None
            else:
                self.forget(statement)
            if type(statement) in _COMPOUND:
                self.replaced(statement.body, active, changed)
                self.replaced(statement.orelse, active, changed)


def _block(statements, walk: _Round):
    """One forward walk over the block, carrying the copies in effect (target -> source).

    A copy is in effect from the statement after it until a statement assigns its
    target or its source; a loop or branch assigning neither is replaced in whole.
    """
    for statement in statements:
        if type(statement) in _COMPOUND:
            statement.body = _block(statement.body, walk) or [gast.Pass()]
            statement.orelse = _block(statement.orelse, walk)
    active = {}  # target -> (source, copy statement, count of reads replaced)
    blocking = {}  # name -> targets of the copies in effect that assigning it ends
    dropped = set()  # ids of copies no read can see any more
    facts, reads, changed, params = walk.facts, walk.facts.reads, walk.changed, walk.params

    def end(target, overwritten):
        source, copy, replaced = active.pop(target)
        for name in _blockers(target, source):
            ended = blocking[name]
            ended.discard(target)
            if not ended:
                del blocking[name]
        reads[target] -= replaced
        walk.changes += replaced
        if type(source) is gast.Name:
            reads[source.id] += replaced
        if reads[target] == 0 or overwritten:
            walk.changes += 1
            dropped.add(id(copy))
            walk.dropped.append(copy)
            return False
        walk.kept.add(target)
        return True

    Assign, Name, Constant = gast.Assign, gast.Name, gast.Constant
    entries = facts.entries
    active_names, blocking_names = active.keys(), blocking.keys()  # (live views)
    for statement in statements:
        kind = type(statement)
        if kind in _COMPOUND:
            if blocking:
                stored = facts.assigned_now(statement)
                if not blocking_names.isdisjoint(stored):
                    # (the names both assign and block: looked up from the fewer)
                    both = [name for name in stored if name in blocking] \
                        if len(stored) < len(blocking) else \
                        [name for name in blocking if name in stored]
                    for target in sorted({t for name in both for t in blocking[name]}):
                        end(target, False)
            if active and not active_names.isdisjoint(facts.reads_now(statement)):
                counts = [replaced for _, _, replaced in active.values()]
                _substitute(statement, active)
                if counts != [replaced for _, _, replaced in active.values()]:
                    facts.replaced([statement], active, changed)
            continue
        single = None  # the name assigned, by an assignment to one name
        if kind is Assign:
            targets = statement.targets
            if len(targets) == 1 and type(targets[0]) is Name:
                single = targets[0].id
        blocked = ()
        if blocking or active:
            entry = entries.get(id(statement)) or facts.entry(statement)
            stored = entry.assigned  # replacing never changes what it assigns
            if blocking and not blocking_names.isdisjoint(stored):
                blocked = sorted({t for name in stored for t in blocking.get(name, ())})
            if active and kind in _SUBSTITUTED and statement.value is not None:
                # (what its value reads: all it reads, but where a target reads a name)
                value_reads = entry.read if single is not None or kind is not Assign \
                    else facts.value_reads(statement)
                if not active_names.isdisjoint(value_reads):
                    statement.value = _substitute(statement.value, active)
                    facts.replaced([statement], active, changed, everywhere=False)
        for target in blocked:
            if end(target, target in stored and kind is Assign):
                walk.blocking.add(id(statement))
        if single is not None:
            value = statement.value
            source = type(value)
            if source is Name and value.id == single:  # a = a
                walk.changes += 1
                dropped.add(id(statement))
                walk.dropped.append(statement)
            elif (source is Name or source is Constant) and single not in params:  # a copy
                active[single] = (value, statement, 0)
                ended = blocking.get(single)
                if ended is None:
                    blocking[single] = {single}
                else:
                    ended.add(single)
                if source is Name:
                    ended = blocking.get(value.id)
                    if ended is None:
                        blocking[value.id] = {single}
                    else:
                        ended.add(single)
    for target in list(active):
        end(target, False)
    return [s for s in statements if id(s) not in dropped] if dropped else statements


def _blockers(target, source) -> tuple:
    """The names whose assignment ends the copy ``target = source``."""
    return (target, source.id) if isinstance(source, gast.Name) else (target,)


def _substitute(node, active):
    """``node`` with every read of a copy's target replaced by its source (counted in
    ``active``); returns the node (a different one when ``node`` itself was replaced)."""
    Name, Load, Constant, AST = gast.Name, gast.Load, gast.Constant, gast.AST
    copy_location, deepcopy, child_fields = syntax.copy_location, syntax.deepcopy, \
        syntax.child_fields

    def replacement(child):
        if type(child.ctx) is Load and child.id in active:
            source, copy, replaced = active[child.id]
            active[child.id] = (source, copy, replaced + 1)
            kind = type(source)
            if kind is Constant or kind is Name and getattr(source, "annotation", None) is None:
                # (what syntax.deepcopy makes of a name or a constant, without its walk)
                new = kind.__new__(kind)
                new.__dict__ = attributes = source.__dict__.copy()
                for field in kind._fields:  # (a field never set is None in the copy)
                    if field not in attributes:
                        attributes[field] = None
                if kind is Name:
                    context = attributes["ctx"]
                    attributes["ctx"] = leaf = type(context).__new__(type(context))
                    leaf.__dict__ = context.__dict__.copy()
                return copy_location(new, child)
            return copy_location(deepcopy(source), child)
        return None

    if type(node) is Name:
        top = replacement(node)
        return node if top is None else top
    stack = [node]
    while stack:
        current = stack.pop()
        for field in child_fields(type(current)):  # (names are never a context or operator)
            value = getattr(current, field, None)
            if type(value) is list:
                for index, item in enumerate(value):
                    kind = type(item)
                    if kind is Name:
                        new = replacement(item)
                        if new is not None:
                            value[index] = new
                    elif kind is not Constant and isinstance(item, AST):
                        stack.append(item)
            elif value is not None:
                kind = type(value)
                if kind is Name:
                    new = replacement(value)
                    if new is not None:
                        setattr(current, field, new)
                elif kind is not Constant and isinstance(value, AST):
                    stack.append(value)
    return node
