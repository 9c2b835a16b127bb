"""Stage 7, emit: syntax tree to source text, and source text to a live function.

``to_source`` is the only place that turns trees into text (astor, falling
back to ``ast.unparse`` where astor cannot print a node); ``parse_source``
reads such text back (srcad.codegen changes generated code on its tree).
``compile_function`` writes the text to a file of its own
(cache/generated_files.py: under the temporary directory, one folder per
user) and registers it with ``linecache``, so tracebacks, pdb and inspect
all show the generated lines, and binds srcad's aliases and the user's
closure cells as the generated function's free variables; its globals are
the user function's own, so names the user's code reads stay live.
"""

from __future__ import annotations

import ast
import hashlib
import io
import linecache
import math
import re
import textwrap
import tokenize
import types
import warnings

import gast

# astor reads ast.Num and its siblings, deprecated since Python 3.12 (removed in 3.14, before
# which astor is to be replaced): its warnings tell srcad's users nothing they can act on
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import astor
    from astor.op_util import Precedence as _Precedence
    from astor.string_repr import pretty_string as _pretty_string

from .annotations import COMMENT_PREFIX, comment_text
from .cache import generated_files


def to_source(tree) -> str:
    """Python source for a gast tree (a function definition or a module).

    The text is astor's (``to_source_by_astor``), printed straight from the gast tree by
    the printer below; a tree holding a node the printer does not know (or that it
    cannot print exactly as astor would) goes the astor way.
    """
    if not isinstance(tree, gast.Module):
        tree = gast.Module(body=[tree], type_ignores=[])
    try:  # (the printer gives every block a statement as it goes)
        return _print_module(tree)
    except Exception:  # noqa: BLE001 - whatever the printer cannot do, astor's path decides
        return to_source_by_astor(tree)


def to_source_by_astor(tree) -> str:
    """``to_source``'s text the slow way: the tree converted to a Python ``ast`` and printed
    by astor (the reference the printer below reproduces; tests compare the two)."""
    if not isinstance(tree, gast.Module):
        tree = gast.Module(body=[tree], type_ignores=[])
    _give_every_block_a_statement(tree)
    python_tree = _spell_constants(gast.gast_to_ast(tree))
    try:  # (the printers read no line numbers: no ast.fix_missing_locations needed)
        # one statement per line, never wrapped: generated lines map to what pdb shows
        with warnings.catch_warnings():  # (see the import of astor)
            warnings.simplefilter("ignore", DeprecationWarning)
            text = astor.to_source(python_tree, pretty_source=lambda parts: "".join(parts))
    except Exception:  # astor lags behind new syntax; the standard library never does
        text = ast.unparse(python_tree) + "\n"
    return _restore_comments(text)


class _SpellConstants(ast.NodeTransformer):
    """Numbers the printers would get wrong, as the expressions that mean them.

    Passes fold ``-0.9`` into one constant, but astor and ``ast.unparse`` print a
    negative constant without parentheses, so ``(-0.9) ** n`` would read back as
    ``-(0.9 ** n)``: a negative number is printed as a negation, which both printers
    parenthesize by precedence. Infinities and NaN have no literal at all.
    """

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
            return node
        if isinstance(value, float) and not math.isfinite(value):
            spelled = ast.Call(func=ast.Name(id="float", ctx=ast.Load()),
                               args=[ast.Constant(value=repr(value))], keywords=[])
            return ast.copy_location(spelled, node)
        if isinstance(value, complex):
            if value.real == 0 and math.copysign(1.0, value.real) > 0 and value.imag >= 0:
                return node
            spelled = ast.Call(func=ast.Name(id="complex", ctx=ast.Load()),
                               args=[self.visit(ast.Constant(value=value.real)),
                                     self.visit(ast.Constant(value=value.imag))], keywords=[])
            return ast.copy_location(spelled, node)
        if value < 0 or (value == 0 and math.copysign(1.0, value) < 0):
            negated = ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
            return ast.copy_location(negated, node)
        return node


