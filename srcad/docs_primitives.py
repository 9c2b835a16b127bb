"""docs/primitives.md, written from the template registry: every function srcad knows.

``python -m srcad.docs_primitives`` rewrites docs/primitives.md and the count of
differentiable functions README.md states; ``--check`` only says whether they are up to
date (tests/test_primitives_doc.py fails when they are not). For each primitive the page
gives its name, its modes (adjoint: reverse mode, tangent: forward mode), what its record
says (linear in which arguments, non-differentiable), the template file that declares it
and, when that file has one, the comment written right above its declaration as a one-line
note.
"""

from __future__ import annotations

import argparse
import linecache
import operator
import re
import sys
from pathlib import Path

from . import registry
from .analysis import operations

# how users write the operators (registered under the operator module's functions)
_OPERATOR_SPELLING = {
    operator.add: "a + b", operator.sub: "a - b", operator.mul: "a * b",
    operator.truediv: "a / b", operator.floordiv: "a // b", operator.mod: "a % b",
    operator.pow: "a ** b", operator.matmul: "a @ b", operator.neg: "-a", operator.pos: "+a",
    operator.getitem: "a[index]", operator.lt: "a < b", operator.le: "a <= b",
    operator.gt: "a > b", operator.ge: "a >= b", operator.eq: "a == b", operator.ne: "a != b",
    operator.is_: "a is b", operator.is_not: "a is not b", operator.contains: "b in a",
    operator.not_: "not a", operator.invert: "~a", operator.and_: "a & b",
    operator.or_: "a | b", operator.xor: "a ^ b", operator.lshift: "a << b",
    operator.rshift: "a >> b",
}
# srcad's own markers for syntax (a copy, a record's field, an f-string)
_SYNTAX_SPELLING = {
    operations.IDENTITY: "y = x (a copy)", operations.ATTRIBUTE: "record.field",
    operations.FORMATTED: 'f"{a}"', operations.TUPLE: "(a, b)",
}
_README_COUNT = re.compile(r"(srcad differentiates \*\*)\d+(\*\* functions)")


def is_internal(primitive: registry.Primitive) -> bool:
    """srcad's own helpers (generated code calls them) and syntax markers."""
    module = getattr(primitive.obj, "__module__", None) or ""
    return module.startswith("srcad.") and primitive.obj not in _SYNTAX_SPELLING


def is_differentiable(primitive: registry.Primitive) -> bool:
    return primitive.differentiable and primitive.adjoint is not None


def differentiable_count() -> int:
    """How many functions, methods and operators users call srcad differentiates."""
    return sum(1 for p in registry.registered() if is_differentiable(p) and not is_internal(p))


def render() -> str:
    """The text of docs/primitives.md for the templates registered now."""
    primitives = registry.registered()
    differentiable = [p for p in primitives if is_differentiable(p) and not is_internal(p)]
    forward_only = [p for p in primitives if p.differentiable and p.adjoint is None
                    and p.tangent is not None and not is_internal(p)]
    constant = [p for p in primitives if not p.differentiable and not is_internal(p)]
    helpers = [p for p in primitives if is_internal(p) and (p.adjoint or p.tangent)]
    lines = [
        "# Primitives",
        "",
        "<!-- Generated from srcad's template registry by `python -m srcad.docs_primitives`;",
        "     tests/test_primitives_doc.py fails when this page is out of date. -->",
        "",
        "Every function, method and operator srcad differentiates without reading its "
        "source (calls to your own functions are inlined and need none). **%d** are "
        "differentiated; %d more are known to give results that carry no derivative." % (
            len(differentiable), len(constant)),
        "",
        "- **Modes**: *adjoint* is the reverse-mode template (`grad`, `vjp`), *tangent* "
        "the forward-mode one (`jvp`, `hvp`, `hessian` need both).",
        "- **Facts**: *linear in x*: the function is linear in that argument (a zero there "
        "makes the result zero, and its tangent is the function of the tangent).",
        "- **Note**: the comment above the primitive's declaration in its template file.",
        "",
        "To add one, see [templates.md](templates.md).",
        "",
    ]
    for title, group in _by_file(differentiable + forward_only):
        lines += ["## %s" % title, "", "| primitive | modes | facts | note |", "|---|---|---|---|"]
        lines += [_row(p) for p in group]
        lines.append("")
    lines += ["## Results without a derivative", "",
              "Calls to these are run as they are; their results carry no derivative "
              "(comparisons, rounding, indices, shapes, constructors of constant arrays).", ""]
    lines.append(", ".join("`%s`" % _name(p) for p in sorted(constant, key=_name)) + ".")
    lines += ["", "## srcad's runtime helpers", "",
              "Generated code calls these (`rt.*`); their templates make derivatives of "
              "generated code (`hvp`, `hessian`, the gradient of a gradient) possible.", "",
              "| helper | modes | facts | note |", "|---|---|---|---|"]
    lines += [_row(p) for p in sorted(helpers, key=_name)]
    return "\n".join(lines) + "\n"


