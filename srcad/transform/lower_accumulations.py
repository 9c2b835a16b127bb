"""Lower the accumulation form to plain Python.

The reverse transformer writes ``x_bar += e`` ("add e to x's adjoint, which
starts at zero") and ``del x_bar`` ("x's adjoint is zero again"). This pass
tracks, statement by statement, which adjoints hold a value, and writes:

    x_bar += e   ->  x_bar = e             if x_bar is zero here
                 ->  x_bar = x_bar + e     otherwise
    x_bar -= e   ->  x_bar = -e  /  x_bar = x_bar - e
    del x_bar    ->  (nothing)

Adjoint templates are linear in the adjoints they read, so a statement that
reads an adjoint that is zero here contributes nothing and is dropped (a
template temporary computed from it is zero too). A zero adjoint read by the
final ``return`` becomes ``rt.zeros_like(x)``.

Loops: an adjoint that gains a value inside a loop body starts from an
explicit zero before the loop (``r_bar = 0.0``), so every iteration sees the
same adjoints holding values.

After this pass no ``+=``/``-=`` on adjoints and no ``del`` remain.
"""

from __future__ import annotations

import gast

from .. import runtime, syntax
from ..naming import Namer
from .templates import new_node


def lower_accumulations(tree: gast.FunctionDef, namer: Namer, aliases,
                        reads: dict | None = None, primal=()) -> gast.FunctionDef:
    """``reads`` (optional): statement -> the names its value reads, for statements whose
    maker knew them (transform/reverse.py fills it); the others' are looked up in the tree.
    ``primal``: statements of the body that read and write no adjoint (reverse's primal
    sweep): the lowering below would change nothing in them but what ``_tidied`` does, so
    that is all they go through."""
    lowering = _Lowering(namer, aliases, reads=reads)
    lowering.primal = set(primal)
    tree.body = lowering.block(tree.body)
    return tree