def _spell_constants(tree):
    """``tree`` with _SpellConstants applied to its number constants (found without a
    visitor: most nodes are not constants)."""
    spell = _SpellConstants()
    stack = [tree]
    Constant, AST = ast.Constant, ast.AST
    while stack:
        current = stack.pop()
        for field in current._fields:
            value = getattr(current, field, None)
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if type(item) is Constant:
                        value[index] = spell.visit_Constant(item)
                    elif isinstance(item, AST):
                        stack.append(item)
            elif type(value) is Constant:
                setattr(current, field, spell.visit_Constant(value))
            elif isinstance(value, AST):
                stack.append(value)
    return tree


def _give_every_block_a_statement(tree) -> None:
    """A block holding only comments would print as an empty (invalid) block."""
    # blocks (lists of statements) hang only from statements: expressions are not visited
    stack = [tree]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or not block:
                continue
            stack.extend(block)
            if field not in ("body", "orelse") or isinstance(node, gast.Module):
                continue
            if all(comment_text(s) is not None for s in block):
                setattr(node, field, block + [gast.Pass()] if field == "body" else [])


def _give_blocks_statements(node) -> None:
    """_give_every_block_a_statement for the blocks of one statement (the printer's way:
    statement by statement, as it prints them)."""
    body = node.body
    if body and type(body[0]) is gast.Expr and all(comment_text(s) is not None for s in body):
        node.body = body + [gast.Pass()]
    orelse = getattr(node, "orelse", None)
    if orelse and type(orelse[0]) is gast.Expr and all(comment_text(s) is not None
                                                       for s in orelse):
        node.orelse = []


def _restore_comments(text: str) -> str:
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped[:1] in ("'", '"') and COMMENT_PREFIX in stripped:
            try:
                value = ast.literal_eval(stripped)
            except (ValueError, SyntaxError):
                value = None
            if isinstance(value, str) and value.startswith(COMMENT_PREFIX):
                indent = line[: len(line) - len(line.lstrip())]
                lines.append(indent + "# " + value[len(COMMENT_PREFIX):])
                continue
        lines.append(line)
    return "\n".join(lines) + "\n"


# ---- the printer: astor's text straight from the gast tree
#
# astor prints a Python ``ast``; going there costs a conversion of the whole tree
# (gast.gast_to_ast), a pass spelling the constants, and astor's visitor. The printer
# below writes the same text from the gast tree itself, for the nodes srcad's trees
# hold, with astor's rules: its precedence table (a child is parenthesized when its
# operator binds less tightly than the precedence its parent gives it, and a parent
# that gives none gives the highest), its blank lines (two before and after a function
# at the top level, one before a nested one), its string spelling. A node it does not
# know raises _Unprintable, and to_source prints that tree the astor way.


class _Unprintable(Exception):
    """A node (or a spelling) the printer leaves to astor."""


_HIGHEST = _Precedence.highest  # what a child gets from a parent that sets no precedence
_COMMA = _Precedence.Comma
_CALL_ONE_ARGUMENT = _Precedence.call_one_arg
_CONSTANT = _Precedence.Constant
_NEGATIVE = _Precedence.USub
_TUPLE = _Precedence.Tuple
_SUBSCRIPT = _Precedence.Subscript
_SLICE = _Precedence.Slice
_POWER_LEFT = _Precedence.Pow + 1
_POWER_RIGHT = _Precedence.PowRHS
_IF_EXPRESSION = _Precedence.IfExp
_LAMBDA = _Precedence.Lambda
_NAMED_EXPRESSION = _Precedence.NamedExpr
_GENERATOR = _Precedence.GeneratorExp
_COMPREHENSION = _Precedence.comprehension
_COMPREHENSION_TARGET = _Precedence.comprehension_target

