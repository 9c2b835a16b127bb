"""What each statement of a function reads and assigns, worked out once and shared by the
dataflow passes (propagate_copies, remove_dead_code, accumulate_in_place, fuse_single_use):
none of them walks every statement's names again for what an earlier one learned.

A statement's entry holds the names it reads (every read), the names it assigns or deletes,
whether fold_constants may have a fold to make in it (an operator of constants, a zero or a
one, ``c1 * (c2 * e)``, a unary operation of a constant or of a unary operation: without one
of those, no rule of it applies), whether it holds a call (or a yield, await, ``:=``:
without one its value is effect-free), and whether its value is effect-free (worked out when
first asked). A loop's or branch's entry covers its header only (the ``for`` target and
iterable, the ``while`` or ``if`` test): the statements of its blocks have entries of their
own, so an entry stays true when a block changes. The function's own entry covers what it
holds outside its body.

Entries are keyed by the statement's identity and keep the statement alive (no identity is
reused while the table exists). A pass that changes a statement's expressions in place
brings its entry up to date (propagate_copies: the reads it replaced, CopyFacts.replaced;
fuse_single_use: the value it moved in, ``moved_into``) or calls ``forget(statement)``; a
statement put in place of another gets an entry of its own when first asked about. Folding
constants never adds or removes a name, so entries outlive it. This is an analysis, not a
pass: it changes no tree.

An expression is effect-free when it only reads names, does arithmetic, indexing and
attribute reads, and calls known pure functions (NumPy, math, srcad's runtime helpers,
registered primitives): ``is_pure``.
"""

from __future__ import annotations

import builtins
from collections import Counter

import gast
import numpy as np

from .. import registry, runtime, syntax

COMPOUND = (gast.For, gast.While, gast.If)  # statements with blocks (no subclasses exist)
_NO_NAMES = frozenset()  # the names an entry holds none of (never changed in place)


class Entry:
    """One statement's facts: ``loaded`` (every name read, as often as it is read), ``read``
    (those names as a set), ``stored`` (every name assigned or deleted), ``assigned`` (those
    as a set), ``folds`` (fold_constants may have a fold to make), ``calls`` (it holds a call,
    or a yield, await or ``:=``), ``purity`` (whether its value is effect-free; None until
    asked)."""

    __slots__ = ("assigned", "calls", "folds", "loaded", "purity", "read", "statement",
                 "stored")

    def __init__(self, statement, loaded, stored, folds, calls=True):
        self.statement = statement  # kept: no id is reused while the entry exists
        self.loaded = loaded
        self.read = set(loaded) if loaded else _NO_NAMES
        self.stored = stored
        self.assigned = ({stored[0]} if len(stored) == 1 else set(stored)) if stored \
            else _NO_NAMES
        self.folds = folds  # may have a fold to make (_work_out)
        self.calls = calls  # (replacing a name by a name or constant never adds one)
        self.purity = None


