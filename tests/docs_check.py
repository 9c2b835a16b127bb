"""Run the code the documentation shows and compare every output it shows with srcad's.

Used by tests/test_docs.py. ``python -m tests.docs_check [FILE.md ...]`` reports what
differs; with ``--update`` it rewrites the outputs that differ with what srcad produces now
(review the diff before committing).

Conventions for README.md and docs/*.md
=======================================

Each document runs top to bottom in one namespace of its own, as a reader pasting its
blocks in order would run them, in a process and a fresh temporary directory of its own
(shown in outputs as ``/tmp/demo``) where ``examples/`` is the repository's.

Fenced blocks
-------------
- ```` ```python ```` blocks run. Each is saved to a file first (so srcad can read the
  functions it defines) and run statement by statement.
- A ```` ```python ```` block whose first line starts with ``>>>`` is a session: the
  ``>>>``/``...`` lines run, and the other lines are what they print (an expression's
  value is printed as the Python prompt prints it), compared exactly.
- ```` ```console ```` blocks run: each ``$ COMMAND`` line runs in a shell, and the lines
  below it, up to the next ``$``, are its output (stdout and stderr), compared exactly.
- Any other block needs a marker saying what it is (below); an unmarked one fails.

Markers: an HTML comment ``<!-- test: ... -->`` on the line right above a block (or a
table), invisible in the rendered page:

- ``<!-- test: file NAME.py -->``: a python block saved as NAME.py and imported as the
  module NAME; its public names are then available to the later blocks.
- ``<!-- test: output of the previous block -->``: the block is exactly what the previous
  block that ran printed.
- ``<!-- test: output of `EXPR` -->``: the block is exactly ``str(EXPR)``, EXPR evaluated
  in the document's namespace after the blocks above ran. ``stage(text, "normalize")``
  picks one stage out of ``srcad.source(..., stages=True)``; ``read("path")`` is a file of
  the repository, ``example("quickstart")`` the module examples/quickstart.py.
- ``<!-- test: excerpt of the previous block -->``, ``<!-- test: excerpt of `EXPR` -->``:
  each group of lines of the block (groups are separated by blank lines or ``...`` lines)
  appears, in order, as consecutive lines of that output.
- ``<!-- test: error of the previous block -->``: the last statement of the previous
  block raises, and the block is the error's message (``str(error)``), or, when it starts
  with ``Traceback``, the traceback as Python prints it from the block's own frame.
- In output and error blocks, a line ``...`` stands for any number of lines.
- ``; measured `REGEX``` after an output/error marker, or on a console block's marker
  ``<!-- test: measured `REGEX` -->``: text matching REGEX (a time, say) differs from run
  to run and is not compared.
- ``<!-- test: signature of `srcad.NAME` -->``: the block's first call ``NAME(...)`` (it
  may span lines) has the parameters of ``inspect.signature`` (names, kinds, defaults; a
  ``**options`` the doc leaves out is allowed); what follows it (``-> result``) is prose.
- ``<!-- test: synopsis of `srcad` -->``: every option of every ``srcad COMMAND`` line is
  one the command accepts, and every option the command accepts is shown.
- ``<!-- test: commands run, output not shown -->``: a shell block whose every line runs
  (as console commands do) and must succeed; its output is not shown, so not compared.
- ``<!-- test: not run: REASON -->``: a block that is deliberately not run (installation
  commands, a format, an illustration); REASON says why.
- ``<!-- test: measured: COMMAND -->``: a table or block of measurements (timings,
  benchmark ratios) that depend on the machine; COMMAND is what produced them (its
  script must exist). A table showing ratios (``1.2×``) must carry this marker.

Values in comments
------------------
In a python block, a comment right after a top-level statement (on its last line, or on
comment lines directly below it) that begins with a value shows what the statement gives:

- ``expression   # VALUE``: VALUE is the expression's value as Python prints it (its
  ``repr``: ``(4.5, 1.0)``, ``array([1., 2.])``, ``True``), compared as text; numbers
  may differ by a relative 1e-12 (the last bit of a float; ``--update`` rewrites them).
- ``# NAME == VALUE``: the variable NAME after the statement equals VALUE, as printed,
  except that a NumPy scalar may be shown as a plain number.
- ``# ≈ VALUE``: as ``==``, rounded to the digits shown (``# ≈ 0.86``).

A value starts with a digit, a sign, ``(``, ``[``, ``{``, a quote, ``array(``, ``np.``,
``True``, ``False`` or ``None``; it may continue on the comment lines below it while a
bracket is open, and may be followed by prose after ``:``, ``,``, `` (`` or ``;``
(``# 9.0: y is held constant``). A comment that begins like a value but does not parse
as one fails: write prose comments so they start with a word.

Paths in every compared output are normalized: the temporary directory becomes
``/tmp/demo``, srcad's directory of generated files ``<tempdir>/srcad-<uid>``, and the
hash in a generated file's name ``<hash>``.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import inspect
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tokenize
import traceback
import types
from pathlib import Path

import numpy

import srcad
from srcad.cache import generated_files

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "docs/api.md", "docs/how-it-works.md", "docs/templates.md")
SHOWN_DIRECTORY = "/tmp/demo"
RELATIVE_TOLERANCE = 1e-12


class DocumentError(Exception):
    """A marker or block the conventions above do not allow (a mistake in the document)."""


# ---------------------------------------------------------------------------------------
# Reading a document
# ---------------------------------------------------------------------------------------

@dataclasses.dataclass
class Marker:
    kind: str  # file, output, excerpt, error, signature, synopsis, commands, not run, measured
    line: int
    expression: str | None = None  # output/excerpt/signature: `EXPR`; None: previous block
    name: str | None = None  # file: the module's file name
    reason: str | None = None  # not run: why; measured: the command
    measured: str | None = None  # a regex of text not compared


@dataclasses.dataclass
class Block:
    document: str
    line: int  # 1-based line of the opening fence
    language: str
    text: str  # the content, without the fence's indentation
    first_content_line: int  # 0-based index of the first content line in the file
    end_content_line: int  # 0-based index of the closing fence
    indent: str
    marker: Marker | None = None

    @property
    def ident(self) -> str:
        what = self.marker.kind if self.marker else (
            "session" if self.is_session else self.language or "text")
        return "%s:%d %s" % (self.document, self.line, what)

    @property
    def is_session(self) -> bool:
        return self.language == "python" and self.text.lstrip().startswith(">>>")


@dataclasses.dataclass
class Table:
    document: str
    line: int
    text: str
    marker: Marker | None = None


_MARKER = re.compile(r"^\s*<!--\s*test:\s*(.*?)\s*-->\s*$")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)\s*$")
_MEASURED_SUFFIX = r"(?:;\s*measured `(?P<measured>[^`]+)`)?"
_DIRECTIVES = [
    ("file", re.compile(r"file (?P<name>[A-Za-z_]\w*\.py)")),
    ("output", re.compile(r"output of (?:the previous block|`(?P<expression>[^`]+)`)"
                          + _MEASURED_SUFFIX)),
    ("excerpt", re.compile(r"excerpt of (?:the previous block|`(?P<expression>[^`]+)`)")),
    ("error", re.compile(r"error of the previous block" + _MEASURED_SUFFIX)),
    ("signature", re.compile(r"signature of `(?P<expression>[^`]+)`")),
    ("synopsis", re.compile(r"synopsis of `srcad`")),
    ("commands", re.compile(r"commands run, output not shown")),
    ("not run", re.compile(r"not run: (?P<reason>\S.*)")),
    ("measured", re.compile(r"measured: (?P<reason>\S.*)")),
    ("console measured", re.compile(r"measured `(?P<measured>[^`]+)`")),
]


def parse_marker(text: str, line: int) -> Marker:
    for kind, pattern in _DIRECTIVES:
        match = pattern.fullmatch(text)
        if match:
            fields = match.groupdict()
            return Marker(kind=kind, line=line, expression=fields.get("expression"),
                          name=fields.get("name"), reason=fields.get("reason"),
                          measured=fields.get("measured"))
    raise DocumentError("line %d: unknown marker <!-- test: %s -->" % (line, text))


def read_document(document: str) -> tuple[list[Block], list[Table], list[str]]:
    """The fenced blocks and tables of a document, with their markers; and its problems."""
    lines = (ROOT / document).read_text().split("\n")
    blocks, tables, problems = [], [], []
    pending: Marker | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        marker_match = _MARKER.match(line)
        fence_match = _FENCE.match(line)
        if marker_match:
            if pending:
                problems.append("line %d: a marker is followed by another marker" % pending.line)
            try:
                pending = parse_marker(marker_match.group(1), index + 1)
            except DocumentError as error:
                problems.append(str(error))
                pending = None
            index += 1
            continue
        if fence_match:
            indent, fence, language = fence_match.groups()
            end = index + 1
            while end < len(lines) and not (
                    lines[end].strip().startswith(fence[0] * len(fence))
                    and lines[end].strip().strip(fence[0]) == ""):
                end += 1
            content = [text[len(indent):] if text.startswith(indent) else text.lstrip()
                       for text in lines[index + 1:end]]
            blocks.append(Block(document, index + 1, language, "\n".join(content) + "\n",
                                index + 1, end, indent, pending))
            pending = None
            index = end + 1
            continue
        if line.lstrip().startswith("|"):
            end = index
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                end += 1
            tables.append(Table(document, index + 1, "\n".join(lines[index:end]), pending))
            pending = None
            index = end
            continue
        if line.strip() and pending:
            problems.append("line %d: a marker must be right above a block or a table"
                            % pending.line)
            pending = None
        index += 1
    if pending:
        problems.append("line %d: a marker at the end of the document" % pending.line)
    for table in tables:
        if table.marker is not None and table.marker.kind != "measured":
            problems.append("line %d: only `measured: COMMAND` can mark a table" % table.line)
        if table.marker is None and re.search(r"\d×", table.text):
            problems.append("line %d: a table of measured ratios needs "
                            "<!-- test: measured: COMMAND -->" % table.line)
    return blocks, tables, problems


# ---------------------------------------------------------------------------------------
# Comparing outputs
# ---------------------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])"
                     r"|(?<![\w.])-?(?:nan|inf)(?![\w.])")
_NUMPY_SCALAR = re.compile(r"np\.(?:float|int|uint|complex|bool_?)\d*\(([^()]*)\)")


def _skeleton(text: str) -> tuple[str, list[str]]:
    numbers = _NUMBER.findall(text)
    return re.sub(r"\s+", "", _NUMBER.sub("#", text)), numbers


def _decimals(number: str) -> int:
    mantissa, _, exponent = number.lower().partition("e")
    fraction = mantissa.partition(".")[2]
    return len(fraction) - int(exponent or 0)


def values_match(shown: str, actual: str, approximate: bool = False) -> bool:
    """Whether two printed values agree: the same text around the numbers, and numbers
    equal to a relative 1e-12 (or, approximately, to the digits shown)."""
    shown_skeleton, shown_numbers = _skeleton(shown)
    actual_skeleton, actual_numbers = _skeleton(actual)
    if shown_skeleton != actual_skeleton:
        return False
    for shown_number, actual_number in zip(shown_numbers, actual_numbers, strict=True):
        if shown_number == actual_number:
            continue
        expected, got = float(shown_number), float(actual_number)
        if expected != expected or got != got:
            return False
        if approximate:
            tolerance = 0.5 * 10.0 ** -_decimals(shown_number)
        else:
            tolerance = RELATIVE_TOLERANCE * max(abs(expected), abs(got))
        if abs(expected - got) > tolerance * (1 + 1e-9):
            return False
    return True


def _gap_aware_match(shown_lines: list[str], actual_lines: list[str], anchored: bool) -> bool:
    """Whether shown_lines, where a line ``...`` stands for any lines, match actual_lines;
    anchored: the first and last groups sit at the start and the end."""
    groups, current = [], []
    for line in shown_lines:
        if line.strip() == "...":
            groups.append(current)
            current = []
        else:
            current.append(line)
    groups.append(current)
    position = 0
    for number, group in enumerate(groups):
        if not group:
            continue
        if anchored and number == 0:
            if actual_lines[:len(group)] != group:
                return False
            position = len(group)
            continue
        if anchored and number == len(groups) - 1:
            return (len(actual_lines) - len(group) >= position
                    and actual_lines[len(actual_lines) - len(group):] == group)
        for start in range(position, len(actual_lines) - len(group) + 1):
            if actual_lines[start:start + len(group)] == group:
                position = start + len(group)
                break
        else:
            return False
    return not anchored or len(groups) > 1 or position == len(actual_lines)


def _clean_lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.rstrip("\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    return lines


_TRACEBACK_MARKERS = re.compile(r"^\s*[\^~]*\^[\^~]+\s*$")


def _without_traceback_markers(lines: list[str]) -> list[str]:
    """A traceback without the lines marking the failing expression: 3.10 prints none,
    3.11 ``^^^^``, 3.13 ``~~~~^^^^`` (srcad's own single ``^`` under a column stays)."""
    if not lines or not lines[0].startswith("Traceback"):
        return lines
    return [line for line in lines if not _TRACEBACK_MARKERS.match(line)]


def output_matches(shown: str, actual: str, measured: str | None = None) -> bool:
    if measured:
        shown, actual = re.sub(measured, "<measured>", shown), re.sub(measured, "<measured>",
                                                                    actual)
    shown_lines, actual_lines = _clean_lines(shown), _clean_lines(actual)
    if shown_lines and shown_lines[0].startswith("Traceback"):
        shown_lines = _without_traceback_markers(shown_lines)
        actual_lines = _without_traceback_markers(actual_lines)
    return _gap_aware_match(shown_lines, actual_lines, anchored=True)


def excerpt_matches(shown: str, actual: str) -> bool:
    groups = [[]]
    for line in _clean_lines(shown):
        if not line.strip() or line.strip() == "...":
            groups.append([])
        else:
            groups[-1].append(line)
    lines = ["..."]
    for group in groups:
        if group:
            lines += group + ["..."]
    return _gap_aware_match(lines, _clean_lines(actual), anchored=False)


def diff(shown: str, actual: str) -> str:
    import difflib
    return "\n".join(difflib.unified_diff(
        _clean_lines(shown), _clean_lines(actual), "shown in the document", "produced now",
        lineterm=""))


# ---------------------------------------------------------------------------------------
# Values in comments
# ---------------------------------------------------------------------------------------

_VALUE_START = re.compile(r"""[-+]?[\d.]|[(\[{'"]|array\(|np\.|True\b|False\b|None\b""")
_COMPARED = re.compile(r"(?:(?P<name>[A-Za-z_][\w.]*(?:\[[^\]]*\])*) == |(?P<approx>≈) )?")
_SEPARATORS = re.compile(r":\s|;\s|,\s|\s\(|\s+—\s")


@dataclasses.dataclass
class ValueComment:
    lines: list[int]  # 1-based lines of the block the comment occupies
    column: int  # where its `#` is on the first line
    trailing: bool  # on the statement's own line
    name: str | None
    approximate: bool
    value: str  # as shown (joined over continuation lines)
    prose: str  # what follows the value


def _is_literal(node) -> bool:
    if isinstance(node, ast.Expression):
        return _is_literal(node.body)
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_literal(node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_literal(element) for element in node.elts)
    if isinstance(node, ast.Dict):
        return all(_is_literal(part) for part in node.keys + node.values if part is not None)
    if isinstance(node, ast.Name):
        return node.id in ("nan", "inf")
    if isinstance(node, ast.Call):
        function = ast.unparse(node.func)
        return ((function == "array" or function.startswith("np."))
                and all(_is_literal(argument) for argument in node.args)
                and all(_is_literal(keyword.value) or keyword.arg == "dtype"
                        for keyword in node.keywords))
    return False


def _split_value(text: str) -> tuple[str, str] | None:
    """(value, prose) for a comment that starts with a literal value, else None."""
    ends = [match.start() for match in _SEPARATORS.finditer(text)] + [len(text)]
    for end in sorted(ends, reverse=True):
        candidate = text[:end].strip()
        try:
            tree = ast.parse(candidate, mode="eval")
        except SyntaxError:
            continue
        if _is_literal(tree):
            return candidate, text[end:]
    return None


def _open_brackets(text: str) -> int:
    depth = 0
    for character in text:
        depth += character in "([{"
        depth -= character in ")]}"
    return depth


def value_comments(source: str, statements: list[tuple[int, int, bool]]
                   ) -> tuple[dict[int, list[ValueComment]], list[str]]:
    """Value comments per top-level simple statement (by index), and misplaced ones.

    statements: (first line, last line, whether simple) of each top-level statement;
    comments inside compound statements (a function's body) are prose."""
    comments: dict[int, str] = {}
    columns: dict[int, int] = {}
    code_lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string
            columns[token.start[0]] = token.start[1]
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                tokenize.DEDENT, tokenize.ENDMARKER):
            code_lines.update(range(token.start[0], token.end[0] + 1))
    owner: dict[int, int] = {}  # comment line -> statement index
    compound_lines: set[int] = set()
    for index, (first, last, simple) in enumerate(statements):
        if not simple:
            compound_lines.update(range(first, last + 1))
            continue
        for line in range(first, last + 1):
            if line in comments:
                owner[line] = index
        line = last + 1
        while line in comments and line not in code_lines:
            owner[line] = index
            line += 1
    found: dict[int, list[ValueComment]] = {}
    problems = []
    pending: ValueComment | None = None
    for line in sorted(comments):
        text = comments[line].lstrip("#").strip()
        if pending is not None and _open_brackets(pending.value) > 0:
            if line == pending.lines[-1] + 1 and owner.get(line) == owner.get(pending.lines[0]):
                pending.value += " " + text
                pending.lines.append(line)
                if _open_brackets(pending.value) <= 0:
                    _finish(pending, problems)
                continue
            problems.append("line %d: a value comment whose brackets never close"
                            % pending.lines[0])
        pending = None
        compared = _COMPARED.match(text)
        rest = text[compared.end():]
        if not _VALUE_START.match(rest) and not compared.group(0):
            continue
        if line in compound_lines:
            continue  # a comment inside a function body is prose
        if line not in owner:
            problems.append("line %d: a value comment must follow the statement it shows: %s"
                            % (line, text))
            continue
        comment = ValueComment([line], columns[line], line in code_lines,
                               compared.group("name"), bool(compared.group("approx")), rest, "")
        found.setdefault(owner[line], []).append(comment)
        pending = comment
        if _open_brackets(rest) <= 0:
            _finish(comment, problems)
    if pending is not None and _open_brackets(pending.value) > 0:
        problems.append("line %d: a value comment whose brackets never close" % pending.lines[0])
    return found, problems