# operator node type -> (its precedence, its symbol)
_OPERATORS = {
    getattr(gast, name): (getattr(_Precedence, name), symbol) for name, symbol in (
        ("Or", "or"), ("And", "and"), ("Not", "not"),
        ("Eq", "=="), ("Gt", ">"), ("GtE", ">="), ("In", "in"), ("Is", "is"),
        ("NotEq", "!="), ("Lt", "<"), ("LtE", "<="), ("NotIn", "not in"),
        ("IsNot", "is not"), ("BitOr", "|"), ("BitXor", "^"), ("BitAnd", "&"),
        ("LShift", "<<"), ("RShift", ">>"), ("Add", "+"), ("Sub", "-"), ("Mult", "*"),
        ("Div", "/"), ("Mod", "%"), ("FloorDiv", "//"), ("MatMult", "@"),
        ("Invert", "~"), ("UAdd", "+"), ("USub", "-"), ("Pow", "**"))
}
# the characters str.splitlines breaks lines at (_restore_comments splits astor's text so)
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


_Name = gast.Name
_Pow = gast.Pow
_Assign, _AugAssign, _Expr = gast.Assign, gast.AugAssign, gast.Expr
_COMMENT_START = len(COMMENT_PREFIX)


_BinOp, _Call, _Attribute, _Constant = gast.BinOp, gast.Call, gast.Attribute, gast.Constant
_UnaryOp, _USub = gast.UnaryOp, gast.USub
_INFINITY = math.inf


def _expression(node, context: int) -> str:
    """``node``'s text; ``context`` is the precedence its parent gives it."""
    # the commonest nodes of generated code are printed here, without a dispatch through
    # _EXPRESSIONS (the printer's time goes to calls, one or two per node)
    kind = type(node)
    if kind is _Name:
        return node.id
    if kind is _BinOp:
        operator = type(node.op)
        precedence, symbol = _OPERATORS[operator]
        left, right = node.left, node.right
        # (f-strings: one new string where + makes one per operand)
        if operator is _Pow:
            left = left.id if type(left) is _Name else _expression(left, _POWER_LEFT)
            right = right.id if type(right) is _Name else _expression(right, _POWER_RIGHT)
            text = f"{left} ** {right}"
        else:
            left = left.id if type(left) is _Name else _expression(left, precedence)
            right = right.id if type(right) is _Name else _expression(right, precedence + 1)
            text = f"{left} {symbol} {right}"
        return f"({text})" if precedence < context else text
    if kind is _Constant:
        value = node.value
        if type(value) is float and 0.0 < value < _INFINITY:  # (no sign, no spelling)
            return f"({value!r})" if _CONSTANT < context else repr(value)
        return _constant(value, node, context)
    if kind is _Call:
        return _call(node, context)
    if kind is _UnaryOp and type(node.op) is _USub:  # -(x * y)
        text = "-" + _expression(node.operand, _NEGATIVE)
        return f"({text})" if _NEGATIVE < context else text
    if kind is _Attribute:
        value = node.value
        if type(value) is _Name:
            return f"{value.id}.{node.attr}"
        return f"{_expression(value, _HIGHEST)}.{node.attr}"
    printer = _EXPRESSIONS.get(kind)
    if printer is None:
        raise _Unprintable(kind.__name__)
    return printer(node, context)


def _constant(value, node, context: int) -> str:
    if isinstance(value, (int, float, complex)):
        if isinstance(value, bool):
            text = repr(value)
        else:
            return _number(value, context)
    elif isinstance(value, str):
        if "\n" in value:  # astor may print it triple-quoted, depending on the line so far
            raise _Unprintable("a string holding a line break")
        text = repr(value)
        kind = getattr(node, "kind", None)
        return kind + text if kind else text
    elif value is Ellipsis:
        return "..."
    else:
        text = repr(value)
        if _LINE_BREAK.search(text):
            raise _Unprintable("a constant spelled on several lines")
        return text
    return "(" + text + ")" if _CONSTANT < context else text


def _number(value, context: int) -> str:
    """A number as _spell_constants and astor spell it: negative numbers as negations,
    infinities and NaN as ``float('inf')``, complex numbers as ``complex(re, im)``."""
    if isinstance(value, float) and not math.isfinite(value):
        return "float(%r)" % repr(value)
    if isinstance(value, complex):
        if value.real == 0 and math.copysign(1.0, value.real) > 0 and value.imag >= 0:
            imaginary = "1e1000j" if math.isinf(value.imag) else repr(value.imag) + "j"
            return "(" + imaginary + ")" if _CONSTANT < context else imaginary
        return "complex(%s, %s)" % (_number(value.real, _COMMA), _number(value.imag, _COMMA))
    if value < 0 or (value == 0 and math.copysign(1.0, value) < 0):
        text = "-" + repr(-value)
        return "(" + text + ")" if _NEGATIVE < context else text
    text = repr(value)
    return "(" + text + ")" if _CONSTANT < context else text


