"""Give every value its own name, except where a loop carries it to the next iteration.

After this pass:

* outside loops every name is assigned once (a redefinition gets a fresh
  name: ``x = x * 2.0`` becomes ``x_2 = x * 2.0``), so the reverse sweep can
  read any intermediate value without a tape;
* after an ``if``, a name whose value depends on the branch taken is a fresh
  name assigned at the end of each branch (``y_3 = y_2`` / ``y_3 = y``);
* inside a loop body each name is assigned once per iteration; a variable
  whose value flows into the next iteration is copied back at the end of the
  body (a *carry*, see annotations.is_carry)::

      for i in range(n):               for i in range(n):
          mul = r * x                      mul = r * x
          x = mul * (1.0 - x)   ->         x_2 = mul * (1.0 - x)
          s = s + x * x                    s_2 = s + x_2 * x_2
                                           x = x_2
                                           s = s_2

  so inside the body ``x`` is the value at the start of the iteration and
  ``x_2`` the value at its end. A loop nested in another loop carries its
  variables in fresh names (``x_3 = x`` before it), so no name is carried by
  two loops;
* a copy never reads a name Python may not have bound: a version that a merge or a
  carry reads but that only some paths assign (``if x > 0: y = ...`` in a loop,
  with ``y`` read only on those paths) starts as a placeholder ``y = None``
  (annotations.is_placeholder) at the top of the function.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..annotations import mark_carry, mark_placeholder, set_origin
from ..naming import Namer


def rename_versions(tree: gast.FunctionDef, namer: Namer) -> gast.FunctionDef:
    params = {a.id for a in tree.args.args}
    versions = _Versions(namer, _Assigned(), params)
    body = versions.block(tree.body, {p: p for p in params}, set(params), set(params), False)
    placeholders = [mark_placeholder(gast.copy_location(syntax.assign(name, syntax.constant(
        None)), tree)) for name in sorted(versions.placeholders - params)]
    tree.body = placeholders + body
    return tree


class _Assigned:
    """The names each statement assigns (``syntax.stored_names``), found once per statement:
    a statement nested in loops and branches is asked about by each of them. Every question
    comes before the statement is renamed (a loop or a branch asks about its body when the
    pass reaches it, and renames the body after), so the answers stay those of the tree."""

    def __init__(self):
        self.known: dict = {}  # statement -> the names it assigns

    def of(self, statement) -> set:
        found = self.known.get(statement)
        if found is None:
            kind = type(statement)
            if kind is gast.If or kind is gast.For or kind is gast.While:
                found = syntax.stored_names(statement.test if kind is not gast.For else
                                            gast.Tuple(elts=[statement.target, statement.iter],
                                                       ctx=gast.Load()))
                for part in (statement.body, statement.orelse):
                    for inner in part:
                        found |= self.of(inner)
            else:
                found = syntax.stored_names(statement)
            self.known[statement] = found
        return found

    def within(self, statements) -> set:
        """The names ``statements`` assign (a new set)."""
        found = set()
        for statement in statements:
            found |= self.of(statement)
        return found

    def loop_targets(self, statements) -> set:
        """Names bound only as the target of a ``for`` inside ``statements``.

        Each such loop assigns them before reading them, and they are never renamed (the
        header binds them as they are), so they are not carried by an enclosing loop.
        """
        targets, others = set(), set()
        for node in syntax.statements(gast.Module(body=list(statements), type_ignores=[])):
            if isinstance(node, gast.For):
                targets |= syntax.stored_names(node.target)
            elif isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
                others |= self.of(node)
        return targets - others

    def read_before(self, statements, seen=None) -> set:
        """Names read before the block has surely assigned them (in execution order)."""
        seen = set() if seen is None else seen
        early = set()
        for statement in statements:
            if isinstance(statement, gast.Assign):
                early |= syntax.load_names(statement.value) - seen
                seen |= self.of(statement)
            elif isinstance(statement, gast.If):
                early |= syntax.load_names(statement.test) - seen
                branch_seen = []
                for part in (statement.body, statement.orelse):
                    part_seen = set(seen)
                    early |= self.read_before(part, part_seen)
                    branch_seen.append(part_seen)
                seen |= branch_seen[0] & branch_seen[1]
            elif isinstance(statement, (gast.For, gast.While)):
                header = statement.iter if isinstance(statement, gast.For) else statement.test
                early |= syntax.load_names(header) - seen
                inner_seen = set(seen) | syntax.stored_names(statement.target) \
                    if isinstance(statement, gast.For) else set(seen)
                early |= self.read_before(statement.body, inner_seen)
            else:
                early |= syntax.load_names(statement) - seen
                seen |= self.of(statement)
        return early


_FIELDS: dict = {}  # node type -> syntax.child_fields of it
_NAME = gast.Name


class _Versions:
    """Renames one function. ``bound`` (threaded like ``current``) holds the versions
    surely assigned at the current point; a copy that reads any other version (a merge
    after a branch, a carry) reads a name Python may never have bound, so that version
    is bound to a placeholder ``None`` at the start of the function."""

    def __init__(self, namer: Namer, assigned: _Assigned, params):
        self.namer = namer
        self.assigned = assigned
        self.placeholders: set = set()
        # every name ever made a value of a ``current`` mapping (a version): each place that
        # makes a new one adds it
        self.versions: set = set(params)

    def copy(self, target: str, version: str, bound: set, like) -> gast.Assign:
        if version not in bound:
            self.placeholders.add(version)
        return set_origin(gast.copy_location(syntax.assign(target, syntax.name(version)), like),
                          like)

    def reads(self, node, current: dict, bound: set):
        """Rename what ``node`` reads; a version it reads that only some paths bind (valid
        Python where the other paths never get here) gets a placeholder, because the
        derivative code may still read it on those paths (a zero adjoint's shape).

        A name renamed is a new Name put in its place (the normalized tree may share a
        name read with the parsed function's tree, which stays as it is): returns ``node``,
        or the name that replaces it when it is itself a name read."""
        unbound = set()
        Name, Load, AST = gast.Name, gast.Load, gast.AST
        fields_of = _FIELDS
        if type(node) is Name:  # (the value of an assignment, a test: read as it is)
            if type(node.ctx) is Load:
                version = current.get(node.id, node.id)
                if version != node.id:
                    node = self._renamed(node, version)
                if version not in bound:
                    unbound.add(version)
            stack = []
        else:
            stack = [node]
        pop, push = stack.pop, stack.append
        while stack:  # (syntax.names, without a generator: one pass renames and checks)
            found = pop()
            fields = fields_of.get(type(found))
            if fields is None:
                if not isinstance(found, AST):  # None in Dict.keys
                    continue
                fields = fields_of[type(found)] = syntax.child_fields(type(found))
            for field in fields:
                value = getattr(found, field, None)
                if type(value) is Name:
                    if type(value.ctx) is Load:
                        version = current.get(value.id, value.id)
                        if version != value.id:
                            value = self._renamed(value, version)
                            setattr(found, field, value)
                        if version not in bound:
                            unbound.add(version)
                elif type(value) is list:
                    for index, item in enumerate(value):
                        if type(item) is Name:
                            if type(item.ctx) is Load:
                                version = current.get(item.id, item.id)
                                if version != item.id:
                                    value[index] = self._renamed(item, version)
                                if version not in bound:
                                    unbound.add(version)
                        elif isinstance(item, AST):
                            push(item)
                elif isinstance(value, AST):
                    push(value)
        # of the names read that are not surely bound, the versions (a global such as np
        # is none): only a name that ever was a value of a ``current`` may be one now
        unbound &= self.versions
        if unbound:  # (rare: building the set of versions costs as many names as there are)
            self.placeholders |= unbound & set(current.values())
        return node

    @staticmethod
    def _renamed(name, version: str):
        """A new Name of ``version``, read where ``name`` was."""
        renamed = _NAME.__new__(_NAME)
        renamed.__dict__ = name.__dict__.copy()
        renamed.id = version
        context = type(name.ctx)
        renamed.ctx = context.__new__(context)
        return renamed

    def block(self, statements, current: dict, defined: set, bound: set,
              in_loop: bool) -> list:
        out = []
        for s in statements:
            if isinstance(s, gast.Assign):
                s.value = self.reads(s.value, current, bound)
                for target in s.targets:
                    for n in (target,) if type(target) is gast.Name else syntax.walk(target):
                        if isinstance(n, gast.Name):
                            original = n.id
                            if original in defined:
                                n.id = self.namer.fresh(original)
                            current[original] = n.id
                            self.versions.add(n.id)
                            defined.add(original)
                            bound.add(n.id)
                out.append(s)
            elif isinstance(s, gast.If):
                out.extend(self.branch(s, current, defined, bound, in_loop))
            elif isinstance(s, (gast.For, gast.While)):
                out.extend(self.loop(s, current, defined, bound, in_loop))
            else:
                self.reads(s, current, bound)
                out.append(s)
        return out

    def branch(self, s, current, defined, bound, in_loop):
        s.test = self.reads(s.test, current, bound)
        # only a name the branches assign can have another version after them (a block
        # changes the entries of ``current`` of the names it assigns, and no other)
        rebound = self.assigned.within(s.body) | self.assigned.within(s.orelse)
        results = []
        for part in (s.body, s.orelse):
            part_current, part_defined, part_bound = dict(current), set(defined), set(bound)
            results.append((self.block(part, part_current, part_defined, part_bound, in_loop),
                            part_current, part_defined, part_bound))
        (body, body_current, body_defined, body_bound), \
            (orelse, else_current, else_defined, else_bound) = results
        merged_names = set()
        for original in sorted(rebound):
            if original not in body_current and original not in else_current:
                continue
            in_body, in_else = body_current.get(original), else_current.get(original)
            if in_body == in_else:
                current[original] = in_body
            elif in_body is None or in_else is None:
                current[original] = in_body or in_else  # only defined when that branch ran
            else:
                merged = self.namer.fresh(original)
                body.append(self.copy(merged, in_body, body_bound, s))
                orelse.append(self.copy(merged, in_else, else_bound, s))
                current[original] = merged
                self.versions.add(merged)
                merged_names.add(merged)
        s.body = [b for b in body if not isinstance(b, gast.Pass)] or [gast.Pass()]
        s.orelse = [b for b in orelse if not isinstance(b, gast.Pass)]
        defined |= body_defined | else_defined
        bound |= (body_bound & else_bound) | merged_names
        return [s]

    def loop(self, s, current, defined, bound, in_loop):
        before = []
        if isinstance(s, gast.For):
            s.iter = self.reads(s.iter, current, bound)
        else:
            s.test = self.reads(s.test, current, bound)
        assigned = self.assigned.within(s.body)
        inner_targets = self.assigned.loop_targets(s.body)
        carried = sorted((assigned - inner_targets)
                         & (defined | self.assigned.read_before(s.body)))
        loop_names = {}
        for original in carried:
            if original not in defined:  # (read before assigned: on later iterations)
                before.append(set_origin(gast.copy_location(
                    syntax.assign(original, syntax.constant(None)), s), s))
                loop_names[original] = original
            elif in_loop:
                # a loop inside a loop carries its values in names of its own
                loop_names[original] = self.namer.fresh(original)
                before.append(self.copy(loop_names[original], current[original], bound, s))
            else:
                loop_names[original] = current[original]
        self.versions.update(loop_names.values())
        bound |= {n.targets[0].id for n in before}
        if isinstance(s, gast.While) and isinstance(s.test, gast.Name):
            s.test.id = loop_names.get(s.test.id, s.test.id)
        body_current = dict(current)
        body_current.update(loop_names)
        body_defined = set(defined) | set(carried)
        body_bound = set(bound)
        if isinstance(s, gast.For):
            for n in syntax.walk(s.target):
                if isinstance(n, gast.Name):
                    body_current.pop(n.id, None)
                    body_bound.add(n.id)
        body = self.block(s.body, body_current, body_defined, body_bound, True)
        body = [b for b in body if not isinstance(b, gast.Pass)]
        origin_node = s.body[-1] if s.body else s
        for original in carried:
            if body_current[original] != loop_names[original]:
                carry = self.copy(loop_names[original], body_current[original], body_bound,
                                  origin_node)
                body.append(mark_carry(carry))
        s.body = body or [gast.Pass()]
        for original in carried:
            current[original] = loop_names[original]
        for original in assigned - set(carried):
            if original in body_current:
                current[original] = body_current[original]
        loop_targets = inner_targets
        if isinstance(s, gast.For):
            loop_targets = loop_targets | syntax.stored_names(s.target)
        for original in loop_targets:  # after the loop the name holds its last value
            current[original] = original
            self.versions.add(original)
        defined |= assigned
        for node in before:
            gast.copy_location(node, s)
        return before + [s]