def _finish(comment: ValueComment, problems: list[str]) -> None:
    split = _split_value(comment.value)
    if split is None:
        problems.append("line %d: a comment that starts like a value but is not one "
                        "(start prose comments with a word): %s"
                        % (comment.lines[0], comment.value))
        comment.value = ""
        return
    comment.value, comment.prose = split


# ---------------------------------------------------------------------------------------
# Running a document
# ---------------------------------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
    """What checking one block found: problems (empty when it agrees) and, for --update,
    the text the block's content or some of its lines should have now."""
    block: Block
    problems: list[str] = dataclasses.field(default_factory=list)
    new_content: str | None = None
    line_replacements: dict[int, list[str]] = dataclasses.field(default_factory=dict)
    checks: int = 0


@dataclasses.dataclass
class _Ran:
    block: Block
    stdout: str = ""
    error: BaseException | None = None
    filename: str | None = None


def stage(text: str, name: str) -> str:
    """The code after stage ``name`` in the output of ``srcad.source(..., stages=True)``."""
    parts = re.split(r"^# ---- after (\w+) ----\n", text, flags=re.M)
    stages = dict(zip(parts[1::2], parts[2::2], strict=True))
    if name not in stages:
        raise KeyError("no stage %r in this output (it has %s)" % (name, ", ".join(stages)))
    return stages[name].strip("\n") + "\n"