def _call(node, context):
    arguments, keywords = node.args, node.keywords
    if len(arguments) == 1 and not keywords:  # the commonest call: f(x)
        argument = arguments[0]
        inside = (argument.id if type(argument) is _Name
                  else _expression(argument, _CALL_ONE_ARGUMENT))
    else:
        given = _COMMA if len(arguments) + len(keywords) > 1 else _CALL_ONE_ARGUMENT
        parts = []
        for argument in arguments:
            parts.append(argument.id if type(argument) is _Name
                         else _expression(argument, given))
        for keyword in keywords:
            value = _expression(keyword.value, _COMMA)
            parts.append(keyword.arg + "=" + value if keyword.arg else "**" + value)
        inside = ", ".join(parts)
    function = node.func
    if type(function) is _Attribute and type(function.value) is _Name:  # np.sum(...)
        return f"{function.value.id}.{function.attr}({inside})"
    return f"{_expression(function, _HIGHEST)}({inside})"


def _subscript(node, context):
    return (_expression(node.value, _HIGHEST) + "["
            + _expression(node.slice, _SUBSCRIPT) + "]")


def _slice(node, context):
    lower, upper, step = node.lower, node.upper, node.step
    text = "" if lower is None else _expression(lower, _SLICE)
    text += ":" if upper is None else ":" + _expression(upper, _SLICE)
    if step is not None:
        text += ":"
        if not (type(step) is gast.Name and step.id == "None"):
            text += _expression(step, _SLICE)
    return text


def _unary(node, context):
    precedence, symbol = _OPERATORS[type(node.op)]
    operand = _expression(node.operand, precedence)
    text = symbol + (" " if symbol.isalpha() else "") + operand
    return "(" + text + ")" if precedence < context else text


def _boolean(node, context):
    precedence, symbol = _OPERATORS[type(node.op)]
    text = (" " + symbol + " ").join(_expression(value, precedence + 1)
                                     for value in node.values)
    return "(" + text + ")" if precedence < context else text


def _compare(node, context):
    precedence = _OPERATORS[type(node.ops[0])][0]
    parts = [_expression(node.left, precedence + 1)]
    for operator, right in zip(node.ops, node.comparators):
        parts.append(_OPERATORS[type(operator)][1])
        parts.append(_expression(right, precedence + 1))
    text = " ".join(parts)
    return "(" + text + ")" if precedence < context else text


def _if_expression(node, context):
    text = (_expression(node.body, _IF_EXPRESSION + 1) + " if "
            + _expression(node.test, _IF_EXPRESSION + 1) + " else "
            + _expression(node.orelse, _IF_EXPRESSION))
    return "(" + text + ")" if _IF_EXPRESSION < context else text


def _tuple(node, context):
    elements = node.elts
    text = ", ".join([_expression(element, _COMMA) for element in elements])
    if len(elements) == 1:
        text += ","
    return text if elements and _TUPLE >= context else "(" + text + ")"


def _list(node, context):
    return "[" + ", ".join([_expression(element, _COMMA) for element in node.elts]) + "]"


def _set(node, context):
    if not node.elts:
        return "{1}.__class__()"
    return "{" + ", ".join([_expression(element, _COMMA) for element in node.elts]) + "}"


def _dict(node, context):
    parts = []
    for key, value in zip(node.keys, node.values):
        value = _expression(value, _COMMA)
        parts.append("**" + value if key is None else _expression(key, _HIGHEST) + ": " + value)
    return "{" + ", ".join(parts) + "}"


def _starred(node, context):
    return "*" + _expression(node.value, _HIGHEST)


