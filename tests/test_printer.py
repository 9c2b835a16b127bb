"""emit.to_source prints gast trees itself; its text must be astor's, byte for byte.

The printer in srcad/emit.py reproduces what ``emit.to_source_by_astor`` (the tree
converted to a Python ``ast`` and printed by astor) writes: parentheses, spelled
constants, comments, blank lines. These tests compare the two on every tree srcad prints
for the golden functions and for fuzz-generated programs (every stage, both modes), on
every function of srcad's and the tests' own source, and on constants and strings in
every position; any difference fails.
"""

from __future__ import annotations

import difflib
import math
import pathlib
import zlib

import gast
import pytest

import srcad
from srcad import emit
from srcad.annotations import comment
from srcad.errors import SrcadError
from tests.fuzz.check import load_module
from tests.fuzz.generate import generate

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _module(tree) -> gast.Module:
    if not isinstance(tree, gast.Module):
        tree = gast.Module(body=[tree], type_ignores=[])
    emit._give_every_block_a_statement(tree)
    return tree


def assert_printed_as_astor(tree) -> str:
    """The printer's text for ``tree`` is astor's (no fallback: the printer must know it)."""
    module = _module(tree)
    expected = emit.to_source_by_astor(module)
    printed = emit._print_module(module)
    if printed != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), printed.splitlines(True),
                                            "astor", "printer"))
        pytest.fail("the printer's text differs from astor's:\n" + diff)
    return printed


@pytest.fixture
def compare_every_print(monkeypatch):
    """Every tree srcad prints during the test is printed both ways and compared."""
    printed = []
    original = emit.to_source

    def checked(tree):
        text = original(tree)
        assert assert_printed_as_astor(tree) == text
        printed.append(text)
        return text

    monkeypatch.setattr(emit, "to_source", checked)
    return printed


def _golden_subjects():
    from tests.test_golden import _load_subjects, _mlp_args
    subjects = _load_subjects()
    return subjects, _mlp_args


def test_golden_functions_print_as_astor(compare_every_print):
    subjects, mlp_args = _golden_subjects()
    srcad.source(subjects.scalar, wrt=(0, 1), example_args=(1.0, 2.0), stages=True)
    srcad.source(subjects.mlp, wrt=(0, 1, 2, 3), example_args=mlp_args(), stages=True)
    srcad.source(subjects.generic, wrt=(0, 1), stages=True)
    srcad.source(subjects.scalar, wrt=(0, 1), mode="forward", stages=True)
    assert len(compare_every_print) >= 16


FUZZ_SEEDS = [zlib.crc32(b"printer:%d" % index) for index in range(16)]


@pytest.mark.parametrize("seed", FUZZ_SEEDS)
def test_fuzz_programs_print_as_astor(seed, compare_every_print):
    program = generate(seed)
    module = load_module(program.source, "printer_fuzz")
    function = getattr(module, program.function_name)
    # the user's own functions as parsed (lambdas, nested defs, comprehensions...); a class
    # (the fuzzer's by-value calls) is never in code srcad prints: its methods are
    parsed = gast.parse(program.source)
    parsed.body = [statement for definition in parsed.body for statement in (
        definition.body if isinstance(definition, gast.ClassDef) else [definition])]
    assert_printed_as_astor(parsed)
    try:
        srcad.source(function, wrt=program.wrt, example_args=program.make_arguments(),
                     stages=True)
        srcad.source(function, wrt=program.wrt, stages=True)
        srcad.source(function, wrt=program.wrt, mode="forward",
                     example_args=program.make_arguments(), stages=True)
    except SrcadError:
        pass  # a construct srcad rejects: what was printed before still counts
    assert compare_every_print


def _function_definitions(path):
    tree = gast.parse(path.read_text())
    for node in gast.walk(tree):
        if isinstance(node, gast.FunctionDef):
            yield node


