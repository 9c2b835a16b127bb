"""The documentation shows what srcad does now: its code runs, and every output it shows
(generated code, values, errors, command output) is what srcad produces.

One test per fenced block of README.md and docs/*.md (the conventions, and the markers that
say how a block is checked, are in tests/docs_check.py). When a change alters an output for
a good reason, regenerate the documents with

    python -m tests.docs_check --update [README.md docs/api.md ...]

and review the diff. The second half tests the checker itself: that it notices drift.
"""

import functools
import textwrap

import pytest

from tests import docs_check

UPDATE_HINT = ("\n\nIf srcad's new output is right, regenerate the document: "
               "python -m tests.docs_check --update %s (then review the diff).")


@functools.cache
def _all_outcomes() -> dict:
    return docs_check.run_isolated(docs_check.DOCUMENTS)


def _outcomes(document: str) -> dict:
    """Each document runs once, in order, in a process of its own; its blocks' tests read
    the outcome."""
    return _all_outcomes()[document]


def _blocks():
    for document in docs_check.DOCUMENTS:
        for block in docs_check.read_document(document)[0]:
            yield pytest.param(document, block.ident, id=block.ident)


@pytest.mark.parametrize("document, ident", list(_blocks()))
def test_block_shows_what_srcad_does(document, ident):
    outcome = _outcomes(document)[ident]
    assert not outcome["problems"], "\n".join(outcome["problems"]) + UPDATE_HINT % document


@pytest.mark.parametrize("document", docs_check.DOCUMENTS)
def test_every_block_and_table_says_how_it_is_checked(document):
    problems = docs_check.read_document(document)[2]
    assert not problems, "\n".join(problems)


# generated from srcad's registry, and checked against it by tests/test_primitives_doc.py
GENERATED_DOCUMENTS = {"docs/primitives.md"}


def test_every_document_is_checked():
    documents = {"README.md"} | {"docs/" + path.name
                                 for path in (docs_check.ROOT / "docs").glob("*.md")}
    assert documents - GENERATED_DOCUMENTS == set(docs_check.DOCUMENTS)


@pytest.mark.parametrize("document", docs_check.DOCUMENTS)
def test_document_checks_something(document):
    """A document whose markers all said `not run` would pass while checking nothing."""
    outcomes = _outcomes(document).values()
    assert sum(outcome["checks"] for outcome in outcomes) >= 5


# ---------------------------------------------------------------------------------------
# The checker notices drift
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shown, actual, approximate, agree", [
    ("(4.5399481338188785, 10.337553186496805)", "(4.539948133818879, 10.337553186496798)",
     False, True),  # the last bit of a float
    ("(4.53994813381, 10.337553186496805)", "(4.539948133818879, 10.337553186496798)",
     False, False),
    ("array([0.26894142, 0.5, 0.88079708])", "array([0.26894142, 0.5       , 0.88079708])",
     False, True),
    ("array([0.26894142, 0.5, 0.88079708])", "array([0.26894142, 0.5       ])", False, False),
    ("0.5", "np.float64(0.5)", False, False),  # a NumPy scalar is not shown as a float
    ("[1.0]", "(1.0,)", False, False),
    ("0.86", "0.8599999999999994", True, True),
    ("0.86", "0.8549", True, False),
    ("array([-0.,  0.,  4.])", "array([-0.,  0.,  4.])", False, True),
])
def test_values_are_compared_as_printed(shown, actual, approximate, agree):
    assert docs_check.values_match(shown, actual, approximate) == agree


def test_value_comments_are_told_from_prose():
    source = textwrap.dedent("""\
        f(1.0)             # wrt=0: the gradient
        # array([[1., 2.],
        #        [3., 4.]])
        g(2.0)             # 9.0: y is held constant
        value, d = h()     # value == 0.25
        k(3.0)             # ≈ 0.86, rounded
        check()            # True, or AssertionError naming the argument

        def inner():
            return 1   # 2 is not a value comment here: it is in a function's body
        """)
    tree = __import__("ast").parse(source)
    spans = [(node.lineno, node.end_lineno, not isinstance(node, docs_check._COMPOUND))
             for node in tree.body]
    found, problems = docs_check.value_comments(source, spans)
    assert problems == []
    shown = {index: [(comment.name, comment.approximate, comment.value, comment.prose)
                     for comment in comments] for index, comments in found.items()}
    assert shown == {
        0: [(None, False, "array([[1., 2.], [3., 4.]])", "")],
        1: [(None, False, "9.0", ": y is held constant")],
        2: [("value", False, "0.25", "")],
        3: [(None, True, "0.86", ", rounded")],
        4: [(None, False, "True", ", or AssertionError naming the argument")],
    }


@pytest.mark.parametrize("source, problem", [
    ("f(1.0)   # 2 H·g, by reverse over reverse\n", "starts like a value"),
    ("f(1.0)   # (gradient, H·v)\n", "starts like a value"),
    ("f(1.0)\n\n# 3.0\n", "must follow the statement"),
    ("f(1.0)\n# array([1.,\n", "never close"),
])
def test_comments_that_look_like_values_must_be_values(source, problem):
    tree = __import__("ast").parse(source)
    spans = [(node.lineno, node.end_lineno, True) for node in tree.body]
    problems = docs_check.value_comments(source, spans)[1]
    assert len(problems) == 1 and problem in problems[0], problems


def test_excerpts_and_gaps():
    output = "def f(x):\n    a = 1\n    b = 2\n    c = 3\n    return c\n"
    assert docs_check.excerpt_matches("    b = 2\n    c = 3\n", output)
    assert docs_check.excerpt_matches("    a = 1\n    ...\n    c = 3\n", output)
    assert not docs_check.excerpt_matches("    c = 3\n    b = 2\n", output)
    assert docs_check.output_matches("def f(x):\n...\n    return c\n", output)
    assert not docs_check.output_matches("def f(x):\n...\n    return b\n", output)
    assert not docs_check.output_matches("    a = 1\n...\n    return c\n", output)


DRIFTED = '''\
# A document

```python
import numpy as np
import srcad


def cube(x):
    return x * x * x


srcad.grad(cube)(2.0)   # 11.0: wrong
print(srcad.source(cube, example_args=(2.0,)))
```

<!-- test: output of the previous block -->
```python
def grad_cube(x):
    return 0.0
```

```bash
echo not marked
```

<!-- test: signature of `srcad.hessian` -->
```python
srcad.hessian(function, wrt=1)
```
'''


def test_a_drifted_document_fails_and_update_fixes_it(tmp_path):
    document = tmp_path / "drifted.md"
    document.write_text(DRIFTED)
    outcomes = list(docs_check.DocumentRun(str(document)).run().values())
    problems = ["\n".join(outcome.problems) for outcome in outcomes]
    assert "the comment shows 11.0 but it is 12.0" in problems[0]
    assert "-    return 0.0" in problems[1]
    assert "must say so" in problems[2]
    assert "srcad.hessian has the signature" in problems[3]

    docs_check.update(str(document), dict(enumerate(outcomes)))
    updated = document.read_text()
    assert "srcad.grad(cube)(2.0)   # 12.0: wrong" in updated
    outcomes = list(docs_check.DocumentRun(str(document)).run().values())
    assert [bool(outcome.problems) for outcome in outcomes] == [False, False, True, True]