def _named_expression(node, context):
    return ("(" + _expression(node.target, _NAMED_EXPRESSION) + " := "
            + _expression(node.value, _NAMED_EXPRESSION + 1) + ")")


def _lambda(node, context):
    text = ("lambda " + _arguments(node.args) + ": "
            + _expression(node.body, _LAMBDA))
    return "(" + text + ")" if _LAMBDA < context else text


def _comprehensions(generators) -> str:
    text = ""
    for generator in generators:
        text += (" async for " if generator.is_async else " for ") \
            + _expression(generator.target, _COMPREHENSION_TARGET) + " in " \
            + _expression(generator.iter, _COMPREHENSION)
        for condition in generator.ifs:
            text += " if " + _expression(condition, _COMPREHENSION)
    return text


def _generator(node, context):
    text = _expression(node.elt, _COMMA) + _comprehensions(node.generators)
    if context == _CALL_ONE_ARGUMENT or _GENERATOR >= context:
        return text
    return "(" + text + ")"


def _list_comprehension(node, context):
    return "[" + _expression(node.elt, _HIGHEST) + _comprehensions(node.generators) + "]"


def _set_comprehension(node, context):
    return "{" + _expression(node.elt, _HIGHEST) + _comprehensions(node.generators) + "}"


def _dict_comprehension(node, context):
    return ("{" + _expression(node.key, _HIGHEST) + ": " + _expression(node.value, _HIGHEST)
            + _comprehensions(node.generators) + "}")


# (Name, Constant, BinOp, Call and Attribute: printed by _expression itself)
_EXPRESSIONS = {
    gast.Subscript: _subscript, gast.Slice: _slice, gast.UnaryOp: _unary, gast.BoolOp: _boolean,
    gast.Compare: _compare, gast.IfExp: _if_expression, gast.Tuple: _tuple,
    gast.List: _list, gast.Set: _set, gast.Dict: _dict, gast.Starred: _starred,
    gast.NamedExpr: _named_expression, gast.Lambda: _lambda, gast.GeneratorExp: _generator,
    gast.ListComp: _list_comprehension, gast.SetComp: _set_comprehension,
    gast.DictComp: _dict_comprehension,
}


def _parameter(node) -> str:
    if type(node) is not gast.Name:
        raise _Unprintable("a parameter that is not a Name")
    if node.annotation is None:
        return node.id
    return node.id + ": " + _expression(node.annotation, _HIGHEST)


def _arguments(node) -> str:
    """A parameter list as astor writes it (its handling of defaults included)."""
    parts = []

    def add(parameters, defaults):
        padding = [None] * (len(parameters) - len(defaults))
        for parameter, default in zip(parameters, padding + defaults):
            text = _parameter(parameter)
            parts.append(text if default is None
                         else text + "=" + _expression(default, _COMMA))

    offset = 0
    if node.posonlyargs:
        offset += len(node.defaults) - len(node.args)
        add(node.posonlyargs, node.defaults[:offset])
        parts.append("/")
    add(node.args, node.defaults[offset:])
    if node.vararg is not None:
        parts.append("*" + _parameter(node.vararg))
    if node.kwonlyargs:
        if node.vararg is None:
            parts.append("*")
        add(node.kwonlyargs, node.kw_defaults)
    if node.kwarg is not None:
        parts.append("**" + _parameter(node.kwarg))
    return ", ".join(parts)


_INDENT = "    "
_NEWLINES = ("\n", "\n", "\n\n", "\n\n\n")


