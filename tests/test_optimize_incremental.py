"""optimize() refolds only the statements that changed and keeps what propagate_copies learned
between its runs (srcad/pipeline.py), and propagate_copies skips a round known to change
nothing: the code must be what the passes give run in full. remove_dead_code works by counting
reads, not in rounds: whatever its rules would still remove after it, it has removed."""

from __future__ import annotations

import textwrap
from collections import Counter

import gast
import numpy as np
import pytest

from srcad import emit, runtime, syntax
from srcad.optimize import propagate_copies as propagate_copies_module
from srcad.optimize import remove_dead_code as remove_dead_code_module
from srcad.optimize.accumulate_in_place import accumulate_in_place
from srcad.optimize.fold_constants import fold_constants
from srcad.optimize.fuse_single_use import fuse_single_use
from srcad.optimize.propagate_copies import CopyFacts, propagate_copies
from srcad.optimize.remove_dead_code import remove_dead_code

# folds that make copies to propagate, copies that make constants to fold, a fold that needs
# a second run (0.5 * (2.0 * e) is 1.0 * e, then e), copies carried through a loop and a branch
SOURCES = ['''
def f(x, y, n):
    a = x * 1.0
    b = 2.0 * (3.0 * a)
    c = b
    width = 1.0
    d = c / width
    if x > 0:
        e = d * (0.5 * (2.0 * y))
    else:
        e = --d + 0
    g = 0.5 * (2.0 * e)
    return g + c
''', '''
def f(x, n):
    s = 0.0
    k = 2
    scale = k * 0.5
    for i in range(n):
        t = s
        u = t * scale
        if u > 1 - 1:
            s = u + x
        else:
            s = t - x * (1 + 0)
    v = s
    return v * scale
''', '''
def f(x, y, n):
    a = 1 * x
    b = y / 1
    c = a ** 1
    d = b - 0
    e = 0 + c
    g = 3.0 * (2.0 * d)
    h = --e
    k = not True
    m = 1 < 2
    p = -(2.0)
    q = x * 2.0 + y[0] - np.sum(x, axis=0)
    return a + b + c + d + e + g + h + k + m + p + q
''']


def tree_of(source):
    return gast.parse(textwrap.dedent(source)).body[0]


def floating(name):
    return True


def full(tree):
    """fold, propagate, fold, propagate, fold, each over the whole tree (the reference)."""
    for _ in range(2):
        tree = propagate_copies(fold_constants(tree, floating))
    return fold_constants(tree, floating)


def incremental(tree):
    """What pipeline.optimize runs: folds limited to the statements where a rule may apply
    (the survey's flag), then to those changed since and flagged (given as the statements
    themselves: no walk), facts kept."""
    copies = CopyFacts()
    copies.reads, copies.stores, changed = copies.survey(tree)
    statements = None
    for step in range(3):
        if step:
            changed, statements = copies.foldable(changed)
        folded = set()
        if changed != set():
            tree = fold_constants(tree, floating, changed, folded, statements)
        if step == 2:
            break
        changed = folded
        if folded or not copies.converged:
            tree = propagate_copies(tree, copies, changed)
    return tree, copies


def name_counts(tree):
    return Counter((n.id, type(n.ctx).__name__) for n in syntax.names(tree))


def resolve(node):
    names = {"np": np, "rt": runtime}
    if isinstance(node, gast.Name):
        return names.get(node.id)
    if isinstance(node, gast.Attribute):
        return getattr(resolve(node.value), node.attr, None)
    return None


def test_folding_never_adds_or_removes_a_name():
    for source in SOURCES:
        tree = tree_of(source)
        before = name_counts(tree)
        assert name_counts(fold_constants(tree, floating)) == before


def test_a_fold_limited_to_the_statements_changed_equals_a_full_fold():
    for source in SOURCES:
        once = fold_constants(tree_of(source), floating)
        again_in_full = fold_constants(syntax.deepcopy(once), floating)
        changed = set()
        once = fold_constants(tree_of(source), floating, changed=changed)
        assert changed  # every program above has something to fold
        again_limited = fold_constants(once, floating, only=changed)
        assert emit.to_source(again_limited) == emit.to_source(again_in_full)


