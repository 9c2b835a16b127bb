"""A small AST mutator: every mutant of a Python file, and the source of one of them.

A mutant is one small change a programmer could plausibly have made by mistake.
The operators:

``compare``       ``==``/``!=``, ``<``/``>=``, ``>``/``<=``, ``is``/``is not``, ``in``/``not in``
                  swapped for their negation, and ``<``/``<=``, ``>``/``>=`` for each other
``boolop``        ``and`` <-> ``or``
``not``           ``not x`` -> ``x``
``condition``     the test of an ``if``, ``while`` or conditional expression negated
``drop-branch``   an ``if``'s body replaced by ``pass``, or its ``else`` removed
``constant``      an int ``n`` -> ``n + 1``, ``True`` <-> ``False``
``return``        ``return x`` -> ``return None``; for a truth value also ``True``/``False``
``statement``     an expression statement, assignment, ``raise``, ``break``/``continue``
                  or ``del`` replaced by ``pass``
``arith``         ``+`` <-> ``-``, ``*`` -> ``/``, ``/`` -> ``*``, ``//`` -> ``*``,
                  unary ``-x`` -> ``x``
``loop-jump``     ``break`` <-> ``continue``
``any-all``       ``any(...)`` <-> ``all(...)``

Not mutated, because a change there is not observable or not a plausible slip:
docstrings, annotations (``from __future__ import annotations`` keeps them as
text), ``assert`` statements (internal checks, removable by ``python -O``), and
module-level statements (imports, definitions, tables of constants).

Mutants are enumerated in source order, deterministically: the same file always
gives the same list, and ``Mutant.key`` names one mutant independently of line
numbers (its file, enclosing function, operator, code before and after, and its
rank among identical ones), so a list of known equivalent mutants survives edits
elsewhere in the file.
"""

from __future__ import annotations

import ast
import copy
import hashlib
from dataclasses import dataclass

_NEGATED_COMPARISON = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
                       ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
                       ast.In: ast.NotIn, ast.NotIn: ast.In}
_BOUNDARY_COMPARISON = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
_ARITHMETIC = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
               ast.FloorDiv: ast.Mult}
_REMOVABLE_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise,
                         ast.Break, ast.Continue, ast.Delete)
_SKIPPED_FIELDS = {"annotation", "returns", "type_comment"}
_SNIPPET = 72


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository root, with "/" separators
    index: int  # rank in the file's enumeration (changes when the file changes)
    line: int
    col: int
    operator: str
    function: str  # qualified name of the enclosing function ("<module>" outside any)
    before: str
    after: str
    occurrence: int  # rank among mutants of this file with the same function/operator/code
    span: tuple | None  # (first, last) line of the statement (or compound statement's header)
    # it is in; None when that code runs at import time (a default value, a decorator)

    @property
    def key(self) -> str:
        digest = hashlib.sha1(("%s\0%s\0%d" % (self.before, self.after, self.occurrence))
                              .encode()).hexdigest()[:10]
        return "%s:%s:%s:%s" % (self.path, self.function, self.operator, digest)

    def describe(self) -> str:
        return "%s:%d:%d [%s] in %s: %s  ->  %s" % (self.path, self.line, self.col + 1,
                                                     self.operator, self.function,
                                                     _short(self.before), _short(self.after))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SNIPPET else text[:_SNIPPET - 3] + "..."


@dataclass
class _Site:
    """One mutation: which slot changes (a field of ``parent``, or one item of a list field)
    and what goes there instead."""

    parent: ast.AST
    field: str
    position: int | None  # index in a list field, None for a single-node field
    operator: str
    replacement: object  # an AST node, or a list of statements for a whole block
    function: str
    anchor: ast.AST  # the node a reader looks at: its line and column locate the mutant
    span: tuple | None  # lines whose execution means the mutated code runs (_header_span)

    def get(self):
        value = getattr(self.parent, self.field)
        return value if self.position is None else value[self.position]

    def set(self, value):
        if self.position is None:
            setattr(self.parent, self.field, value)
        else:
            getattr(self.parent, self.field)[self.position] = value


def _is_docstring(body, position) -> bool:
    statement = body[position]
    return (position == 0 and isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value,
                                                                        str))


