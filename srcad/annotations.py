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


def located_like(new: gast.AST, old: gast.AST) -> gast.AST:
    """``new``, made to stand for ``old``: its location, origin and user position."""
    gast.copy_location(new, old)
    set_origin(new, old)
    if position(old) is not None:
        set_position(new, position(old))
    return new


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


_WRITE = "_srcad_write"

# How a normalized statement writes into the object its target named before it (to_anf):
WRITE_KINDS = (
    "subscript",  # y[i] = v, y[i] += v      ->  y = rt.updated(y, i, v)
    "augmented",  # y += v                   ->  y = y + v  (in place only on arrays and lists)
    "append",  # items.append(v)             ->  items = rt.appended(items, v)
    "pop",  # v = items.pop()                ->  items = rt.all_but_last(items)
    "add_at",  # rt.add_at(total, i, g)      ->  total = rt.added_at(total, i, g)
)


def mark_write(node: gast.Assign, kind: str) -> gast.Assign:
    """Mark ``y = ...`` as the functional form of a write into y's object (kind: WRITE_KINDS)."""
    assert kind in WRITE_KINDS
    setattr(node, _WRITE, kind)
    return node


def write_kind(node: gast.AST) -> str | None:
    """How ``node`` writes into its target's previous object, or None if it does not."""
    return getattr(node, _WRITE, None)


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