def read(path: str) -> str:
    """A file of the repository, for excerpts."""
    return (ROOT / path).read_text()


def example(name: str) -> types.ModuleType:
    """The module examples/NAME.py of the repository (imported once)."""
    module_name = "examples_" + name
    if module_name not in sys.modules:
        path = ROOT / "examples" / (name + ".py")
        module = types.ModuleType(module_name)
        module.__file__ = str(path)
        sys.modules[module_name] = module
        exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return sys.modules[module_name]


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor,
             ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try, ast.Match)


class DocumentRun:
    """Runs one document's blocks in order and checks each against what it shows."""

    def __init__(self, document: str):
        self.document = document
        self.blocks, self.tables, self.problems = read_document(document)
        self.directory = Path(tempfile.mkdtemp(prefix="srcad-docs-"))
        (self.directory / "examples").symlink_to(ROOT / "examples")
        self.namespace = {"__name__": "__main__", "__builtins__": builtins,
                          "__file__": str(self.directory / "__main__.py")}
        self.helpers = {"stage": stage, "read": read, "example": example}
        self.outcomes: dict[str, Outcome] = {}
        self._previous: _Ran | None = None

    def run(self) -> dict[str, Outcome]:
        saved_path, saved_modules, saved_directory = list(sys.path), set(sys.modules), os.getcwd()
        sys.path.insert(0, str(self.directory))
        os.chdir(self.directory)
        try:
            for number, block in enumerate(self.blocks):
                outcome = Outcome(block)
                try:
                    self._check(block, outcome, number)
                except Exception as error:  # a failure of this block only; go on
                    outcome.problems.append("".join(traceback.format_exception(error)))
                self.outcomes[block.ident] = outcome
        finally:
            os.chdir(saved_directory)
            sys.path[:] = saved_path
            for name in set(sys.modules) - saved_modules:
                module_file = getattr(sys.modules[name], "__file__", None) or ""
                if module_file.startswith(str(self.directory)):
                    del sys.modules[name]
            shutil.rmtree(self.directory, ignore_errors=True)
        return self.outcomes

    # -- normalizing what srcad prints ----------------------------------------------------

    def normalize(self, text: str) -> str:
        for directory in {str(self.directory), os.path.realpath(self.directory)}:
            text = text.replace(directory, SHOWN_DIRECTORY)
        text = text.replace(generated_files.source_directory(), "<tempdir>/srcad-<uid>")
        return re.sub(r"(<tempdir>/srcad-<uid>/\w+?_)[0-9a-f]{12}\.py", r"\1<hash>.py", text)

    # -- the blocks --------------------------------------------------------------------------

    def _check(self, block: Block, outcome: Outcome, number: int) -> None:
        marker = block.marker
        kind = marker.kind if marker else None
        if kind in (None, "file", "console measured"):
            if block.language == "python" and block.is_session and kind is None:
                self._run_session(block, outcome)
            elif block.language == "python" and kind in (None, "file"):
                self._run_python(block, outcome, number)
            elif block.language == "console" and kind in (None, "console measured"):
                self._run_console(block, outcome, marker.measured if marker else None)
            else:
                outcome.problems.append(
                    "a %s block that is not run must say so: <!-- test: not run: REASON -->"
                    " or another marker (tests/docs_check.py)" % (block.language or "plain"))
        elif kind in ("output", "excerpt", "error"):
            self._check_output(block, outcome, marker)
        elif kind == "signature":
            self._check_signature(block, outcome, marker.expression)
        elif kind == "synopsis":
            self._check_synopsis(block, outcome)
        elif kind == "commands":
            self._run_commands(block, outcome)
        elif kind == "measured":
            self._check_measured_command(outcome, marker.reason)

    def _check_measured_command(self, outcome: Outcome, command: str) -> None:
        scripts = [word for word in shlex.split(command) if word.endswith(".py")]
        if not scripts:
            outcome.problems.append("`measured:` names no script: %s" % command)
        for script in scripts:
            if not (ROOT / script).is_file() and not (ROOT / "benchmarks" / script).is_file():
                outcome.problems.append("the measuring script %s does not exist" % script)

    def _block_file(self, block: Block, number: int) -> Path:
        if block.marker and block.marker.kind == "file":
            return self.directory / block.marker.name
        stem = re.sub(r"\W", "_", Path(self.document).stem)
        return self.directory / ("%s_block%d.py" % (stem, number))

    def _run_python(self, block: Block, outcome: Outcome, number: int) -> None:
        path = self._block_file(block, number)
        path.write_text(block.text)
        ran = _Ran(block, filename=str(path))
        self._previous = ran
        tree = ast.parse(block.text, str(path))
        spans = [(statement.lineno, statement.end_lineno,
                  not isinstance(statement, _COMPOUND)) for statement in tree.body]
        comments, problems = value_comments(block.text, spans)
        outcome.problems += ["%s (block line %s)" % (problem, block.line) for problem in problems]
        if block.marker and block.marker.kind == "file":
            module = types.ModuleType(path.stem)
            module.__file__ = str(path)
            sys.modules[path.stem] = module
            namespace = module.__dict__
        else:
            module, namespace = None, self.namespace
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            try:
                for index, statement in enumerate(tree.body):
                    value = None
                    if isinstance(statement, ast.Expr):
                        code = compile(ast.Expression(statement.value), str(path), "eval")
                        value = eval(code, namespace)
                    else:
                        code = compile(ast.Module([statement], []), str(path), "exec")
                        exec(code, namespace)
                    for comment in comments.get(index, []):
                        self._check_value(block, outcome, comment, statement, value, namespace)
            except Exception as error:
                if statement is not tree.body[-1]:
                    raise  # only the last statement may raise (for an error block below)
                ran.error = error
        ran.stdout = stdout.getvalue()
        if module is not None:
            public = getattr(module, "__all__", None) or [
                name for name in vars(module) if not name.startswith("_")]
            self.namespace.update({name: getattr(module, name) for name in public})
        next_block = self.blocks[number + 1] if number + 1 < len(self.blocks) else None
        if ran.error is not None and not (next_block and next_block.marker
                                          and next_block.marker.kind == "error"):
            outcome.problems.append("the block raised:\n" + "".join(
                traceback.format_exception(ran.error)))

    def _check_value(self, block, outcome, comment: ValueComment, statement, value,
                     namespace) -> None:
        if not comment.value:
            return
        outcome.checks += 1
        where = "line %d" % (block.line + comment.lines[0])
        if comment.name:
            try:
                value = eval(comment.name, namespace)
            except Exception as error:
                outcome.problems.append("%s: cannot read %s: %r" % (where, comment.name, error))
                return
        elif not isinstance(statement, ast.Expr):
            outcome.problems.append("%s: a value comment after an assignment must name the "
                                    "variable: # NAME == VALUE" % where)
            return
        actual = self.normalize(repr(value))
        if comment.name or comment.approximate:
            actual = _NUMPY_SCALAR.sub(r"\1", actual)
        if values_match(comment.value, actual, comment.approximate):
            if not comment.approximate and _skeleton(comment.value)[1] != _skeleton(actual)[1]:
                self._replace_value(block, outcome, comment, actual)  # the last bit moved
            return
        outcome.problems.append("%s: the comment shows %s%s but it is %s" % (
            where, comment.name + " == " if comment.name else "", comment.value, actual))
        if comment.approximate:
            return
        self._replace_value(block, outcome, comment, actual)

    def _replace_value(self, block, outcome, comment: ValueComment, actual: str) -> None:
        """Record the document lines that would show `actual` instead (for --update)."""
        file_lines = (ROOT / block.document).read_text().split("\n")
        first = block.first_content_line + comment.lines[0] - 1
        lines = [file_lines[block.first_content_line + number - 1] for number in comment.lines]
        prefix = (comment.name + " == ") if comment.name else ""
        actual_lines = actual.split("\n")
        if comment.trailing:
            if len(actual_lines) > 1 or len(lines) > 1:
                return  # a multi-line value cannot go on the statement's line: fix by hand
            head = lines[0][:len(block.indent) + comment.column]
            new = [head + "# " + prefix + actual + comment.prose]
        else:
            head = lines[0][:len(block.indent) + comment.column] + "# "
            new = [head + prefix + actual_lines[0]]
            new += [" " * (len(head) - 2) + "# " + " " * len(prefix) + line
                    for line in actual_lines[1:]]
            new[-1] += comment.prose
        outcome.line_replacements[first] = [len(lines)] + new

    def _run_session(self, block: Block, outcome: Outcome) -> None:
        statements, expected = [], []
        for line in block.text.rstrip("\n").split("\n"):
            if line.startswith(">>> "):
                statements.append([line[4:]])
            elif line.startswith("... ") or line == "...":
                statements[-1].append(line[4:])
            else:
                expected.append(line)
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            for statement in statements:
                code = compile("\n".join(statement) + "\n", "<session>", "single")
                exec(code, self.namespace)
        actual = self.normalize(stdout.getvalue())
        outcome.checks += 1
        self._previous = _Ran(block, stdout=actual)
        if not output_matches("\n".join(expected), actual):
            outcome.problems.append("the session prints something else:\n"
                                    + diff("\n".join(expected), actual))
            session = [line for line in block.text.rstrip("\n").split("\n")
                       if line.startswith((">>>", "..."))]
            outcome.new_content = "\n".join(session) + "\n" + actual.rstrip("\n") + "\n"

    def _shell(self, command: str) -> subprocess.CompletedProcess:
        environment = dict(os.environ)
        environment["PATH"] = os.path.dirname(sys.executable) + os.pathsep + environment["PATH"]
        environment["NO_COLOR"] = "1"
        environment["PYTHONPATH"] = str(ROOT)
        return subprocess.run(command, shell=True, cwd=self.directory, env=environment,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=600)

    def _run_console(self, block: Block, outcome: Outcome, measured: str | None) -> None:
        commands: list[tuple[str, list[str]]] = []
        for line in block.text.rstrip("\n").split("\n"):
            if line.startswith("$ "):
                commands.append((line[2:], []))
            elif commands:
                commands[-1][1].append(line)
            else:
                outcome.problems.append("a console block must start with `$ COMMAND`")
                return
        new_content = []
        for command, shown in commands:
            result = self._shell(command)
            actual = self.normalize(result.stdout)
            outcome.checks += 1
            if not output_matches("\n".join(shown), actual, measured):
                outcome.problems.append("`%s` prints something else:\n%s"
                                        % (command, diff("\n".join(shown), actual)))
                if measured:
                    actual = _keep_measurements(measured, "\n".join(shown), actual)
            new_content += ["$ " + command] + _clean_lines(actual)
        if outcome.problems:
            outcome.new_content = "\n".join(new_content) + "\n"
        self._previous = _Ran(block, stdout="")

    def _run_commands(self, block: Block, outcome: Outcome) -> None:
        for command in block.text.strip().split("\n"):
            command = command.split("  #")[0].strip()
            if not command:
                continue
            result = self._shell(command)
            outcome.checks += 1
            if result.returncode != 0:
                outcome.problems.append("`%s` failed (exit status %d):\n%s"
                                        % (command, result.returncode, result.stdout))

    def _check_output(self, block: Block, outcome: Outcome, marker: Marker) -> None:
        outcome.checks += 1
        if marker.expression is not None:
            namespace = {"srcad": srcad, "np": numpy}
            namespace.update(self.namespace)
            namespace.update(self.helpers)
            value = eval(marker.expression, namespace)
            actual = value if isinstance(value, str) else str(value)
        else:
            previous = self._previous
            if previous is None:
                outcome.problems.append("no block ran before this one")
                return
            if marker.kind == "error":
                if previous.error is None:
                    outcome.problems.append("the previous block (line %d) raised nothing"
                                            % previous.block.line)
                    return
                actual = self._error_text(previous, block.text)
            else:
                actual = previous.stdout
        actual = self.normalize(actual)
        if marker.kind == "excerpt":
            if not excerpt_matches(block.text, actual):
                outcome.problems.append("these lines are not in the output (in this order):\n"
                                        + block.text + "\nThe output is:\n" + actual)
            return
        if not output_matches(block.text, actual, marker.measured):
            outcome.problems.append("the block differs from the output:\n"
                                    + diff(block.text, actual))
            if "\n...\n" not in "\n" + block.text and not marker.measured:
                outcome.new_content = actual.rstrip("\n") + "\n"

    def _error_text(self, ran: _Ran, shown: str) -> str:
        error = ran.error
        if not shown.startswith("Traceback"):
            return str(error)
        frames = error.__traceback__
        while frames is not None and frames.tb_frame.f_code.co_filename != ran.filename:
            frames = frames.tb_next
        return "".join(traceback.format_exception(type(error), error, frames))

    def _check_signature(self, block: Block, outcome: Outcome, expression: str) -> None:
        outcome.checks += 1
        target = eval(expression, {"srcad": srcad})
        text = " ".join(line.split("#")[0].strip() for line in block.text.strip().split("\n"))
        start = text.index("(")
        depth, end = 0, start
        for end in range(start, len(text)):  # the parenthesis closing the first one
            depth += (text[end] in "([{") - (text[end] in ")]}")
            if depth == 0:
                break
        parameters = text[start + 1:end]
        definitions: dict = {}
        exec("def f(%s): pass" % parameters, definitions)
        shown_signature = inspect.signature(definitions["f"])
        actual = inspect.signature(target)
        actual_parameters = [parameter.replace(annotation=inspect.Parameter.empty)
                             for parameter in actual.parameters.values()]
        shown_names = list(shown_signature.parameters)
        actual_parameters = [parameter for parameter in actual_parameters
                             if parameter.kind != parameter.VAR_KEYWORD
                             or parameter.name in shown_names]
        actual_text = str(inspect.Signature(actual_parameters))
        shown_text = str(shown_signature)
        if actual_text != shown_text:
            outcome.problems.append("%s has the signature %s, the document shows %s"
                                    % (expression, actual_text, shown_text))

    def _check_synopsis(self, block: Block, outcome: Outcome) -> None:
        commands: dict[str, str] = {}
        current = None
        for line in block.text.split("\n"):
            words = line.split()
            if words[:1] == ["srcad"] and len(words) > 1:
                current = words[1]
                commands[current] = line
            elif current and line.strip():
                commands[current] += " " + line
        for command, text in commands.items():
            outcome.checks += 1
            help_text = self._shell("srcad %s --help" % command).stdout
            usage = help_text.split("\n\n")[0]
            if command == "cache":
                accepted = set(re.findall(r"^    (\w+)  ", help_text, re.M))
                shown = set(re.findall(r"\w+", text.split("cache", 1)[1]))
            else:
                accepted = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", usage)) - {"-h"}
                shown = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", text))
                accepted |= _long_names(help_text, accepted)
                shown = {_long_names(help_text, {option}).pop()
                         if _long_names(help_text, {option}) else option for option in shown}
                accepted = {_long_names(help_text, {option}).pop()
                            if _long_names(help_text, {option}) else option
                            for option in accepted}
            if shown != accepted:
                outcome.problems.append(
                    "srcad %s accepts %s; the synopsis shows %s" % (
                        command, ", ".join(sorted(accepted)), ", ".join(sorted(shown))))