def _not(node):
    return ast.UnaryOp(op=ast.Not(), operand=node)


def _truth_valued(node) -> bool:
    return (isinstance(node, (ast.Compare, ast.BoolOp))
            or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))
            or (isinstance(node, ast.Constant) and isinstance(node.value, bool)))


def _with(node, **fields):
    """A shallow copy of ``node`` with some fields replaced (children are shared)."""
    new = copy.copy(node)
    for name, value in fields.items():
        setattr(new, name, value)
    return new


class _Enumerator:
    """Walks a module in source order and lists every mutation site."""

    def __init__(self):
        self.sites: list[_Site] = []
        self.scope: list[str] = []
        self.returns_bool: list[bool] = []
        self.statements: list[ast.stmt] = []

    def add(self, parent, field, position, operator, replacement, anchor):
        self.sites.append(_Site(parent, field, position, operator, replacement,
                                ".".join(self.scope) or "<module>", anchor,
                                _header_span(self.statements[-1])))

    def visit_module(self, module: ast.Module):
        for statement in module.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.visit_definition(statement)

    def visit_definition(self, node):
        self.statements.append(node)
        self.scope.append(node.name)
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    self.visit_definition(statement)
        else:
            returns = node.returns
            self.returns_bool.append(isinstance(returns, ast.Name) and returns.id == "bool"
                                     or isinstance(returns, ast.Constant)
                                     and returns.value == "bool")
            self.visit_fields(node.args, skip=("args", "posonlyargs", "kwonlyargs", "vararg",
                                               "kwarg"))
            self.visit_field(node, "decorator_list")
            self.visit_body(node, "body")
            self.returns_bool.pop()
        self.scope.pop()
        self.statements.pop()

    def visit_body(self, parent, field):
        body = getattr(parent, field)
        for position, statement in enumerate(body):
            if field == "body" and _is_docstring(body, position) and isinstance(
                    parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            self.visit_statement(parent, field, position, statement)

    def visit_statement(self, parent, field, position, statement):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.visit_definition(statement)
            return
        if isinstance(statement, ast.Assert):
            return
        self.statements.append(statement)
        self.visit_statement_sites(parent, field, position, statement)
        self.statements.pop()

    def visit_statement_sites(self, parent, field, position, statement):
        if isinstance(statement, _REMOVABLE_STATEMENTS):
            self.add(parent, field, position, "statement", ast.Pass(), statement)
        if isinstance(statement, (ast.Break, ast.Continue)):
            swapped = ast.Continue() if isinstance(statement, ast.Break) else ast.Break()
            self.add(parent, field, position, "loop-jump", swapped, statement)
        if isinstance(statement, ast.Return) and statement.value is not None:
            value = statement.value
            if not (isinstance(value, ast.Constant) and value.value is None):
                self.add(statement, "value", None, "return", ast.Constant(value=None), statement)
            if _truth_valued(value) or self.returns_bool[-1]:
                for truth in (True, False):
                    if not (isinstance(value, ast.Constant) and value.value is truth):
                        self.add(statement, "value", None, "return", ast.Constant(value=truth),
                                 statement)
        if isinstance(statement, (ast.If, ast.While)):
            self.add(statement, "test", None, "condition", _not(statement.test), statement)
        if isinstance(statement, ast.If):
            if not (len(statement.body) == 1 and isinstance(statement.body[0], ast.Pass)):
                self.add(statement, "body", None, "drop-branch", [ast.Pass()], statement)
            if statement.orelse:
                self.add(statement, "orelse", None, "drop-branch", [], statement)
        self.visit_fields(statement, skip=("body", "orelse", "finalbody", "handlers", "cases"))
        for name in ("body", "orelse", "finalbody"):
            if isinstance(getattr(statement, name, None), list):
                self.visit_body(statement, name)
        for handler in getattr(statement, "handlers", []):
            self.visit_field(handler, "type")
            self.visit_body(handler, "body")
        for case in getattr(statement, "cases", []):
            self.visit_body(case, "body")

    def visit_fields(self, node, skip=()):
        for name, _ in ast.iter_fields(node):
            if name not in skip and name not in _SKIPPED_FIELDS:
                self.visit_field(node, name)

    def visit_field(self, parent, name):
        value = getattr(parent, name, None)
        if isinstance(value, list):
            for position, item in enumerate(value):
                self.visit_node(parent, name, position, item)
        else:
            self.visit_node(parent, name, None, value)

    def visit_node(self, parent, name, position, node):
        if isinstance(node, ast.expr):
            self.visit_expression(parent, name, position, node)
        if isinstance(node, ast.AST):  # expressions, comprehensions, keywords, arguments...
            skip = ("args",) if isinstance(node, ast.Lambda) else ()
            self.visit_fields(node, skip=skip)

    def visit_expression(self, parent, name, position, node):
        """The sites of one expression node (its children are visited by the caller)."""

        def replace(operator, replacement):
            self.add(parent, name, position, operator, replacement, node)

        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                for table in (_NEGATED_COMPARISON, _BOUNDARY_COMPARISON):
                    new = table.get(type(op))
                    if new is not None:
                        ops = list(node.ops)
                        ops[i] = new()
                        replace("compare", _with(node, ops=ops))
        elif isinstance(node, ast.BoolOp):
            replace("boolop", _with(node, op=ast.Or() if isinstance(node.op, ast.And)
                                    else ast.And()))
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                replace("not", node.operand)
            elif isinstance(node.op, ast.USub):
                replace("arith", node.operand)
        elif isinstance(node, ast.BinOp):
            new = _ARITHMETIC.get(type(node.op))
            if new is not None:
                replace("arith", _with(node, op=new()))
        elif isinstance(node, ast.IfExp):
            replace("condition", _with(node, test=_not(node.test)))
        elif isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool):
                replace("constant", ast.Constant(value=not value))
            elif isinstance(value, int):
                replace("constant", ast.Constant(value=value + 1))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "any", "all"):
            swapped = ast.Name(id="all" if node.func.id == "any" else "any", ctx=ast.Load())
            replace("any-all", _with(node, func=swapped))


