"""Errors srcad raises on purpose.

Every one is a :class:`SrcadError`. When an error is about a place in the
user's code it carries a :class:`Location` and renders as::

    path/to/file.py:12:8: error: <what is wrong>
        y = np.frobnicate(x)
            ^
    <what to do about it>
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A place in a source file: 1-based line, 0-based column, and that line's text."""

    filename: str
    lineno: int
    col: int
    line: str = ""

    def render(self) -> str:
        text = self.line.rstrip("\n")
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        caret_col = max(self.col - indent, 0)
        return "    %s\n    %s^" % (stripped, " " * caret_col)

    def __str__(self) -> str:
        return "%s:%d:%d" % (self.filename, self.lineno, self.col)


class SrcadError(Exception):
    """Base class of every error srcad raises on purpose."""

    def __init__(self, message: str, location: Location | None = None, hint: str = ""):
        self.message = message
        self.location = location
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.location is not None:
            parts.append("%s: error: %s" % (self.location, self.message))
            if self.location.line:
                parts.append(self.location.render())
        else:
            parts.append(self.message)
        if self.hint:
            parts.append(self.hint)
        return "\n".join(parts)


class UnsupportedSyntaxError(SrcadError):
    """The function uses a construct srcad cannot differentiate (yet)."""


class MissingTemplateError(SrcadError):
    """A differentiated value flows through a call that has no gradient template."""


class TemplateError(SrcadError):
    """A gradient template is malformed, or cannot be applied to a call."""


class NonScalarOutputError(SrcadError):
    """``grad`` was asked for the gradient of a function whose output is not a scalar."""


class SourceUnavailableError(SrcadError):
    """The function's source cannot be read (a builtin, a C function, code typed at a prompt)."""


class InvalidArgumentError(SrcadError):
    """srcad's own API was called with arguments it cannot use (a bad ``wrt``, ...)."""


class UnsupportedOperationError(SrcadError):
    """A primitive was called in a way its derivative does not cover (found at run time)."""


class NondifferentiableArgumentError(InvalidArgumentError):
    """A derivative was asked with respect to an argument that has none (a string, a function)."""


class AliasedWriteError(SrcadError):
    """A write into an array or list that another name still to be read shares (found at run time).

    ``z = y[1:]; z[0] = 3.0`` changes ``y`` in NumPy; srcad's generated code
    computes with values and would not see that, so it refuses the write.
    """


class CodegenError(SrcadError):
    """The derivative cannot be written as a module (a name it needs cannot be imported)."""


class ValueDependentCallError(MissingTemplateError):
    """A call through an argument (``f(x)``, ``self.helper(x)``) is resolved by the argument's
    value: the code for arguments of any kind cannot say what it calls. Code generated for
    the values a call brings (``.source_for(*args)``, every call of a derivative) can."""