def _name(primitive) -> str:
    obj = primitive.obj
    if obj in _SYNTAX_SPELLING:
        return _SYNTAX_SPELLING[obj]
    if obj in _OPERATOR_SPELLING:
        return "%s (operator.%s)" % (_OPERATOR_SPELLING[obj], obj.__name__)
    name = primitive.name
    return "rt." + name[len("srcad.runtime."):] if name.startswith("srcad.runtime.") else name


def _declaration(primitive):
    """(file, line) where the primitive's first template is declared, or None."""
    template = primitive.adjoint or primitive.tangent
    if template is None:
        return None
    file, _, line = template.where.rpartition(":")
    return file, int(line)


def _by_file(primitives):
    """[(title, primitives in the order of their declarations)], one per template file."""
    files = {}
    for primitive in primitives:
        file, line = _declaration(primitive)
        files.setdefault(file, []).append((line, primitive))
    groups = []
    for file in sorted(files, key=lambda f: Path(f).name):
        title = "%s: %s" % (_relative(file), _summary(file))
        # by line, then in the order of registration (np.sin before math.sin)
        ordered = sorted(files[file], key=lambda entry: entry[0])
        groups.append((title.rstrip(": "), [primitive for _, primitive in ordered]))
    return groups


def _relative(file) -> str:
    path = Path(file)
    package = Path(registry.__file__).resolve().parent
    try:
        return "srcad/" + path.resolve().relative_to(package).as_posix()
    except ValueError:
        return path.name


def _summary(file) -> str:
    """The first sentence of a template module's docstring."""
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == file:
            doc = (module.__doc__ or "").strip()
            first = " ".join(doc.split("\n\n")[0].split())
            return first.split(". ")[0].rstrip(".")
    return ""


def _row(primitive) -> str:
    modes = ", ".join(kind for kind in ("adjoint", "tangent") if getattr(primitive, kind))
    facts = []
    template = primitive.adjoint or primitive.tangent
    if primitive.linear_in and template is not None:
        parameters = list(template.signature.parameters)[1:]
        linear = [parameters[i] for i in primitive.linear_in if i < len(parameters)]
        facts.append("linear in %s" % ", ".join("`%s`" % p for p in linear))
    location = _declaration(primitive)
    note = _note(*location) if location else ""
    return "| `%s` | %s | %s | %s |" % (_name(primitive), modes, "; ".join(facts),
                                        note.replace("|", "\\|"))


def _note(file, line) -> str:
    """The comment block right above line ``line`` of ``file``, as one line of text."""
    comments = []
    number = line - 1
    while number > 0:
        text = linecache.getline(file, number).strip()
        if not text.startswith("#") or text.startswith("# ----"):
            break
        comments.insert(0, text.lstrip("# "))
        number -= 1
    return " ".join(" ".join(comments).split())


def update_readme(text: str, count: int) -> str:
    """README's text with the count of differentiable functions set to ``count``."""
    return _README_COUNT.sub(lambda m: "%s%d%s" % (m.group(1), count, m.group(2)), text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m srcad.docs_primitives",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                        help="the repository (holding docs/ and README.md)")
    parser.add_argument("--check", action="store_true",
                        help="only check: exit status 1 when a file is out of date")
    options = parser.parse_args(argv)
    root = Path(options.root)
    page, readme = root / "docs" / "primitives.md", root / "README.md"
    wanted = {page: render(),
              readme: update_readme(readme.read_text(encoding="utf-8"), differentiable_count())}
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    for path in stale:
        if options.check:
            print("%s is out of date: run python -m srcad.docs_primitives" % path)
        else:
            path.write_text(wanted[path], encoding="utf-8")
            print("wrote %s" % path)
    return 1 if options.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