def test_the_survey_flags_every_statement_a_fold_changes():
    # a statement not flagged is never folded: each rule's first fold is at a flagged operator
    for source in SOURCES:
        tree = tree_of(source)
        flagged = CopyFacts().survey(tree)[2]
        changed = set()
        fold_constants(tree, floating, changed=changed)
        folded = [s for s in syntax.statements(tree) if id(s) in changed
                  and not isinstance(s, (gast.For, gast.While, gast.If, gast.FunctionDef))]
        assert folded and all(id(s) in flagged for s in folded)
    # the last program's last statements have constants, but nothing to fold
    tree = tree_of(SOURCES[-1])
    facts = CopyFacts()
    flagged = facts.survey(tree)[2]
    assert not {id(s) for s in tree.body[-2:]} & flagged


def test_incremental_folds_and_kept_facts_give_the_full_passes_code():
    for source in SOURCES:
        reference = full(tree_of(source))
        tree, copies = incremental(tree_of(source))
        assert emit.to_source(tree) == emit.to_source(reference)
        # the read counts propagate_copies kept are the tree's: remove_dead_code starts from them
        fresh = Counter(n.id for n in syntax.names(tree) if isinstance(n.ctx, gast.Load))
        assert +copies.reads == fresh
        assert (emit.to_source(remove_dead_code(tree, resolve, Counter(copies.reads)))
                == emit.to_source(remove_dead_code(reference, resolve)))


# programs whose copies need a second round: a dropped copy (z = t) read t, whose copy was kept
# for that read alone; a dropped copy (a = b, overwritten) had ended a copy kept (q = a), which
# reaches further once it is gone; the copy m = t in the loop was kept for the read of m before
# the loop, which the copy m = 1.0 of the outer block replaced after (a name assigned twice, as
# the loop carries of generated code are)
SECOND_ROUND = {'''
def f(x, n):
    m = 1.0
    c = m
    while c < n:
        t = c * x
        m = t
    return c
''': '''
def f(x, n):
    while 1.0 < n:
        t = 1.0 * x
    return 1.0
''', '''
def f(x, n):
    t = x
    for i in range(n):
        z = t
    return t * 2
''': '''
def f(x, n):
    for i in range(n):
        pass
    return x * 2
''', '''
def f(x, b):
    a = x * 1.5
    q = a
    a = b
    y = q + a
    a = 2.0
    return y + q + a
''': '''
def f(x, b):
    a = x * 1.5
    q = a
    y = a + b
    a = 2.0
    return y + q + 2.0
'''}


def _every_round(monkeypatch):
    """propagate_copies running each round until one changes nothing (none skipped)."""
    settled = propagate_copies_module._Round.settled
    monkeypatch.setattr(propagate_copies_module._Round, "settled",
                        lambda walk: settled(walk) and False)


def test_a_round_is_skipped_only_when_it_would_change_nothing(monkeypatch):
    programs = SOURCES + list(SECOND_ROUND)
    # confirm: every round skipped is run all the same, and must change nothing
    skipping = [emit.to_source(propagate_copies(tree_of(s), confirm=True)) for s in programs]
    _every_round(monkeypatch)
    assert skipping == [emit.to_source(propagate_copies(tree_of(s))) for s in programs]
    for source, expected in SECOND_ROUND.items():
        assert emit.to_source(propagate_copies(tree_of(source))) == emit.to_source(
            tree_of(expected))


def test_confirm_catches_a_round_skipped_that_would_change_the_tree(monkeypatch):
    settled = propagate_copies_module._Round.settled
    monkeypatch.setattr(propagate_copies_module._Round, "settled",
                        lambda walk: settled(walk) or True)
    for source in SECOND_ROUND:
        with pytest.raises(AssertionError, match="a round it would have skipped"):
            propagate_copies(tree_of(source), confirm=True)