class _Printer:
    """Statements to lines. ``pending`` is astor's count of line breaks owed before the
    next line (at least one; a function definition asks for more)."""

    def __init__(self):
        self.parts: list[str] = []
        self.pending = 0
        self.breaks_lines = False  # a string printed across lines: comments need the slow pass

    def line(self, indent: str, text: str) -> None:
        self.parts.append(f"{_NEWLINES[self.pending]}{indent}{text}")
        self.pending = 0

    def block(self, statements, indent: str) -> None:
        printers = _STATEMENTS
        append = self.parts.append
        for statement in statements:
            kind = type(statement)
            # the commonest statement, ``name = expression``, printed here (as assign and
            # line would); inside a function no line breaks are owed before a statement
            if kind is _Assign and indent:
                targets = statement.targets
                if len(targets) == 1 and type(targets[0]) is _Name:
                    append(f"\n{indent}{targets[0].id} = "
                           f"{_expression(statement.value, _ASSIGN)}")
                    continue
            elif kind is _Expr and indent:
                value = statement.value
                if type(value) is _Constant:  # a comment (as expression_statement prints it)
                    text = value.value
                    if (type(text) is str and text.startswith(COMMENT_PREFIX)
                            and not getattr(value, "kind", None)
                            and not _LINE_BREAK.search(text)):
                        append(f"\n{indent}# {text[_COMMENT_START:]}")
                        continue
            elif kind is _AugAssign and indent and type(statement.target) is _Name:
                append(f"\n{indent}{statement.target.id} {_OPERATORS[type(statement.op)][1]}= "
                       f"{_expression(statement.value, _AUGMENTED_ASSIGN)}")
                continue
            printer = printers.get(kind)
            if printer is None:
                raise _Unprintable(kind.__name__)
            printer(self, statement, indent)

    def body(self, statements, indent: str) -> None:
        self.block(statements, indent + _INDENT)

    def orelse(self, statements, indent: str) -> None:
        if statements:
            self.line(indent, "else:")
            self.block(statements, indent + _INDENT)

    def function_def(self, node, indent):
        _give_blocks_statements(node)
        if getattr(node, "type_params", None):
            raise _Unprintable("type parameters")
        self.pending = max(self.pending, 2 if indent else 3)
        for decorator in node.decorator_list:
            self.line(indent, "@" + _expression(decorator, _HIGHEST))
        header = "def " + node.name + "(" + _arguments(node.args) + ")"
        if node.returns is not None:
            header += " ->" + _expression(node.returns, _HIGHEST)
        self.line(indent, header + ":")
        self.body(node.body, indent)
        if not indent:
            self.pending = 3

    def assign(self, node, indent):
        targets = node.targets
        if len(targets) == 1 and type(targets[0]) is _Name:
            text = targets[0].id + " = "
        else:
            _check_first_on_line(targets[0])
            text = ""
            for target in targets:
                text += _expression(target, _ASSIGN) + " = "
        self.line(indent, text + _expression(node.value, _ASSIGN))

    def augmented_assign(self, node, indent):
        _check_first_on_line(node.target)
        self.line(indent, _expression(node.target, _AUGMENTED_ASSIGN)
                  + " " + _OPERATORS[type(node.op)][1] + "= "
                  + _expression(node.value, _AUGMENTED_ASSIGN))

    def annotated_assign(self, node, indent):
        _check_first_on_line(node.target)
        target = _expression(node.target, _ANNOTATED_ASSIGN)
        if type(node.target) is gast.Name and not node.simple:
            target = "(" + target + ")"
        text = target + ": " + _expression(node.annotation, _ANNOTATED_ASSIGN)
        if node.value is not None:
            text += " = " + _expression(node.value, _COMMA)
        self.line(indent, text)

    def expression_statement(self, node, indent):
        value = node.value
        if type(value) is gast.Constant and isinstance(value.value, str):
            # astor prints a string that begins a line as a (triple-quoted) docstring, and
            # to_source turns comment statements into comments
            text, kind = value.value, getattr(value, "kind", None)
            if not kind and text.startswith(COMMENT_PREFIX):
                if _LINE_BREAK.search(text):  # a comment _restore_comments may leave a string
                    raise _Unprintable("a comment holding a line break")
                self.line(indent, "# " + text[len(COMMENT_PREFIX):])
                return
            printed = _pretty_string(text, 1, indent)
            if kind:
                printed = kind + printed
            if _LINE_BREAK.search(printed):
                self.breaks_lines = True
            self.line(indent, printed)
            return
        _check_first_on_line(value)
        self.line(indent, _expression(value, _EXPRESSION_STATEMENT))

    def return_(self, node, indent):
        if node.value is None:
            self.line(indent, "return")
        else:
            self.line(indent, "return " + _expression(node.value, _RETURN))

    def if_(self, node, indent):
        _give_blocks_statements(node)
        self.line(indent, "if " + _expression(node.test, _IF) + ":")
        self.body(node.body, indent)
        while True:
            orelse = node.orelse
            if len(orelse) == 1 and type(orelse[0]) is gast.If:
                node = orelse[0]
                _give_blocks_statements(node)
                self.line(indent, "elif " + _expression(node.test, _IF) + ":")
                self.body(node.body, indent)
            else:
                self.orelse(orelse, indent)
                return

    def for_(self, node, indent):
        _give_blocks_statements(node)
        self.line(indent, "for " + _expression(node.target, _FOR) + " in "
                  + _expression(node.iter, _HIGHEST) + ":")
        self.body(node.body, indent)
        self.orelse(node.orelse, indent)

    def while_(self, node, indent):
        _give_blocks_statements(node)
        self.line(indent, "while " + _expression(node.test, _WHILE) + ":")
        self.body(node.body, indent)
        self.orelse(node.orelse, indent)

    def with_(self, node, indent):
        _give_blocks_statements(node)
        items = []
        for item in node.items:
            text = _expression(item.context_expr, _HIGHEST)
            if item.optional_vars is not None:
                text += " as " + _expression(item.optional_vars, _HIGHEST)
            items.append(text)
        self.line(indent, "with " + ", ".join(items) + ":")
        self.body(node.body, indent)

    def try_(self, node, indent):
        _give_blocks_statements(node)
        self.line(indent, "try:")
        self.body(node.body, indent)
        for handler in node.handlers:
            _give_blocks_statements(handler)
            text = "except"
            if handler.type is not None:
                text += " " + _expression(handler.type, _HIGHEST)
                if handler.name is not None:
                    text += " as " + handler.name.id
            self.line(indent, text + ":")
            self.body(handler.body, indent)
        self.orelse(node.orelse, indent)
        if node.finalbody:
            self.line(indent, "finally:")
            self.body(node.finalbody, indent)

    def raise_(self, node, indent):
        text = "raise"
        if node.exc is not None:
            text += " " + _expression(node.exc, _HIGHEST)
            if node.cause is not None:
                text += " from " + _expression(node.cause, _HIGHEST)
        self.line(indent, text)

    def assert_(self, node, indent):
        text = "assert " + _expression(node.test, _ASSERT)
        if node.msg is not None:
            text += ", " + _expression(node.msg, _ASSERT)
        self.line(indent, text)

    def delete(self, node, indent):
        self.line(indent, "del " + ", ".join([_expression(target, _COMMA)
                                                for target in node.targets]))

    def import_(self, node, indent):
        self.line(indent, "import " + _aliases(node.names))

    def import_from(self, node, indent):
        self.line(indent, "from " + node.level * "." + (node.module or "") + " import "
                  + _aliases(node.names))

    def global_(self, node, indent):
        self.line(indent, "global " + ", ".join(node.names))

    def nonlocal_(self, node, indent):
        self.line(indent, "nonlocal " + ", ".join(node.names))

    def pass_(self, node, indent):
        self.line(indent, "pass")

    def break_(self, node, indent):
        self.line(indent, "break")

    def continue_(self, node, indent):
        self.line(indent, "continue")