class _Lowering:
    def __init__(self, namer: Namer, aliases, dry: bool = False, reads: dict | None = None):
        self.namer = namer
        self.aliases = aliases
        self.dry = dry  # only track which adjoints hold values; change no statement
        self.holding: set[str] = set()  # adjoint variables holding a (nonzero) value
        self.zero: set[str] = set()  # derived temporaries known to be zero
        self.reads = reads if reads is not None else {}
        self.primal: set = set()  # see lower_accumulations

    def is_adjoint(self, name: str) -> bool:
        return self.namer.primal_of(name) is not None

    def reads_zero(self, statement) -> bool:
        """``statement``'s value reads a zero: an adjoint holding no value, or a temporary
        made from one."""
        zero, holding, primal_of = self.zero, self.holding, self.namer.primal_of
        read = self.reads.get(statement)
        if read is None:
            read = self.reads[statement] = syntax.load_names(statement.value)
        for identifier in read:
            if identifier in zero:
                return True
            if identifier not in holding and primal_of(identifier) is not None:
                return True
        return False

    def block(self, statements):
        out = []
        append = out.append
        primal = self.primal
        for s in statements:
            if primal and s in primal:
                if type(s) is gast.Assign:
                    append(s)  # (what _tidied leaves of an assignment)
                else:
                    out.extend(_tidied([s]))
                continue
            kind = type(s)
            if kind is gast.Delete:
                for target in s.targets:
                    self.holding.discard(target.id)
                    self.zero.discard(target.id)
            elif kind is gast.AugAssign and self.is_adjoint(s.target.id):
                if not self.reads_zero(s):
                    append(self.accumulation(s))
            elif kind is gast.Assign:
                # only adjoint-sweep statements read adjoints, so this is never primal code
                if self.reads_zero(s):
                    self.zero.update(_target_names(s))
                    continue
                for target in _target_names(s):
                    self.zero.discard(target)
                    if self.is_adjoint(target):
                        self.holding.add(target)
                append(s)
            elif kind is gast.Return:
                if not self.dry:
                    s.value = _ReplaceZeroReads(self).visit(s.value)
                append(s)
            elif kind is gast.For or kind is gast.While:
                out.extend(self.loop(s))
            elif kind is gast.If:
                out.extend(self.branch(s))
            else:
                append(s)
        return out

    def accumulation(self, s):
        """``x_bar += e`` as an assignment (``x_bar`` is the name of an adjoint)."""
        name = s.target.id
        held = name in self.holding
        self.holding.add(name)
        if self.dry:
            return s
        if held:
            value = new_node(gast.BinOp, {"left": syntax.name(name), "op": s.op,
                                          "right": s.value})
        elif isinstance(s.op, gast.Sub):
            value = new_node(gast.UnaryOp, {"op": new_node(gast.USub, {}), "operand": s.value})
        else:
            value = s.value
        # (the accumulation's target, a Name made for it alone, becomes the assignment's)
        assign = {"targets": [s.target], "value": value, "type_comment": None}
        for attribute in _LOCATION:  # (syntax.copy_location's: an AugAssign's are an Assign's)
            value = getattr(s, attribute, _ABSENT)
            if value is not _ABSENT:
                assign[attribute] = value
        return new_node(gast.Assign, assign)

    def branch(self, branch):
        """After an ``if``, the same adjoints hold values whichever branch ran."""
        entry_holding, entry_zero = set(self.holding), set(self.zero)
        results = []
        for part in (branch.body, branch.orelse):
            self.holding, self.zero = set(entry_holding), set(entry_zero)
            results.append((self.block(part), self.holding, self.zero))
        holding = results[0][1] | results[1][1]
        parts = []
        for code, part_holding, _ in results:
            code = [c for c in code if not isinstance(c, gast.Pass)]
            code.extend(syntax.assign(n, self.zeros_for(n)) for n in sorted(holding - part_holding))
            parts.append(code)
        self.holding = holding
        self.zero = results[0][2] & results[1][2]
        if not self.dry:
            branch.body, branch.orelse = parts[0] or [gast.Pass()], parts[1]
        return [branch]

    def loop(self, loop):
        """A loop body must start every iteration with the same adjoints holding values.

        Adjoints that gain a value inside the body (accumulators, carried
        adjoints) start from an explicit zero before the loop; adjoints the
        body consumes without refilling are set to zero at its end.
        """
        entry = set(self.holding)
        for _ in range(10):
            trial = _Lowering(self.namer, self.aliases, dry=True, reads=self.reads)
            trial.holding, trial.zero = set(entry), set(self.zero)
            trial.block(loop.body)
            gained = {n for n in trial.holding - entry if self.is_adjoint(n)}
            if not gained:
                break
            entry |= gained
        before = [syntax.assign(n, self.zeros_for(n)) for n in sorted(entry - self.holding)]
        self.holding = set(entry)
        body = self.block(loop.body)
        lost = sorted(entry - self.holding)
        body.extend(syntax.assign(n, self.zeros_for(n)) for n in lost)
        self.holding = set(entry)
        if not self.dry:
            loop.body = body or [gast.Pass()]
        return before + [loop]

    def zeros_for(self, adjoint_name):
        rt = self.aliases.name_for(runtime)
        return syntax.call(syntax.attribute(rt, "zeros_like"),
                           syntax.name(self.namer.primal_of(adjoint_name)))


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_ABSENT = object()


def _tidied(statements) -> list:
    """``statements``, which read and write no adjoint, as the lowering leaves them: with
    no ``del``, and with the parts of every branch without ``pass`` beside other
    statements (an empty body gets one, as does an empty loop body)."""
    out = []
    for s in statements:
        kind = type(s)
        if kind is gast.Delete:
            continue
        if kind is gast.If:
            body = [c for c in _tidied(s.body) if not isinstance(c, gast.Pass)]
            s.orelse = [c for c in _tidied(s.orelse) if not isinstance(c, gast.Pass)]
            s.body = body or [gast.Pass()]
        elif kind is gast.For or kind is gast.While:
            s.body = _tidied(s.body) or [gast.Pass()]
        out.append(s)
    return out


def _target_names(assign) -> list:
    targets = assign.targets
    if len(targets) == 1 and type(targets[0]) is gast.Name:
        return [targets[0].id]
    return [n.id for t in targets for n in syntax.names(t)]


class _ReplaceZeroReads(gast.NodeTransformer):
    def __init__(self, lowering: _Lowering):
        self.lowering = lowering

    def visit_Name(self, node):
        if (isinstance(node.ctx, gast.Load) and self.lowering.is_adjoint(node.id)
                and node.id not in self.lowering.holding):
            return self.lowering.zeros_for(node.id)
        return node
