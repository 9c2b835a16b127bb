"""Typed annotations srcad attaches to gast nodes, in one place.

Passes never set ad-hoc attributes on nodes; they go through these accessors,
so every annotation in use is listed here.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

_ORIGIN = "_srcad_origin"


@dataclass(frozen=True)
class Origin:
    """A place in a source file (absolute line numbers): where generated code comes from."""

    filename: str
    lineno: int
    col_offset: int
    end_lineno: int | None = None

    def __deepcopy__(self, memo):
        return self  # immutable: copies of a tree share their origins


_POSITION = "_srcad_position"


def set_origin(node: gast.AST, origin: gast.AST | Origin) -> gast.AST:
    """Record the user's statement ``node`` was derived from (an Origin, or a node holding one)."""
    if not isinstance(origin, Origin):
        origin = getattr(origin, _ORIGIN, None)
    if origin is not None:
        setattr(node, _ORIGIN, origin)
    return node


def origin(node: gast.AST) -> Origin | None:
    """The user's statement ``node`` was derived from, if recorded."""
    return getattr(node, _ORIGIN, None)


def set_position(node: gast.AST, position: Origin) -> gast.AST:
    """Record the exact user expression a normalized statement computes (for errors)."""
    setattr(node, _POSITION, position)
    return node


def position(node: gast.AST) -> Origin | None:
    return getattr(node, _POSITION, None) or origin(node)


_CARRY = "_srcad_carry"
_RESTORE = "_srcad_restore"


def mark_carry(node: gast.Assign) -> gast.Assign:
    """Mark ``x = x_2`` at the end of a loop body: the value carried to the next iteration."""
    setattr(node, _CARRY, True)
    return node


def is_carry(node: gast.AST) -> bool:
    return getattr(node, _CARRY, False)


def mark_restore(node: gast.AST) -> gast.AST:
    """Mark ``x = _tape.pop()``: restores values whose kinds are those they had when pushed."""
    setattr(node, _RESTORE, True)
    return node


def is_restore(node: gast.AST) -> bool:
    return getattr(node, _RESTORE, False)


_IN_PLACE = "_srcad_in_place"


def mark_in_place(node: gast.Call) -> gast.Call:
    """Mark ``rt.appended(...)``, ``rt.all_but_last(...)`` or ``rt.added_at(...)`` written for
    an update the source made in place (``items.append(v)``, ``items.pop()``, ``rt.add_at``)."""
    setattr(node, _IN_PLACE, True)
    return node


def is_in_place(node: gast.AST) -> bool:
    return getattr(node, _IN_PLACE, False)


_PLACEHOLDER = "_srcad_placeholder"


def mark_placeholder(node: gast.Assign) -> gast.Assign:
    """Mark ``y = None`` binding a name only some paths assign, so that copies can read it.

    Its value is never used: analyses ignore it and it has no derivative.
    """
    setattr(node, _PLACEHOLDER, True)
    return node


def is_placeholder(node: gast.AST) -> bool:
    return getattr(node, _PLACEHOLDER, False)


_NOT_INLINED = "_srcad_not_inlined"


def set_not_inlined(node: gast.AST, error: Exception) -> gast.AST:
    """Record why a call to a user function could not be inlined (reported if it is active)."""
    setattr(node, _NOT_INLINED, error)
    return node


def not_inlined(node: gast.AST) -> Exception | None:
    return getattr(node, _NOT_INLINED, None)


COMMENT_PREFIX = "srcad-comment: "


def comment(text: str) -> gast.Expr:
    """A statement that emit.py prints as the comment ``# text``."""
    return gast.Expr(value=gast.Constant(value=COMMENT_PREFIX + text, kind=None))


def comment_text(node: gast.AST) -> str | None:
    if (
        isinstance(node, gast.Expr)
        and isinstance(node.value, gast.Constant)
        and isinstance(node.value.value, str)
        and node.value.value.startswith(COMMENT_PREFIX)
    ):
        return node.value.value[len(COMMENT_PREFIX):]
    return None