def _header_span(statement) -> tuple | None:
    """The lines of a simple statement, or of a compound statement's header (up to its body):
    if any of them runs, the code a mutant there changes runs (or is skipped, for
    ``drop-branch``, which only matters when the ``if`` runs)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None  # defaults and decorators: evaluated at import, before any tracing
    body = getattr(statement, "body", None)
    if isinstance(body, list) and body:
        return statement.lineno, max(statement.lineno, body[0].lineno - 1)
    return statement.lineno, statement.end_lineno or statement.lineno


def _sites(tree: ast.Module) -> list[_Site]:
    enumerator = _Enumerator()
    enumerator.visit_module(tree)
    return enumerator.sites


def _text(value) -> str:
    if isinstance(value, list):
        return "\n".join(ast.unparse(n) for n in value)
    return ast.unparse(value)


def _display(site: _Site, value) -> str:
    """The code a mutant changes, as text, with ``value`` in the mutated slot."""
    if site.operator == "drop-branch":
        if site.field == "orelse":
            return "else: " + _first_line(value) if value else "(no else)"
        return "then: " + _first_line(value)
    if site.operator == "return":
        return "return " + ast.unparse(value)
    return _text(value)


def _first_line(block) -> str:
    text = _text(block)
    first = text.split("\n")[0]
    return first + (" ..." if first != text else "")


def mutants(path: str, source: str) -> list[Mutant]:
    """Every mutant of ``source`` (the text of the file ``path``), in a fixed order."""
    found = []
    seen: dict = {}
    for index, site in enumerate(_sites(ast.parse(source))):
        before = _display(site, site.get())
        after = _display(site, site.replacement)
        signature = (site.function, site.operator, before, after)
        occurrence = seen.get(signature, 0)
        seen[signature] = occurrence + 1
        found.append(Mutant(path, index, site.anchor.lineno, site.anchor.col_offset,
                            site.operator, site.function, before, after, occurrence,
                            site.span))
    return found


def mutated_source(source: str, index: int) -> str:
    """The text of ``source`` with mutant number ``index`` applied (through ``ast.unparse``)."""
    tree = ast.parse(source)
    site = _sites(tree)[index]
    site.set(site.replacement)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"


def unparsed_source(source: str) -> str:
    """The text every mutant is derived from: ``source`` through ``ast.unparse`` unchanged."""
    return ast.unparse(ast.parse(source)) + "\n"
