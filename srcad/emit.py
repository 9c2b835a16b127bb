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
import tokenize
import types

import astor
import gast

from .annotations import COMMENT_PREFIX, comment_text
from .cache import generated_files


def to_source(tree) -> str:
    """Python source for a gast tree (a function definition or a module)."""
    if not isinstance(tree, gast.Module):
        tree = gast.Module(body=[tree], type_ignores=[])
    _give_every_block_a_statement(tree)
    python_tree = _spell_constants(gast.gast_to_ast(tree))
    try:  # (the printers read no line numbers: no ast.fix_missing_locations needed)
        # one statement per line, never wrapped: generated lines map to what pdb shows
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


def compile_function(source: str, name: str, aliases: dict, user_function,
                     label: str, defaults=None) -> types.FunctionType:
    """Compile generated ``source`` (one ``def name``) into a function.

    ``aliases`` maps alias names (``np``, ``rt``...) to objects; free names of
    the user's function that are closure variables are bound to its own cells.
    """
    user_code = user_function.__code__
    user_cells = dict(zip(user_code.co_freevars, user_function.__closure__ or ()))
    free = list(aliases) + [n for n in user_cells if n not in aliases]
    indented = "".join("    " + line if line.strip() else line
                       for line in source.splitlines(keepends=True))
    text = "def %s(%s):\n%s    return %s\n" % (_FACTORY, ", ".join(free), indented, name)
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