def _check_first_on_line(node) -> None:
    """astor spells a string that begins a line (``'a'.join(x)``) by other rules: leave such
    a line to astor."""
    kind = type(node)
    while kind in _FIRST_CHILD:
        node = getattr(node, _FIRST_CHILD[kind])
        kind = type(node)
    if kind is gast.Constant and isinstance(node.value, str):
        raise _Unprintable("a string that begins a line inside an expression")


def _aliases(aliases) -> str:
    return ", ".join([alias.name if alias.asname is None else alias.name + " as " + alias.asname
                      for alias in aliases])


_ASSIGN = _Precedence.Assign
_AUGMENTED_ASSIGN = _Precedence.AugAssign
_ANNOTATED_ASSIGN = _Precedence.AnnAssign
_EXPRESSION_STATEMENT = _Precedence.Expr
_RETURN = _Precedence.Return
_IF = _Precedence.If
_FOR = _Precedence.For
_WHILE = _Precedence.While
_ASSERT = _Precedence.Assert
# the child an expression's text begins with, where astor writes nothing before it
_FIRST_CHILD = {gast.Attribute: "value", gast.Call: "func", gast.Subscript: "value"}

_STATEMENTS = {
    gast.FunctionDef: _Printer.function_def, gast.Assign: _Printer.assign,
    gast.AugAssign: _Printer.augmented_assign, gast.AnnAssign: _Printer.annotated_assign,
    gast.Expr: _Printer.expression_statement, gast.Return: _Printer.return_,
    gast.If: _Printer.if_, gast.For: _Printer.for_, gast.While: _Printer.while_,
    gast.With: _Printer.with_, gast.Try: _Printer.try_, gast.Raise: _Printer.raise_,
    gast.Assert: _Printer.assert_, gast.Delete: _Printer.delete,
    gast.Import: _Printer.import_, gast.ImportFrom: _Printer.import_from,
    gast.Global: _Printer.global_, gast.Nonlocal: _Printer.nonlocal_,
    gast.Pass: _Printer.pass_, gast.Break: _Printer.break_, gast.Continue: _Printer.continue_,
}


