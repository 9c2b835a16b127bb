"""parse reads a function's lines by indentation (parse._definition_lines), not by
tokenizing them as inspect.getblock does: the lines it gives are inspect's, for the test
corpus's functions and for the layouts where indentation alone would mislead (a string or
bracket going back to column 0), where it falls back to inspect."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import textwrap

import pytest

from srcad import parse

MODULES = ["tests.alias_functions", "tests.call_functions", "tests.comprehension_functions",
           "tests.construct_functions", "tests.container_argument_functions",
           "tests.container_functions", "tests.control_flow_functions",
           "tests.inplace_functions", "tests.math_functions", "tests.mode_functions",
           "tests.template_combos", "tests._golden_functions"]


def _functions_of(module):
    for value in vars(module).values():
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            yield value
        elif inspect.isclass(value) and value.__module__ == module.__name__:
            yield from (v for v in vars(value).values() if inspect.isfunction(v))


def _agrees_with_inspect(function):
    parsed = parse.parse_function(function)
    lines, first = inspect.getsourcelines(function.__code__)
    assert parsed.raw_source == "".join(lines), function.__qualname__
    assert parsed.line_offset == first - 1


def test_the_lines_of_the_corpus_functions_are_inspects():
    count = 0
    for name in MODULES:
        for function in _functions_of(importlib.import_module(name)):
            if function.__name__ == "<lambda>" or function.__code__.co_filename != getattr(
                    importlib.import_module(name), "__file__", None):
                continue  # (a lambda has its own reader; a dataclass's __init__ no file)
            _agrees_with_inspect(function)
            count += 1
    assert count > 500


LAYOUTS = '''
import numpy as np


def plain(x):
    y = x * 2.0
    # a comment at the end of the body
        # and one indented deeper

    return y
    # trailing comments are not the function's
# nor this one


def header_at_column_zero(
x,
y=1.0):
    return x * y


def docstring_at_column_zero(x):
    """A docstring
whose lines go back to column 0
    """
    return x + 1.0


def bracket_at_column_zero(x):
    y = np.sum([x,
x * 2.0])
    return y


def continued_at_column_zero(x):
    y = x + \\
1.0
    return y


def one_line(x): return x * 3.0
z = 1.0


def decorated_by(value):
    def decorate(function):
        return function
    return decorate


@decorated_by(
    value=2.0,
)
def decorated(x):
    return x - 1.0


class Holder:
    def method(self, x):
        if x > 0:
            return x
        return -x

    def last_method(self, x):
        return x * x
def at_the_end(x):
    return x'''


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    path = tmp_path_factory.mktemp("layouts") / "parse_layouts.py"
    path.write_text(textwrap.dedent(LAYOUTS))
    spec = importlib.util.spec_from_file_location("parse_layouts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, by_indentation", [
    ("plain", False),  # comments after the body, some as deep as it: inspect's tokens tell
    ("header_at_column_zero", False),  # cut short in the header: refused by the parse
    ("docstring_at_column_zero", False),
    ("bracket_at_column_zero", False),
    ("continued_at_column_zero", False),
    ("one_line", True), ("decorated", True), ("Holder.method", True),
    ("Holder.last_method", True), ("at_the_end", True)])
def test_the_lines_of_each_layout_are_inspects(layouts, name, by_indentation):
    function = layouts
    for part in name.split("."):
        function = getattr(function, part)
    _agrees_with_inspect(function)
    assert parse.parse_function(function).tree.name == function.__name__
    file_lines, start = inspect.findsource(function)
    lines = parse._definition_lines(file_lines, start)
    assert (lines is not None and parse._parsed(lines) is not None) == by_indentation