class StatementFacts:
    """The entries of one function's statements; ``resolve`` (srcad/resolve.py) tells which
    callees are pure. ``reads``: how often each name is read in the whole function, when a
    pass keeps it (``survey`` or propagate_copies counts it; propagate_copies keeps it up to
    date, and remove_dead_code, accumulate_in_place and fuse_single_use update it for what
    they drop or rewrite). ``stores``: how often each name is assigned or deleted, likewise
    (``survey`` counts it)."""

    def __init__(self, resolve=None):
        self.resolve = resolve
        self.entries: dict = {}  # id(statement) -> Entry
        self.callees: dict = {}  # a callee's dotted name -> whether calling it is pure
        self.reads: Counter | None = None
        self.stores: Counter | None = None

    def entry(self, statement) -> Entry:
        """``statement``'s entry, worked out now if it has none."""
        found = self.entries.get(id(statement))
        if found is None:
            _work_out([statement], self.entries)
            found = self.entries[id(statement)]
        return found

    def statements(self, tree) -> list:
        """The statements of the function ``tree`` (not itself), each with its entry (those
        missing worked out together)."""
        found, missing, entries = [], [], self.entries
        blocks = [tree.body]
        while blocks:
            for statement in blocks.pop():
                found.append(statement)
                if id(statement) not in entries:
                    missing.append(statement)
                if type(statement) in COMPOUND:
                    blocks.append(statement.orelse)
                    blocks.append(statement.body)
        if missing:
            _work_out(missing, entries)
        return found

    def function_entry(self, tree) -> Entry:
        """The entry of the function ``tree`` itself: what it holds outside its body."""
        found = self.entries.get(id(tree))
        if found is None:
            header = gast.FunctionDef(**{field: [] if field == "body" else value
                                         for field, value in gast.iter_fields(tree)})
            _work_out([header], self.entries)
            found = self.entries.pop(id(header))
            found.statement = tree
            self.entries[id(tree)] = found
        return found

    def reads_now(self, statement) -> set:
        """The names ``statement`` reads anywhere (a loop or branch: its header and its
        blocks as they are now)."""
        return self._anywhere(statement, "read")

    def assigned_now(self, statement) -> set:
        """The names ``statement`` assigns or deletes anywhere (a loop or branch: its header
        and its blocks as they are now)."""
        return self._anywhere(statement, "assigned")

    def _anywhere(self, statement, fact: str) -> set:
        """The entry's ``fact`` (read or assigned names) of ``statement`` and, for a loop or
        branch, of every statement in its blocks."""
        names = getattr(self.entry(statement), fact)
        if type(statement) not in COMPOUND:
            return names
        names, entries = set(names), self.entries
        blocks = [statement.body, statement.orelse]
        while blocks:
            for inner in blocks.pop():
                names.update(getattr(entries.get(id(inner)) or self.entry(inner), fact))
                if type(inner) in COMPOUND:
                    blocks.append(inner.body)
                    blocks.append(inner.orelse)
        return names

    def forget(self, statement):
        """``statement``'s expressions changed in place: its entry is worked out again when
        next asked for."""
        self.entries.pop(id(statement), None)

    def moved_into(self, statement, name, moved):
        """A read of ``name`` in ``statement`` was replaced by the value of ``moved``, an
        assignment to one name: ``statement``'s entry follows."""
        entry, inserted = self.entry(statement), self.entry(moved)
        loaded = list(entry.loaded)
        loaded.remove(name)
        loaded += inserted.loaded  # (all of them in its value)
        entry.loaded, entry.read = loaded, set(loaded)
        entry.folds = entry.folds or inserted.folds
        entry.calls = entry.calls or inserted.calls
        entry.purity = None  # what it calls may be known now

    def pure(self, statement) -> bool:
        """Whether the value of an assignment or expression statement is effect-free."""
        entry = self.entry(statement)
        if entry.purity is None:  # (without a call, yield, await or :=, it is)
            entry.purity = not entry.calls or is_pure(statement.value, self.resolve,
                                                      self.callees)
        return entry.purity

    def counts(self, tree, stores: bool = True) -> tuple[Counter, Counter | None]:
        """How often each name is read, and (``stores``) assigned or deleted, in the function
        ``tree`` as it is now: its statements' entries summed."""
        header, entries = self.function_entry(tree), self.entries
        loaded, stored = list(header.loaded), list(header.stored)
        for statement in self.statements(tree):
            found = entries[id(statement)]
            loaded += found.loaded
            if stores:
                stored += found.stored
        return Counter(loaded), Counter(stored) if stores else None

    def foldable(self, ids) -> tuple[set, list | None]:
        """Those of the statements ``ids`` whose entry (when they have one) says they may have
        a fold to make, and those statements themselves (None when one has no entry)."""
        entries, kept, statements = self.entries, set(), []
        for key in ids:
            entry = entries.get(key)
            if entry is None:
                kept.add(key)
                statements = None
            elif entry.folds:
                kept.add(key)
                if statements is not None:
                    statements.append(entry.statement)
        return kept, statements

    def survey(self, tree) -> tuple[Counter, Counter, set]:
        """How often each name is read, and assigned or deleted, in the function ``tree``,
        and the ids of its statements (itself among them) where fold_constants may have
        something to fold (``_work_out``)."""
        header, entries = self.function_entry(tree), self.entries
        loaded, stored = list(header.loaded), list(header.stored)
        foldable = {id(tree)} if header.folds else set()
        for statement in self.statements(tree):
            found = entries[id(statement)]
            loaded += found.loaded
            stored += found.stored
            if found.folds:
                foldable.add(id(statement))
        return Counter(loaded), Counter(stored), foldable

    def rewritten(self, old, new):
        """The statement ``new`` took ``old``'s place: the kept counts (when kept) follow."""
        before, after = self.entry(old), self.entry(new)
        if self.reads is not None:
            self.reads.subtract(before.loaded)
            self.reads.update(after.loaded)
        if self.stores is not None:
            self.stores.subtract(before.stored)
            self.stores.update(after.stored)


_FIELDS: dict = {}  # node type -> its fields that may hold names (syntax.child_fields)
_BY_ONE = (gast.Mult, gast.Div, gast.Pow)  # the operators whose e op 1 may fold to e
_PLUS_ZERO = (gast.Add, gast.Sub)  # those whose e op 0 may