def _keep_measurements(pattern: str, shown: str, actual: str) -> str:
    """`actual` with the measurements `shown` has (for --update: they are not rerun)."""
    kept = iter(re.findall(pattern, shown))
    return re.sub(pattern, lambda match: next(kept, match.group(0)), actual)


def _long_names(help_text: str, options: set[str]) -> set[str]:
    """The long spelling of short options (-o -> --output) in a command's --help."""
    long_names = set()
    for option in options:
        if option.startswith("--"):
            continue
        match = re.search(r"^\s+%s(?: \S+)?, (--[\w-]+)" % re.escape(option), help_text, re.M)
        if match:
            long_names.add(match.group(1))
    return long_names


# ---------------------------------------------------------------------------------------
# Updating a document
# ---------------------------------------------------------------------------------------

def update(document: str, outcomes: dict[str, Outcome]) -> int:
    """Rewrite the outputs shown in `document` that differ; return how many were."""
    lines = (ROOT / document).read_text().split("\n")
    edits = []  # (first line index, number of lines replaced, new lines)
    for outcome in outcomes.values():
        block = outcome.block
        if outcome.new_content is not None:
            content = [block.indent + line if line else line
                       for line in outcome.new_content.rstrip("\n").split("\n")]
            edits.append((block.first_content_line,
                          block.end_content_line - block.first_content_line, content))
        for first, replacement in outcome.line_replacements.items():
            edits.append((first, replacement[0], replacement[1:]))
    for first, count, new in sorted(edits, reverse=True):
        lines[first:first + count] = new
    if edits:
        (ROOT / document).write_text("\n".join(lines))
    return len(edits)