def _print_module(tree: gast.Module) -> str:
    printer = _Printer()
    printer.block(tree.body, "")
    parts = printer.parts
    if not parts:
        return "\n"
    parts[0] = parts[0].lstrip("\n")  # astor drops the line breaks before the first line
    text = "".join(parts) + "\n"
    return _restore_comments(text) if printer.breaks_lines else text


def parse_source(text: str) -> gast.Module:
    """The tree of source ``to_source`` printed, its ``# comment`` lines comment statements again.

    ``to_source(parse_source(text)) == text`` for text ``to_source`` printed, so a tree
    read back this way can be changed (names renamed, defaults added) and printed again.
    Only comments on lines of their own, outside brackets, are kept: ``to_source`` writes
    no other kind.
    """
    lines = text.splitlines(keepends=True)
    depth = 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.COMMENT and depth == 0:
            row, column = token.start
            line = lines[row - 1]
            if line[:column].strip():
                continue  # after code on its line
            body = token.string[1:]
            body = body.removeprefix(" ")
            lines[row - 1] = line[:column] + repr(COMMENT_PREFIX + body) + "\n"
    return gast.parse("".join(lines))


_FACTORY = "_srcad_bind"
# a line of blanks only, among "\n"-separated ASCII lines (str.strip's ASCII whitespace less
# the line breaks _indented rules out)
def _indented(source: str) -> str:
    """``source`` with each line that holds more than blanks indented by four spaces."""
    return textwrap.indent(source, "    ")


def compile_function(source: str, name: str, aliases: dict, user_function,
                     label: str, defaults=None) -> types.FunctionType:
    """Compile generated ``source`` (one ``def name``) into a function.

    ``aliases`` maps alias names (``np``, ``rt``...) to objects; free names of
    the user's function that are closure variables are bound to its own cells.
    """
    user_code = user_function.__code__
    user_cells = dict(zip(user_code.co_freevars, user_function.__closure__ or ()))
    free = list(aliases) + [n for n in user_cells if n not in aliases]
    text = "def %s(%s):\n%s    return %s\n" % (_FACTORY, ", ".join(free), _indented(source),
                                                 name)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    filename = generated_files.write_source_file(text, label, digest) or \
        "<srcad %s %s>" % (label, digest)
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    namespace: dict = {}
    exec(compile(text, filename, "exec"), {"__builtins__": __builtins__}, namespace)
    inner_code = namespace[_FACTORY](*[None] * len(free)).__code__
    closure = tuple(
        user_cells[n] if n in user_cells and n not in aliases else types.CellType(aliases[n])
        for n in inner_code.co_freevars
    )
    function = types.FunctionType(inner_code, user_function.__globals__, name,
                                  defaults, closure or None)
    function.__source__ = source
    return function