# remove_dead_code: chains of dead statements, each link read only by the next (a pass working
# in rounds needs a round per link, or per step in and out of a block)
DEAD_CHAINS = {'''
def f(x, n):
    for i in range(n):
        a = x * 2.0
        b = a + 1.0
        c = b + 1.0
        d = c + 1.0
        e = d + 1.0
    return x
''': '''
def f(x, n):
    for i in range(n):
        pass
    return x
''', '''
def f(x, n):
    a = x * 2.0
    for i in range(n):
        b = a + 1.0
    c = b * 3.0
    if x > 0:
        d = c + 1.0
        e = d
    else:
        e = c
    for i in range(n):
        g = e * 2.0
        h = g + 1.0
    return x
''': '''
def f(x, n):
    for i in range(n):
        pass
    if x > 0:
        pass
    for i in range(n):
        pass
    return x
'''}


def test_remove_dead_code_leaves_nothing_its_rules_would_remove():
    # confirm: the rules applied one by one find nothing more, and the read counts are right
    for source, expected in DEAD_CHAINS.items():
        reads = Counter(n.id for n in syntax.names(tree_of(source))
                        if isinstance(n.ctx, gast.Load))
        result = remove_dead_code(tree_of(source), resolve, reads, confirm=True)
        assert emit.to_source(result) == emit.to_source(tree_of(expected))
        assert +reads == Counter(n.id for n in syntax.names(result)  # kept up to date
                                 if isinstance(n.ctx, gast.Load))


def test_confirm_catches_dead_code_left_and_wrong_read_counts(monkeypatch):
    with pytest.raises(AssertionError, match="read counts"):
        remove_dead_code(tree_of(SOURCES[0]), resolve, Counter({"x": 5}), confirm=True)
    monkeypatch.setattr(remove_dead_code_module._Removal, "_remove_dead",
                        lambda removal, waiting: None)
    with pytest.raises(AssertionError, match="an assignment left is read nowhere"):
        remove_dead_code(tree_of(next(iter(DEAD_CHAINS))), resolve, confirm=True)
    with pytest.raises(AssertionError, match="a top-level statement left is dead"):
        remove_dead_code(tree_of("def f(x):\n    a = x * 2.0\n    return x\n"), resolve,
                         confirm=True)


def _counted(tree):
    """How often each name is read, and assigned or deleted, in ``tree``."""
    reads, stores = Counter(), Counter()
    for node in syntax.names(tree):
        if isinstance(node.ctx, gast.Load):
            reads[node.id] += 1
        elif isinstance(node.ctx, (gast.Store, gast.Del)):
            stores[node.id] += 1
    return reads, stores


ACCUMULATING = '''
def f(x, n):
    g_bar = x * 2.0
    for i in range(n):
        g_bar = g_bar + x * 3.0
    t = g_bar * 2.0
    return t + x
'''


def test_the_counts_the_passes_keep_are_the_trees():
    # the survey counts reads and assignments; propagate_copies, remove_dead_code,
    # accumulate_in_place and fuse_single_use keep both up to date (fuse_single_use counts
    # nothing again)
    for source in SOURCES + [ACCUMULATING]:
        tree, copies = incremental(tree_of(source))
        copies.resolve = resolve  # (what the statements call: for whether it is pure)
        tree = remove_dead_code(tree, resolve, copies.reads, copies, confirm=True)
        tree = accumulate_in_place(tree, lambda name: name.endswith("_bar"), resolve, copies)
        tree = fuse_single_use(tree, resolve, (), copies, confirm=True)
        reads, stores = _counted(tree)
        assert +copies.reads == reads and +copies.stores == stores
    assert "g_bar += x * 3.0" in emit.to_source(tree) and "t =" not in emit.to_source(tree)
    copies.stores["x"] += 1
    with pytest.raises(AssertionError, match="the counts kept are not the tree's"):
        fuse_single_use(tree, resolve, (), copies, confirm=True)