def run_isolated(documents: tuple[str, ...]) -> dict[str, dict[str, dict]]:
    """Run each document in a process of its own (all at once), so that what its code
    registers (templates, modules, srcad's caches) cannot reach other tests or documents:
    {document: {block ident: {problems, checks}}}."""
    processes = {document: subprocess.Popen(
        [sys.executable, "-m", "tests.docs_check", "--json", document], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for document in documents}
    results = {}
    for document, process in processes.items():
        stdout, stderr = process.communicate(timeout=900)
        if process.returncode != 0:
            raise RuntimeError("checking %s failed:\n%s%s" % (document, stdout, stderr))
        results[document] = json.loads(stdout)
    return results


def main(arguments: list[str]) -> int:
    update_files = "--update" in arguments
    documents = [argument for argument in arguments if not argument.startswith("--")]
    if "--json" in arguments:
        (document,) = documents
        outcomes = DocumentRun(document).run()
        json.dump({ident: {"problems": outcome.problems, "checks": outcome.checks}
                   for ident, outcome in outcomes.items()}, sys.stdout)
        return 0
    failed = 0
    for document in documents or DOCUMENTS:
        run = DocumentRun(document)
        outcomes = run.run()
        for problem in run.problems:
            print("%s: %s" % (document, problem))
        for ident, outcome in outcomes.items():
            if outcome.problems:
                failed += 1
                print("FAILED %s\n%s\n" % (ident, "\n".join(outcome.problems)))
        kinds: dict[str, int] = {}
        for outcome in outcomes.values():
            kind = outcome.block.ident.split(" ", 1)[1]
            kinds[kind] = kinds.get(kind, 0) + 1
        print("%s: %d blocks (%s), %d comparisons, %d tables (%d measured)" % (
            document, len(outcomes), ", ".join("%d %s" % (count, kind) for kind, count in
                                               sorted(kinds.items())),
            sum(outcome.checks for outcome in outcomes.values()), len(run.tables),
            sum(1 for table in run.tables if table.marker)))
        if update_files:
            print("%s: %d outputs rewritten" % (document, update(document, outcomes)))
    return 1 if failed and not update_files else 0


if __name__ == "__main__":
    os.environ.setdefault("SRCAD_CACHE", "0")
    sys.exit(main(sys.argv[1:]))