def _work_out(statements, entries: dict):
    """The entries of ``statements`` into ``entries``: the names each reads and assigns (a
    loop's or branch's header only: the names ``syntax.names`` yields there, walked without
    a generator), and whether fold_constants may have a fold to make in it: the first fold
    it makes (its children not folded yet, a rule's operands as they are) is at an operator
    with two constant operands, a zero or a one (an identity), ``c1 * (c2 * e)``, or a unary
    operation of a constant or of a unary operation. Without one, it makes none."""
    Name, Load, Store, Del = gast.Name, gast.Load, gast.Store, gast.Del
    Constant, UnaryOp, For = gast.Constant, gast.UnaryOp, gast.For
    BinOp, Compare, Mult, Add = gast.BinOp, gast.Compare, gast.Mult, gast.Add
    fields_of, child_fields = _FIELDS, syntax.child_fields
    AST, Assign, Attribute, Call = gast.AST, gast.Assign, gast.Attribute, gast.Call
    for statement in statements:
        loaded, stored = [], []
        load, store = loaded.append, stored.append
        kind = type(statement)
        # the nodes met are read where they are found (a name is read or stored there, a
        # constant skipped, anything else walked): first a statement's own parts
        stack = []
        if kind in COMPOUND:  # (a loop's or branch's header only)
            children = (statement.target, statement.iter) if kind is For else (statement.test,)
        elif kind is Assign:  # (the commonest statement: its targets and value directly)
            children = (*statement.targets, statement.value)
        else:
            children, stack = (), [statement]
        pop, push = stack.pop, stack.append
        folds = calls = False
        while True:
            for child in children:
                child_kind = type(child)
                if child_kind is Name:
                    context = type(child.ctx)
                    if context is Load:
                        load(child.id)
                    elif context is Store or context is Del:
                        store(child.id)
                elif child_kind is not Constant and child is not None:  # (None: Dict.keys)
                    push(child)
            if not stack:
                break
            current = pop()
            kind = type(current)
            if kind is BinOp:  # (the commonest node: its two operands looked at directly)
                left, right = current.left, current.right
                if not folds:  # where a rule of fold_constants may apply first (see above)
                    if type(left) is Constant:  # c + c, 1 * e, 0 + e, c1 * (c2 * e)
                        op = type(current.op)
                        folds = type(right) is Constant or (
                            op is Mult and (left.value == 1 or type(right) is BinOp
                                            and type(right.left) is Constant)
                            or op is Add and left.value == 0)
                    elif type(right) is Constant:  # e * 1, e / 1, e ** 1, e + 0, e - 0
                        op = type(current.op)
                        folds = (right.value == 1 if op in _BY_ONE
                                 else op in _PLUS_ZERO and right.value == 0)
                children = (left, right)
                continue
            if kind is Attribute:  # (np.dot, rt.unbroadcast, x.T: a name, mostly)
                children = (current.value,)
                continue
            if kind is Call:  # (its function, arguments and keywords' values directly)
                calls = True
                children = (current.func, *current.args,
                            *[keyword.value for keyword in current.keywords])
                continue
            if kind in _EFFECTS:
                calls = True
            if not folds:
                if kind is UnaryOp:
                    operand = type(current.operand)
                    folds = operand is Constant or operand is UnaryOp
                elif kind is Compare:
                    folds = (type(current.left) is Constant
                             and type(current.comparators[0]) is Constant)
            fields = fields_of.get(kind)
            if fields is None:
                if not isinstance(current, AST):  # None in Dict.keys
                    children = ()
                    continue
                fields = fields_of[kind] = child_fields(kind)
            children = []
            for field in fields:
                value = getattr(current, field, None)
                if type(value) is list:
                    children += value
                elif value is not None:
                    children.append(value)
        entries[id(statement)] = Entry(statement, loaded, stored, folds, calls)


_PURE_BUILTINS = {float, int, abs, len, min, max, slice, tuple, range, sum, pow, round}
_IMPURE_METHODS = {"fill", "sort", "resize", "put", "itemset", "setfield", "partition",
                   "setflags", "tofile", "dump"}


def is_pure(node, resolve, callees: dict | None = None) -> bool:
    """Whether evaluating ``node`` has no effect (see the module's docstring); ``callees``
    keeps what was found about each callee named by a dotted name (``np.sum``), for the
    callers that ask about many nodes with one ``resolve``."""
    Name, Constant, Call, Attribute = gast.Name, gast.Constant, gast.Call, gast.Attribute
    fields_of, child_fields = _FIELDS, syntax.child_fields
    stack = [node]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        current = pop()
        kind = type(current)
        if kind is Name or kind is Constant:
            continue
        if kind in _EFFECTS:
            return False
        if kind is Call:
            func = current.func
            if callees is None:
                if not _pure_callee(func, resolve):
                    return False
            else:
                path, part = [], func
                while type(part) is Attribute:
                    path.append(part.attr)
                    part = part.value
                key = None
                if type(part) is Name:
                    path.append(part.id)
                    key = tuple(path)
                pure = callees.get(key) if key is not None else None
                if pure is None:
                    pure = _pure_callee(func, resolve)
                    if key is not None:
                        callees[key] = pure
                if not pure:
                    return False
        fields = fields_of.get(kind)
        if fields is None:
            if not isinstance(current, gast.AST):  # None in Dict.keys
                continue
            fields = fields_of[kind] = child_fields(kind)
        for field in fields:
            value = getattr(current, field, None)
            if type(value) is list:
                extend(value)
            elif value is not None:
                push(value)
    return True


_EFFECTS = frozenset((gast.Yield, gast.YieldFrom, gast.Await, gast.NamedExpr))


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