SOURCE_FILES = sorted(path for folder in ("srcad", "tests", "benchmarks", "examples")
                      for path in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", SOURCE_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_source_files_print_as_astor(path):
    """Every function of srcad's own code, its tests, benchmarks and examples (the syntax
    users write), and each file's top level without its classes (blank lines between
    definitions, imports), prints as astor prints it."""
    tree = gast.parse(path.read_text())
    for definition in _function_definitions(path):
        try:
            printed = emit._print_module(_module(definition))
        except emit._Unprintable:
            assert emit.to_source(definition) == emit.to_source_by_astor(definition)
            continue
        assert printed == emit.to_source_by_astor(definition), definition.name
    top_level = gast.Module(body=[s for s in tree.body if not isinstance(s, gast.ClassDef)],
                            type_ignores=[])
    assert emit.to_source(top_level) == emit.to_source_by_astor(top_level)


# what the printer leaves to astor (none of it occurs in generated code)
LEFT_TO_ASTOR = {"a string holding a line break", "a comment holding a line break",
                 "a string that begins a line inside an expression", "Yield", "YieldFrom",
                 "Await", "ClassDef", "AsyncFunctionDef", "JoinedStr"}


def test_source_files_are_mostly_printed_without_astor():
    """The comparison above is not vacuous: the printer itself prints nearly every function,
    and leaves to astor only what it means to."""
    printed, left = 0, set()
    for path in SOURCE_FILES:
        for definition in _function_definitions(path):
            try:
                emit._print_module(_module(definition))
                printed += 1
            except emit._Unprintable as reason:
                left.add(str(reason))
    assert printed > 2000 and left <= LEFT_TO_ASTOR, (printed, left - LEFT_TO_ASTOR)


NUMBERS = [0, 3, -3, 2 ** 70, -(2 ** 70), 0.0, -0.0, 0.5, -0.9, 1e300, -1e-300,
           math.inf, -math.inf, math.nan, True, False, 1j, -1j, 2.5j, 0j,
           complex(2, 3), complex(-2, 3), complex(2, -3), complex(0, -0.0),
           complex(-0.0, 1), complex(0, math.inf), complex(math.inf, math.nan),
           complex(0, math.nan), None, Ellipsis, "text", b"bytes", "it's \"quoted\""]
# where a constant may stand: C is replaced by the constant
PLACES = ["y = C", "y = C.real", "y = C ** 2", "y = 2 ** C", "y = -C", "y = not C",
          "y = C ** C", "y = f(C)", "y = f(C, C)", "y = f(k=C)", "y = x[C]", "y = x[C:C]",
          "y = (C,)", "y = C, C", "y = [C]", "y = {C: C}", "y = C if C else C",
          "y = C < C < C", "y = C and C", "y = C + C * C", "y = C - C", "y = (C - C) - C",
          "y = C @ C", "f(C)", "return C", "return C, C", "y += C", "x[C] = C",
          "y = lambda: C", "y = lambda a=C: a", "assert C, C", "del x[C]",
          "y = [C for a in C if C]", "y = f(C for a in C)", "y = (C for a in C)",
          "y = {C for a in C}", "y = {C: C for a in C}", "y = x[C, C:C]", "y = C[C]",
          "y = C(C)", "for a in C:\n    pass", "while C:\n    pass", "if C:\n    pass"]


def _with_constant(text, value):
    tree = gast.parse("def g(x, f):\n" + "\n".join("    " + line for line in text.splitlines()))
    for node in gast.walk(tree):
        for field in node._fields:
            child = getattr(node, field)
            if isinstance(child, gast.Name) and child.id == "C":
                setattr(node, field, gast.Constant(value=value, kind=None))
            elif isinstance(child, list):
                child[:] = [gast.Constant(value=value, kind=None)
                            if isinstance(item, gast.Name) and item.id == "C" else item
                            for item in child]
    return tree


@pytest.mark.parametrize("place", PLACES)
def test_constants_in_every_place_print_as_astor(place):
    for value in NUMBERS:
        assert_printed_as_astor(_with_constant(place, value))


EXPRESSIONS = """
y = a ** b ** c
y = (a ** b) ** c
y = -a ** b
y = (-a) ** b
y = a ** -b
y = not a == b
y = (not a) == b
y = a if b else c if d else e
y = (a if b else c) if d else e
y = lambda a, *b, c=1, **d: (a, b)
y = [*a, *b]
y = f(*a, **b)
y = {**a, 'k': b}
y = a[1:2, ::3, :]
y = a[b][c].d(e)(f)
y = (a + b).c
y = (a, b)[0]
y = ()
y = (a,)
y = {1}
y = set()
y = a < b == c is not d not in e
y = a or b and c or not d
y = (a or b) and c
y = a | b ^ c & d << e >> f
y = (a | b) & c
y = ~a + +b - -c
y = a // b % c @ d / e
y = a - (b - c)
y = a - b - c
y = a / (b * c)
y = (y := a + 1)
y = f(a for a in b)
y = f((a for a in b), c)
y = sum(a for a in b if a if not a)
y = [a for a, b in c for d in e]
y = a.b.c
y = a[-1]
y = a[:-1]
"""

STATEMENTS = '''
def outer(a, b=1, /, c=2, *d, e, f=3, **g) -> int:
    """A docstring."""
    global h
    import numpy as np, os.path
    from . import x as y
    from ..a import b
    @decorator
    @decorator.attribute(1)
    def inner(p: int = 1, *, q: "text") -> "result":
        nonlocal r
        return
    x: int = 1
    (y): int
    z.w: int = 2
    a, b = b, a
    a = b = c
    [a, b] = c
    a[1:2] = b
    a.b += 1
    del a, b[1]
    if a:
        pass
    elif b:
        pass
    elif c:
        pass
    else:
        if d:
            pass
    if a:
        pass
    else:
        if b:
            pass
        x = 1
    for i in range(3):
        continue
    else:
        break
    for a, b in c:
        pass
    for (a, b) in (c, d):
        pass
    while a < b:
        a += 1
    else:
        pass
    with open(a) as b, c:
        pass
    try:
        pass
    except ValueError as e:
        raise TypeError("x") from e
    except (KeyError, IndexError):
        raise
    except:
        pass
    else:
        pass
    finally:
        pass
    assert a, "message"
    return a, b
x = 1


def after(a):
    pass
y = 2
'''


def test_expressions_print_as_astor():
    assert_printed_as_astor(gast.parse("def g():\n" + "\n".join(
        "    " + line for line in EXPRESSIONS.strip().splitlines())))


def test_statements_print_as_astor():
    assert_printed_as_astor(gast.parse(STATEMENTS))


DOCSTRINGS = ["one line", "two\nlines", "ends with a quote\"", 'has """ inside', "back\\slash",
              "line\n    indented\n", "\ttab", "carriage\rreturn", "\x00null", "form\x0cfeed",
              "unicode \u2028 separator", "", "x" * 120]


@pytest.mark.parametrize("text", DOCSTRINGS)
def test_strings_and_comments_print_as_astor(text):
    for statement in (comment(text), gast.Expr(value=gast.Constant(value=text, kind=None)),
                      gast.Expr(value=gast.Constant(value="srcad-comment:" + text, kind=None)),
                      gast.Expr(value=gast.Constant(value=text, kind="u"))):
        function = gast.parse("def g(x):\n    if x:\n        pass\n    return x").body[0]
        function.body.insert(0, statement)
        function.body[1].body.insert(0, statement)
        assert emit.to_source(function) == emit.to_source_by_astor(function)
    assigned = _with_constant("y = C\nf(C, k=C)\nreturn x[C].y", text)
    assert emit.to_source(assigned) == emit.to_source_by_astor(assigned)


def _comment_blocks():
    function = gast.parse("def g(x):\n    if x:\n        pass\n    elif x:\n        pass\n"
                          "    else:\n        pass\n    for i in x:\n        pass\n"
                          "    while x:\n        pass\n    else:\n        pass\n"
                          "    try:\n        pass\n    except E:\n        pass\n"
                          "    else:\n        pass\n    finally:\n        pass\n"
                          "    return x").body[0]
    branch, loop, repeat, attempt = function.body[:4]
    branch.body = [comment("only a comment")]
    branch.orelse[0].body = [comment("in elif"), comment("two")]
    branch.orelse[0].orelse = [comment("in else")]
    loop.body = [comment("in a loop")]
    repeat.orelse = [comment("loop else")]
    attempt.body = [comment("try")]
    attempt.handlers[0].body = [comment("handler")]
    attempt.orelse = [comment("try else")]
    attempt.finalbody = [comment("finally"), gast.Pass()]
    return function


def test_blocks_of_comments_only_print_as_astor():
    """Blocks holding only comments get a ``pass`` (an ``else`` of comments goes), in the
    tree as in the text, whichever way it is printed."""
    printed, by_astor = _comment_blocks(), _comment_blocks()
    assert emit.to_source(printed) == emit.to_source_by_astor(by_astor)
    assert emit.to_source(printed) == emit.to_source(by_astor)  # the trees changed alike
    assert "pass" in emit.to_source(printed).split("# only a comment")[1].splitlines()[1]


@pytest.mark.parametrize("text", [
    "def g(x):\n    'a'.join(x)",  # a string that begins a line: astor spells it its own way
    "def g(x):\n    return f'{x}'",  # f-strings: not the printer's
    "class C:\n    def g(self):\n        pass",
    "async def g(x):\n    await x",
    "def g(x):\n    y = 'two\\nlines'",
])
def test_what_the_printer_leaves_to_astor_prints_as_astor(text):
    tree = gast.parse(text)
    with pytest.raises(emit._Unprintable):
        emit._print_module(_module(tree))
    assert emit.to_source(tree) == emit.to_source_by_astor(tree)
