"""Carry writes through shared objects to every name that sees them, or check them.

In Python a write changes an object, and every name holding that object, a
view of it, or a container with it inside sees the change::

    z = y          z = y[1:]          for row in X:          W = params[0]
    z[0] = 5.0     z[0] = 3.0             row[0] = 1.0       W -= 0.1 * g

(these write into y, y, X and params[0]). srcad's generated code computes
with values: to_anf made ``z[0] = 5.0`` the new value ``z = rt.updated(z, 0,
5.0)`` and ``z += v`` the new value ``z = z + v`` (annotations.write_kind
marks them), so without this pass y would keep its old value.

A may-alias analysis follows Python's semantics on the normalized function:
which objects each name may be or view (allocation *sites*: each statement
that makes a new object, each parameter, each module global), which sites
may hold which others as elements, which names are certainly one object,
which are certainly a part or view of another (``base[index]``, ``base.T``,
``base.reshape(...)``, ``rt.iterated(base)``: see _view_of), and which
buffer of the generated code each name views. Liveness gives the names read
after each write (the return reads its value). A write is then redone for
every name that sees it:

* a name certainly the written object is rebound (for ``+=``, only if it
  wrote in place: an array or a list, not a float)::

      z = rt.updated(z, 0, 5.0)    ->    z = rt.updated(z, 0, 5.0)
                                         y = z

* what the written object is certainly part of is written back, up the
  chain of parts, and the views certainly made from any written object are
  made again; whether a part is a view (or an element written in place) is
  decided right after the statement that made it, while the generated code
  still holds what Python holds::

      z = y[1:]                          z = y[1:]
      z[0] = 3.0                   ->    through = rt.writes_through(y, slice(1, None), z)
                                         z_2 = rt.updated(z, 0, 3.0)
                                         if through:
                                             y = rt.updated(y, slice(1, None), z_2)

* any other live name that may share the written memory gets a check before
  the write, ``rt.check_unshared(z, index, y, ...)``, which raises
  AliasedWriteError (file:line:col of the write, the line, a caret, where the
  sharing began, what to do) if they do share. Memory answers only if both
  names view one buffer of the generated code (an earlier write gives the
  written object a copy where Python keeps one); otherwise the write raises
  ``rt.cannot_follow_write`` when it runs (``rt.check_holds_nothing`` first
  where only an argument's elements could be shared: an array has none),
  unless memory told at an earlier point that the two are arrays of numbers
  sharing no memory (``rt.may_share``: before an earlier write into the same
  name whose check decided, or right after the later of the two names'
  assignments on the path taken, where paths bind them differently) and
  neither name was bound anew since: such arrays never come to share memory.
  Arguments one write reaches are checked on entry not to share memory with
  others read after it (``rt.check_separate``): then different arguments'
  sites never overlap. Specialization removes the checks where the
  argument kinds rule sharing out.

After this pass, every name read after a write holds what it holds in
Python, or the generated code raises AliasedWriteError at the write. Writes
into the caller's arguments and into module globals are the exception:
generated code never changes them, as DESIGN.md promises.

Runs twice in normalize. Before split_tuples, only to rebind: after
``e = d; d["k"] = v``, split_tuples would give e and d independent elements,
so e is rebound first (``e = d``). After split_tuples, all of the above: an
element of a split literal tuple is then a plain name (``t_0 = y``),
certainly the same object as the one it was made from. Then rename_versions.
"""

from __future__ import annotations

import dataclasses
import inspect
import linecache
import re
import types

import gast
import numpy as np

from .. import runtime, syntax
from ..analysis.operations import UNRESOLVED
from ..annotations import located_like, not_inlined, position, write_kind
from ..errors import Location, UnsupportedSyntaxError
from .inline import Recursive

# ---- what calls return, in terms of their arguments' memory

# NumPy functions whose result is always a new array (or a scalar), never a view of or
# the same object as an argument (ufuncs are new too). Checked by tests/test_aliasing.py.
_NEW_ARRAY_FUNCTIONS = {
    "abs", "absolute", "all", "allclose", "amax", "amin", "any", "arange", "argmax", "argmin",
    "argsort", "argwhere", "around", "array_equal", "average", "clip", "column_stack",
    "concatenate", "copy", "count_nonzero", "cov", "corrcoef", "cross", "cumprod", "cumsum",
    "diff", "dot", "dstack", "einsum_path", "empty", "empty_like", "eye", "flatnonzero",
    "full", "full_like", "hstack", "identity", "inner", "interp", "isclose", "kron",
    "linspace", "logspace", "geomspace", "max", "mean", "median", "min", "nansum", "nanmean",
    "nanmax", "nanmin", "nonzero", "ones", "ones_like", "outer", "pad", "percentile", "prod",
    "ptp", "quantile", "repeat", "roll", "round", "searchsorted", "select", "sort", "stack",
    "std", "sum", "take", "take_along_axis", "tensordot", "tile", "trace", "trapezoid",
    "tri", "tril", "triu", "unique", "var", "vdot", "vstack", "where", "zeros", "zeros_like",
    "shape", "ndim", "size", "isscalar", "result_type",
}
_NEW_ARRAY_LINALG = {"det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "norm", "pinv",
                     "qr", "slogdet", "solve", "svd", "cholesky", "matrix_rank"}
# np.array(x) copies x unless told not to (copy=False, or copy=None in NumPy 2)
_COPYING_UNLESS_TOLD = {"array", "astype", "nan_to_num", "meshgrid"}
# methods of arrays whose result is new (other methods, like reshape, may return a view)
_NEW_ARRAY_METHODS = {
    "all", "any", "argmax", "argmin", "argsort", "astype", "clip", "count", "cumprod",
    "cumsum", "dot", "flatten", "index", "item", "max", "mean", "min", "nonzero", "prod",
    "repeat", "round", "searchsorted", "std", "sum", "take", "tolist", "trace", "var",
}
# attributes that are plain numbers or tuples of them, never memory of the value
_IMMUTABLE_ATTRIBUTES = {"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides"}
# builtins whose result is a new container holding (parts of) their argument: list(X)
# holds X's rows, views of X
_CONTAINER_BUILTINS = {list, tuple, sorted, reversed, zip, enumerate, dict, set, frozenset,
                       iter, map, filter}
_NEW_VALUE_BUILTINS = {float, int, bool, complex, len, abs, round, str, repr, isinstance, type,
                       range, print, hash, id, divmod, pow, callable, hasattr, format}
# srcad's runtime helpers whose result is new; `appended` & co copy a list but keep its items
_NEW_RUNTIME = {"zeros_like", "unindex", "without", "array_of", "reduced_size", "log_of_base",
                "times_log_of_base", "nonzero",
                "extremum_adjoint", "norm_adjoint", "dot_adjoint_left", "dot_adjoint_right",
                "matmul_adjoint_left", "matmul_adjoint_right", "method_axes",
                "inverse_transpose_axes", "check_unshared"}
# (a new list, dict or array holding the first argument's elements and the items given)
_WITH_ITEMS_RUNTIME = {"updated", "appended", "all_but_last", "added_at"}

NEW, ALIAS, CONTAINER, ELEMENTS, WITH_ITEMS = "new", "alias", "container", "elements", "items"


def _call_effect(call, callee) -> str:
    """How the result of ``call`` relates to its arguments' memory.

    NEW: a new object; ALIAS: may be an argument, a view of one, or hold one;
    CONTAINER: a new container holding arguments and their parts (list(X));
    ELEMENTS: a new container holding the arguments' elements (xs.copy());
    WITH_ITEMS: a new container holding the first argument's elements and the other
    arguments (rt.appended(xs, v), rt.updated(xs, i, v)).
    """
    keywords = {k.arg for k in call.keywords}
    func = call.func
    if callee is UNRESOLVED and isinstance(func, gast.Attribute):  # a method on a value
        if func.attr == "copy" and not call.args:
            return ELEMENTS  # an array's copy is new; a list's copy holds the same items
        if func.attr in _NEW_ARRAY_METHODS and not (func.attr == "astype" and "copy" in keywords):
            return NEW
        return ALIAS
    if isinstance(callee, np.ufunc):
        return NEW
    if callee is sum:
        return NEW if len(call.args) == 1 else ALIAS  # sum([], start) is start itself
    if callee in _NEW_VALUE_BUILTINS:
        return NEW
    if callee in _CONTAINER_BUILTINS:
        return CONTAINER
    if getattr(callee, "__module__", None) == runtime.__name__:
        name = getattr(callee, "__name__", "")
        if name in _NEW_RUNTIME:
            return NEW
        return WITH_ITEMS if name in _WITH_ITEMS_RUNTIME else ALIAS
    if isinstance(callee, types.BuiltinFunctionType) and getattr(callee, "__module__",
                                                                 None) == "math":
        return NEW
    name = getattr(callee, "__name__", None)
    if name is not None and getattr(np, name, None) is callee:
        if name in _NEW_ARRAY_FUNCTIONS:
            return NEW
        if name in _COPYING_UNLESS_TOLD and "copy" not in keywords:
            return NEW
    if name is not None and getattr(np.linalg, name, None) is callee and \
            name in _NEW_ARRAY_LINALG:
        return NEW
    return ALIAS


_FLOAT_ALLOCATIONS = {"zeros", "ones", "empty", "full", "eye", "identity", "arange",
                      "linspace", "logspace", "geomspace", "zeros_like", "ones_like",
                      "empty_like", "full_like"}


def _allocates_float_array(call, callee) -> bool:
    """A NumPy call certain to return a new array of numbers (no dtype=object asked)."""
    if any(k.arg == "dtype" for k in call.keywords):
        return False
    if isinstance(callee, np.ufunc):
        return True
    name = getattr(callee, "__name__", None)
    return name in _FLOAT_ALLOCATIONS and getattr(np, name, None) is callee


def _read_only_view(call, callee) -> bool:
    """np.diagonal(A), A.diagonal(), np.diag(A), np.broadcast_to(a, shape): NumPy returns a
    view no one may write into (a write raises ValueError)."""
    if callee is UNRESOLVED:
        return isinstance(call.func, gast.Attribute) and call.func.attr == "diagonal"
    return any(callee is f for f in (np.diagonal, np.diag, np.broadcast_to,
                                     np.lib.stride_tricks.sliding_window_view))


def _is_immutable(obj) -> bool:
    """A module-level object no write can change (so no site of memory is needed)."""
    return obj is None or isinstance(obj, (
        bool, int, float, complex, str, bytes, np.generic, np.ufunc, np.dtype, type,
        types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
        range, slice, type(Ellipsis))) or callable(obj) and not dataclasses.is_dataclass(obj)


# ---- sites: where memory comes from
#
# A site is ("new", id(statement)), ("param", name), ("global", text), or the elements of a
# parameter or global, ("param-part", name) / ("global-part", text). A name *points* to
# entries: a site (it may be that object) or ("view", site) (it may be a view or part of
# that object's memory, as x[1:] or x.T of an array: not the object itself). Two names
# may share memory when their entries have a site in common. Sites of different
# parameters never do: the caller may pass one array twice (f(a, a)), but where that
# would matter the generated code checks on entry that it did not (rt.check_separate).


def _external(site) -> bool:
    return site[0] in ("param", "param-part", "global", "global-part")


def _root(site):
    return (site[0].split("-")[0], site[1])


def _underlying(entry):
    return entry[1] if entry[0] == "view" else entry


def memory(entries) -> frozenset:
    """The sites whose memory ``entries`` may be or view."""
    return frozenset(_underlying(e) for e in entries)


def objects(entries) -> frozenset:
    """The sites whose object itself ``entries`` may be (not a view of it)."""
    return frozenset(e for e in entries if e[0] != "view")


@dataclasses.dataclass
class _State:
    """What the analysis knows at one point of the function (Python's semantics)."""

    points: dict  # name -> frozenset of entries: sites it may be, or ("view", site)
    same: dict  # name -> frozenset of names certainly holding the same object (itself too)
    made: dict  # name -> frozenset of origins of the definitions that made it share memory
    # name -> (base, index, names the index reads, ids of the statements that made it so:
    # one on each path, where paths made it alike)
    parts: dict
    # name -> the generated code's buffers its value may be (or view): ("orig",) for what
    # the caller passed or a global, ("new", id) for an allocation, ("w", id) / ("wb", id, k)
    # for the copy a write made. Generated code and Python agree on whether two names
    # share memory when both are certainly views of one buffer.
    tokens: dict = dataclasses.field(default_factory=dict)

    def copy(self):
        return _State(dict(self.points), dict(self.same), dict(self.made), dict(self.parts),
                      dict(self.tokens))

    def join(self, other: "_State") -> "_State":
        points = dict(self.points)
        for name, sites in other.points.items():
            points[name] = points.get(name, frozenset()) | sites
        made = dict(self.made)
        for name, origins in other.made.items():
            made[name] = made.get(name, frozenset()) | origins
        same = {name: (self.same[name] & other.same[name]) if name in other.same
                else frozenset([name]) for name in self.same}
        for name in other.same:
            same.setdefault(name, frozenset([name]))
        # a part made alike on both paths stays one, made by either statement: the flags
        # that decide whether it is a view are computed after each (fact_flag)
        parts = {name: fact[:2] + (fact[2] | other.parts[name][2],
                                   fact[3] | other.parts[name][3])
                 for name, fact in self.parts.items()
                 if name in other.parts and other.parts[name][:2] == fact[:2]}
        tokens = dict(self.tokens)
        for name, buffers in other.tokens.items():
            tokens[name] = tokens.get(name, frozenset()) | buffers
        return _State(points, same, made, parts, tokens)

    def rebind(self, name, like=None):
        """``name`` now holds a new object (or, with ``like``, the same object as ``like``)."""
        if like == name or like in self.same.get(name, ()):
            return  # x = x, or x = y where x is y already (a rebinding this pass made)
        group = frozenset([name])
        if like is not None:
            group = (self.same.get(like, frozenset([like])) - {name}) | {name}
        for member in self.same.get(name, ()):
            if member != name:
                self.same[member] = self.same[member] - {name}
        for member in group:
            self.same[member] = group
        self.parts = {part: fact for part, fact in self.parts.items()
                      if part != name and fact[0] != name and name not in fact[2]}

    def part_of(self, name):
        """(member, base, index, statements): ``name`` is certainly the same object as
        ``member``, made by ``member = base[index]`` at one of ``statements`` (their ids)."""
        for member in sorted(self.same.get(name, frozenset([name]))):
            if member in self.parts:
                base, index, _, statements = self.parts[member]
                return member, base, index, statements
        return None


_ORIGINAL = frozenset([("orig",)])


@dataclasses.dataclass
class _Effects:
    """What a write into ``name`` changes besides name, in Python, that srcad redoes.

    rebound: live names certainly the written object (rebound to its new value);
    chain: [(base, fact)], the objects it is certainly part of (``name`` is
    base[index], base is base_2[index_2]...), each written back; views: for each
    written object (name, or a base of the chain), the live views certainly
    made from it, [(part, fact)], made again from its new value (and their views).
    """

    rebound: frozenset
    chain: list
    views: dict
    family: frozenset  # every name above: none of them needs a check
    groups: dict  # name -> names certainly the same object (as in the state)
    live: frozenset

    def apply(self, state, name, statement, kind):
        """The buffers (_State.tokens) names hold after the write and what it redoes."""
        conditional = kind == "augmented"  # rebound only if it wrote in place
        written = frozenset([("w", statement)])
        state.tokens[name] = written
        for other in self.rebound:
            state.tokens[other] = (state.tokens.get(other, frozenset()) | written
                                   if conditional else written)
        self.apply_views(state, name, written)
        for step, (base, _) in enumerate(self.chain):
            copied = frozenset([("wb", statement, step)])  # if written back at all
            for other in (self.groups.get(base, frozenset([base])) & self.live) | {base}:
                state.tokens[other] = state.tokens.get(other, frozenset()) | copied
            self.apply_views(state, base, copied)

    def apply_views(self, state, written, buffers):
        for part, _ in self.views.get(written, ()):
            for other in (self.groups.get(part, frozenset([part])) & self.live) | {part}:
                state.tokens[other] = state.tokens.get(other, frozenset()) | buffers
            self.apply_views(state, part, buffers)


def _effects(state, name, kind, live, is_scalar, full) -> _Effects:
    """What the write into ``name`` (state: just before it) must redo: see _Effects."""
    live = frozenset(live)

    def group(member):
        return state.same.get(member, frozenset([member]))

    if (kind == "augmented" and (is_scalar(name) or not full)):
        return _Effects(frozenset(), [], {}, frozenset([name]), state.same, live)
    chain = [(name, None)] + (_part_chain(state, name, is_scalar) if full else [])
    while len(chain) > 1 and not (frozenset().union(
            *[group(member) for member, _ in chain[1:]]) & live):
        chain.pop()  # nothing reads that base or what it is part of: no write-back
    family = set().union(*[group(member) for member, _ in chain])
    parts = {}  # base -> [(part, fact)]
    for part in sorted(state.parts) if full else ():
        fact = state.part_of(part)
        if fact is not None and fact[0] == part and not is_scalar(part):
            parts.setdefault(fact[1], []).append((part, fact))

    def needed(member, seen=frozenset()):
        if group(member) & live:
            return True
        return any(needed(part, seen | {member}) for base in group(member)
                   for part, _ in parts.get(base, ()) if part not in seen | {member})

    views = {}

    def collect(written):
        for base in sorted(group(written)):
            for part, fact in parts.get(base, ()):
                if part in family or not needed(part):
                    continue
                family.update(group(part))
                views.setdefault(written, []).append((part, fact))
                collect(part)

    if kind not in ("append", "pop"):  # those change a list, not memory its elements view
        for member, _ in chain:
            collect(member)
    rebound = (group(name) & live) - {name}
    return _Effects(rebound, chain[1:], views, frozenset(family), state.same, live)


class _Aliasing:
    """The may-alias analysis: a state before each write, and the element graph of sites."""

    def __init__(self, params, local_names, resolve, holds_nothing=None, live_after=None,
                 is_scalar=None, full=True):
        self.live_after = live_after or {}  # id(write) -> names live after it (_Liveness)
        self.is_scalar = is_scalar or (lambda name: False)
        self.full = full
        self.effects = {}  # id(write) -> _Effects
        self.local_names = local_names
        self.resolve = resolve
        # a name whose value is known to be an array or a scalar (from the argument
        # kinds) holds no objects: nothing stored into it is shared, it has no elements
        self.holds_nothing = holds_nothing or (lambda name: False)
        self.site_names = {}  # ("new", id) -> the name its statement assigns
        # sites certainly a float array (np.zeros(3), np.sin(x)): a write copies into it,
        # it never holds another object; and sites certainly a list, tuple or dict made
        # here (a literal, an append): none is a view of their memory
        self.array_sites = set()
        self.container_sites = set()
        self.global_arrays = set()  # globals that are arrays (or scalars)
        self.read_only = set()  # sites of calls that may return a read-only view
        self.contents: dict = {}  # site -> sites its elements may be (flow-insensitive)
        self.changed = False
        self.before: dict = {}  # id(write statement) -> _State just before it
        self.written_names: dict = {}  # id(write statement) -> the name it writes into
        self.after: dict = {}  # id(assignment to a name, not a write) -> _State just after it
        self.entry = _State({}, {}, {}, {})
        for param in params:
            self.entry.points[param] = frozenset([self.external("param", param)])
            self.entry.same[param] = frozenset([param])
            self.entry.tokens[param] = _ORIGINAL

    def external(self, kind, key):
        site = (kind, key)
        part = (kind + "-part", key)
        self.add_contents(site, {part})
        self.add_contents(part, {part})
        return site

    def site_holds_nothing(self, site) -> bool:
        if site in self.array_sites:
            return True
        if site[0] == "param":
            return self.holds_nothing(site[1])
        if site[0] == "global":
            return site[1] in self.global_arrays
        if site[0] == "new" and site in self.site_names:
            return self.holds_nothing(self.site_names[site])
        return False

    def add_contents(self, site, sites):
        if self.site_holds_nothing(site):
            return
        old = self.contents.get(site, frozenset())
        new = old | frozenset(sites)
        if new != old:
            self.contents[site] = new
            self.changed = True

    def elements(self, entries) -> frozenset:
        """What the elements of ``entries`` may be (a list's slice holds the list's elements)."""
        out = frozenset()
        for entry in entries:
            out |= self.contents.get(_underlying(entry), frozenset())
        return out

    def reach(self, entries) -> frozenset:
        """``entries`` and what their elements may be, transitively."""
        seen, stack = set(entries), list(entries)
        while stack:
            for inner in self.contents.get(_underlying(stack.pop()), ()):
                if inner not in seen:
                    seen.add(inner)
                    stack.append(inner)
        return frozenset(seen)

    def part(self, base, site) -> frozenset:
        """``base[i]`` or ``base.attr``: a view of an array, an element, or a new copy."""
        self.add_contents(site, self.elements(base))  # a list's slice: the same elements
        return frozenset(("view", e) for e in memory(base)) | self.elements(base) | {site}

    def run(self, body):
        for _ in range(100):  # the element graph only grows: iterate until it settles
            self.changed = False
            # which sites are certainly arrays depends on what names may be (a product
            # with an array): decided again each round, from what the round finds
            before, self.array_sites = self.array_sites, set()
            self.block(body, self.entry.copy())
            if not self.changed and self.array_sites == before:
                return
        raise AssertionError("alias analysis did not settle")

    def read_tokens(self, value, state) -> frozenset:
        """The buffers of the names ``value`` reads (a global: what the caller has)."""
        out = frozenset()
        for node in syntax.walk(value):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                out |= (state.tokens.get(node.id, frozenset()) if node.id in self.local_names
                        else _ORIGINAL)
        return out

    # ---- values

    def atom(self, node, state) -> frozenset:
        """Sites whose memory the atom ``node`` (a name, constant or global) may be."""
        if isinstance(node, gast.Name) and node.id in self.local_names:
            return state.points.get(node.id, frozenset())
        if isinstance(node, (gast.Name, gast.Attribute)):
            text = global_text(node, self.local_names)
            if text is None:
                return frozenset()
            obj = self.resolve(node)
            if obj is not UNRESOLVED and _is_immutable(obj):
                return frozenset()
            if isinstance(obj, np.ndarray):
                self.global_arrays.add(text)
            return frozenset([self.external("global", text)])
        return frozenset()

    def operands(self, nodes, state) -> frozenset:
        out = frozenset()
        for node in nodes:
            for inner in syntax.walk(node):  # an index may hold atoms inside slices and tuples
                if isinstance(inner, (gast.Name, gast.Attribute)) and isinstance(
                        getattr(inner, "ctx", None), gast.Load):
                    out |= self.atom(inner, state)
        return out

    def value(self, value, site, state) -> frozenset:
        """Sites the value of the right-hand side ``value`` may be (updates the element graph)."""
        if isinstance(value, gast.Name) or global_text(value, self.local_names) is not None:
            return self.atom(value, state)
        if isinstance(value, gast.Constant):
            return frozenset()
        if isinstance(value, gast.Attribute):  # x.T, x.real, a record's field: a view or part
            if value.attr in _IMMUTABLE_ATTRIBUTES:
                return frozenset()
            return self.part(self.atom(value.value, state), site)
        if isinstance(value, gast.Subscript):  # a view of an array, or an element of a list
            return self.part(self.atom(value.value, state), site)
        if isinstance(value, (gast.Tuple, gast.List, gast.Dict)):
            items = value.values if isinstance(value, gast.Dict) else value.elts
            self.container_sites.add(site)
            self.add_contents(site, self.operands(items, state))
            return frozenset([site])
        if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            # new, but list + list and list * n hold the operands' elements (no other
            # operator makes a list: y - 1.0 is an array's, never a list's)
            if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult)):
                sides = [self.operands([side], state) for side in (value.left, value.right)]
                if any(side and memory(side) <= self.array_sites for side in sides):
                    self.array_sites.add(site)  # with an array, NumPy makes a new array
                else:
                    self.add_contents(site, self.elements(sides[0] | sides[1]))
            return frozenset([site])
        if isinstance(value, gast.Call):
            if self.resolve(value.func) is runtime.iterated and len(value.args) == 1:
                # what `for x in items` visits: items itself, or a dict's keys (strings)
                return self.operands(value.args, state) | {site}
            if _read_only_view(value, self.resolve(value.func)):
                self.read_only.add(site)
            callee = self.resolve(value.func)
            effect = _call_effect(value, callee)
            if _allocates_float_array(value, callee):
                self.array_sites.add(site)
            if callee is runtime.appended:
                self.container_sites.add(site)
            arguments = list(value.args) + [k.value for k in value.keywords]
            if isinstance(value.func, gast.Attribute) and self.resolve(value.func) is UNRESOLVED:
                arguments.append(value.func.value)  # the object a method is called on
            if effect == NEW:
                return frozenset([site])
            if effect == WITH_ITEMS:  # not the first argument itself: its elements
                self.add_contents(site, self.elements(self.operands(value.args[:1], state))
                                  | self.operands(value.args[1:], state))
                return frozenset([site])
            held = self.reach(self.operands(arguments, state))
            if effect == ELEMENTS:
                self.add_contents(site, self.elements(self.operands(arguments, state)))
                return frozenset([site])
            self.add_contents(site, held)
            if effect == CONTAINER:
                return frozenset([site])
            return frozenset([site]) | held
        return frozenset([site]) | self.reach(self.operands([value], state))

    # ---- statements

    def block(self, statements, state) -> _State:
        for statement in statements:
            state = self.statement(statement, state)
        return state

    def statement(self, s, state) -> _State:
        if isinstance(s, gast.Assign):
            return self.assign(s, state)
        if isinstance(s, gast.If):
            return self.block(s.body, state.copy()).join(self.block(s.orelse, state.copy()))
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s, state)
        return state

    def loop(self, s, state) -> _State:
        head = state
        for _ in range(100):
            inner = head.copy()
            if isinstance(s, gast.For):
                for target in syntax.names(s.target):
                    is_range = isinstance(s.iter, gast.Call) and self.resolve(
                        s.iter.func) is range
                    iterated = frozenset() if is_range else self.operands([s.iter], inner)
                    inner.points[target.id] = (self.part(iterated, ("new", id(s)))
                                               if iterated else frozenset())
                    inner.tokens[target.id] = self.read_tokens(s.iter, inner)
                    inner.rebind(target.id)
            after = head.join(self.block(s.body, inner))
            if after == head:
                return head
            head = after
        raise AssertionError("alias analysis did not settle in a loop")

    def assign(self, s, state) -> _State:
        kind = write_kind(s)
        target = s.targets[0]
        site = ("new", id(s))
        if kind is not None and isinstance(target, gast.Name):
            name = target.id
            self.site_names[site] = name
            self.before[id(s)] = state.copy()
            self.written_names[id(s)] = name
            effects = _effects(state, name, kind, self.live_after.get(id(s), set()) - {name},
                               self.is_scalar, self.full)
            self.effects[id(s)] = effects
            state = state.copy()
            effects.apply(state, name, id(s), kind)
            written = state.points.get(name, frozenset())
            if kind == "augmented":
                # in place on an array or list (the same object, holding the operand's
                # elements after list += list); a new object for a float or a tuple
                operand = self.operands([s.value.right], state)
                for inner in memory(written):
                    self.add_contents(inner, self.elements(operand))
                self.add_contents(site, self.elements(written) | self.elements(operand))
                # the same object if written in place (an array, a list): a scalar has no
                # memory to share, so keeping it with its group and its base is harmless
                state.points[name] = written | {site}
            else:  # y[i] = v, append, pop, add_at: the same object, now holding the value
                # (add_at adds into an array: it never holds g itself; a list holds v itself)
                stored = {"subscript": s.value.args[2:3], "append": s.value.args[1:2]}
                # a scalar (x[t] of a vector) is stored as a number: its memory is not kept
                values = [v for v in stored.get(kind, [])
                          if not (isinstance(v, gast.Name) and self.is_scalar(v.id))]
                # (a list made here is no view of anything: rows[t] is an element)
                for inner in memory(e for e in written if not (
                        e[0] == "view" and e[1] in self.container_sites)):
                    self.add_contents(inner, self.operands(values, state))
            return state
        state = state.copy()
        if not isinstance(target, gast.Name):  # unpacking that split_tuples left whole
            sites = frozenset([site]) | self.reach(self.operands([s.value], state))
            for node in syntax.names(target):
                state.points[node.id] = sites
                state.made[node.id] = frozenset([position(s)])
                state.tokens[node.id] = self.read_tokens(s.value, state) | {("new", id(s))}
                state.rebind(node.id)
            return state
        name = target.id
        self.site_names[site] = name
        sites = self.value(s.value, site, state)
        state.points[name] = sites
        fresh = sites <= {site} and not self.contents.get(site)
        state.made[name] = frozenset() if fresh else frozenset([position(s)])
        tokens = frozenset([("new", id(s))]) if sites <= {site} else self.read_tokens(
            s.value, state) | ({("new", id(s))} if site in sites else set())
        state.tokens[name] = tokens
        copied = (s.value.id if isinstance(s.value, gast.Name)
                  and s.value.id in self.local_names else None)
        state.rebind(name, copied)
        view = _view_of(s.value, self.resolve, self.local_names)
        if view is not None:
            base, how = view
            how_names = frozenset(syntax.load_names(s.value)) & self.local_names - {base}
            if base != name and name not in how_names:
                state.parts[name] = (base, how, how_names, frozenset([id(s)]))
        self.after[id(s)] = state  # (each statement copies the state before changing it)
        return state


# (np.atleast_1d and x.view() too, but srcad has no template for them: their views are
# left to the checks, which say what is wrong where a template error would not)
_RESHAPING = ("reshape", "ravel", "squeeze", "expand_dims", "asarray")


def _view_of(value, resolve, local_names):
    """(base, how) if ``value`` is a part or a view of the local ``base``, else None.

    how: the index node (``base[index]``); SAME (``rt.iterated(base)``, base itself
    unless a dict); TRANSPOSED (``base.T``, ``np.transpose(base)``); or
    ``(RESHAPED, value)`` (``base.reshape(...)``, ``np.ravel(base)``, ``np.squeeze``...:
    the same elements in the same order, when a view).
    """
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
            and value.value.id in local_names:
        return value.value.id, value.slice
    if isinstance(value, gast.Attribute) and value.attr == "T" and isinstance(
            value.value, gast.Name) and value.value.id in local_names:
        return value.value.id, TRANSPOSED
    if not isinstance(value, gast.Call) or any(k.arg == "order" for k in value.keywords):
        return None
    callee = resolve(value.func)
    if callee is UNRESOLVED and isinstance(value.func, gast.Attribute) and isinstance(
            value.func.value, gast.Name) and value.func.value.id in local_names:
        base, method = value.func.value.id, value.func.attr  # a method on a local value
        if method == "transpose" and not value.args and not value.keywords:
            return base, TRANSPOSED
        if method in _RESHAPING:
            return base, (RESHAPED, value)
        return None
    if not value.args or not isinstance(value.args[0], gast.Name) or \
            value.args[0].id not in local_names:
        return None
    base = value.args[0].id
    if callee is runtime.iterated and len(value.args) == 1:
        return base, SAME  # `for x in items` iterates over rt.iterated(items)
    if callee is np.transpose and len(value.args) == 1 and not value.keywords:
        return base, TRANSPOSED
    name = getattr(callee, "__name__", None)
    if name in _RESHAPING and getattr(np, name, None) is callee and not value.keywords:
        return base, (RESHAPED, value)
    return None


SAME, TRANSPOSED, RESHAPED = "same", "transposed", "reshaped"


def global_text(node, local_names) -> str | None:
    """``G`` or ``module.W``: the text of a reference to a name outside the function."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name) or node.id in local_names:
        return None
    return ".".join([node.id] + list(reversed(parts)))


# ---- liveness

class _Liveness:
    """Names read after each write before being assigned again (Python's names, not sites).
    A write reads the objects it is part of (``bases``): this pass writes it back into them,
    so an earlier write must keep them up to date."""

    def __init__(self, local_names, bases=None):
        self.local_names = local_names
        self.after: dict = {}  # id(write statement) -> names live after it
        # id(write statement) -> the objects it writes back into (its chain of bases, see
        # _Effects): read there, by the write-backs this pass puts in
        self.bases = bases or {}

    def reads(self, node) -> set:
        out = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, (gast.Name, gast.Attribute)) and isinstance(
                    getattr(current, "ctx", None), gast.Load):
                text = global_text(current, self.local_names)
                if text is not None:
                    out.add(text)
                    continue
                if isinstance(current, gast.Name):
                    out.add(current.id)
                    continue
            stack.extend(gast.iter_child_nodes(current))
        return out

    def block(self, statements, live: set) -> set:
        for statement in reversed(statements):
            live = self.statement(statement, live)
        return live

    def statement(self, s, live) -> set:
        if isinstance(s, gast.Assign):
            if write_kind(s) is not None:
                self.after[id(s)] = set(live)
            stored = syntax.stored_names(gast.Module(body=[s], type_ignores=[]))
            return (live - stored) | self.reads(s.value) | self.bases.get(id(s), set())
        if isinstance(s, gast.If):
            return self.reads(s.test) | self.block(s.body, live) | self.block(s.orelse, live)
        if isinstance(s, (gast.For, gast.While)):
            header = s.iter if isinstance(s, gast.For) else s.test
            targets = syntax.stored_names(s.target) if isinstance(s, gast.For) else set()
            head = set(live) | self.reads(header)
            for _ in range(100):
                new = head | (self.block(s.body, head) - targets)
                if new == head:
                    break
                head = new
            self.block(s.body, head)  # record what is live after writes in the final state
            return head
        if isinstance(s, gast.Return):
            return self.reads(s.value) if s.value is not None else set()
        return live | self.reads(s)


# ---- the rewrite


def parameters_written(tree: gast.FunctionDef, resolve) -> dict:
    """{parameter: (where, certain)}: the parameters whose objects a function writes into,
    certainly (``v[0] = ...``) or if they are arrays or lists (``v += 1.0``).

    ``tree`` is normalized up to this pass (inlined helpers' writes count).
    """
    params = [a.id for a in tree.args.args]
    local_names = frozenset(params) | syntax.stored_names(tree)
    aliasing = _Aliasing(params, local_names, resolve)
    aliasing.run(tree.body)
    written = {}
    for node in _in_order(tree.body):
        if isinstance(node, gast.Assign) and id(node) in aliasing.before:
            sites = memory(aliasing.before[id(node)].points.get(node.targets[0].id, ()))
            certain = write_kind(node) != "augmented"  # `n -= 1` on an int writes nothing
            for param in params:
                if sites & {("param", param), ("param-part", param)}:
                    where, was_certain = written.get(param, (position(node), False))
                    written[param] = (where, was_certain or certain)
    return written


def propagate_writes(tree: gast.FunctionDef, resolve, namer, aliases, *,
                     guard: bool = True, is_scalar=None, holds_nothing=None,
                     callee_writes=None) -> gast.FunctionDef:
    """Rebind or guard every name that may see a write (see the module docstring).

    ``namer`` makes the names of flags; ``aliases`` names srcad's runtime in the code. With
    ``guard=False`` it only rebinds (the run before split_tuples). ``callee_writes(f)``
    gives parameters_written of a user function srcad calls rather than inlines (a
    recursive one); a call passing it a value it writes into is rejected. ``is_scalar(name)``
    (when the argument kinds are known) marks values never written in place,
    ``holds_nothing(name)`` values that are arrays or scalars (no list, tuple or dict).
    """
    writes, recursive_calls = _writes_and_recursive_calls(tree.body)
    call_checks = {}
    if guard and callee_writes is not None and recursive_calls:
        call_checks = _check_calls_not_inlined(tree, resolve, callee_writes, aliases)
    if not writes and not call_checks:
        return tree
    params = [a.id for a in tree.args.args]
    local_names = frozenset(params) | syntax.stored_names(tree)
    bases = {}
    for _ in range(10):
        # a write into a part writes back into what it is part of, reading that: it is live
        # before the write (so an earlier write keeps it up to date), as found by the
        # analysis, which reads liveness: again until that settles
        liveness = _Liveness(local_names, bases)
        liveness.block(tree.body, set())
        aliasing = _Aliasing(params, local_names, resolve, holds_nothing, liveness.after,
                             is_scalar, guard)
        aliasing.run(tree.body)
        found = _bases_written_back(aliasing, is_scalar or (lambda name: False), guard)
        if found == bases:
            break
        bases = found
    _Rewrite(aliasing, liveness, local_names, namer, aliases, guard,
             is_scalar or (lambda name: False), call_checks).run(tree)
    return tree


def _part_chain(state, name, is_scalar) -> list:
    """[(base, fact)]: the objects ``name`` is certainly part of, up the chain (``name`` is
    base[index], base is base_2[index_2]...; facts from _State.part_of)."""
    chain, seen = [], {name}
    while True:
        fact = state.part_of(chain[-1][0] if chain else name)
        if fact is None or fact[1] in seen:
            return chain
        if is_scalar(fact[0]):
            return chain  # an element of a 1-D array is a copy, not a view
        seen.add(fact[1])
        chain.append((fact[1], fact))


def _bases_written_back(aliasing, is_scalar, full) -> dict:
    """id(write) -> the names of the objects it is certainly part of (_part_chain, as
    _effects follows it): what its write-backs read."""
    found = {}
    for key, state in aliasing.before.items() if full else ():
        chain = _part_chain(state, aliasing.written_names[key], is_scalar)
        if chain:
            found[key] = {base for base, _ in chain}
    return found


def _writes_and_recursive_calls(body) -> tuple:
    """Whether the statements (normalized: only ``if``, ``for`` and ``while`` hold others)
    write into an object (an assignment marked a write), and whether one calls a recursive
    function (a call not inlined: _check_calls_not_inlined's to check), in one walk."""
    writes = recursive = False
    Assign, Expr, Call = gast.Assign, gast.Expr, gast.Call
    holders = (gast.If, gast.For, gast.While)
    stack = [body]
    while stack and not (writes and recursive):
        for statement in stack.pop():
            kind = type(statement)
            if kind is Assign or kind is Expr:
                if kind is Assign and not writes and write_kind(statement):
                    writes = True
                call = statement.value
                if (not recursive and type(call) is Call
                        and isinstance(not_inlined(call), Recursive)):
                    recursive = True
            elif kind in holders:
                stack.append(statement.body)
                stack.append(statement.orelse)
    return writes, recursive


def _check_calls_not_inlined(tree, resolve, callee_writes, aliases) -> dict:
    """Reject a call that runs a user function which writes into its arguments.

    Generated code runs a recursive function's calls as they are (its own
    generated code differentiates them), so a write into an argument would
    change the caller's value behind srcad's back. A certain write (``x[0] =
    v``) is rejected now; ``x += v``, a write only if x is an array or a list,
    gets a check before the call: {id(call statement): [checks]}.
    """
    checks = {}
    for statement in syntax.statements(tree):
        call = getattr(statement, "value", None) if isinstance(
            statement, (gast.Assign, gast.Expr)) else None
        reason = not_inlined(call) if isinstance(call, gast.Call) else None
        if not isinstance(reason, Recursive):
            continue
        written = callee_writes(reason.function)
        if not written:
            continue
        try:
            bound = inspect.signature(reason.function).bind(
                *call.args, **{k.arg: k.value for k in call.keywords})
        except TypeError:
            continue  # reported elsewhere
        name = reason.function.__name__
        for param, value in bound.arguments.items():
            if param not in written or isinstance(value, gast.Constant):
                continue
            (where, certain), call_origin = written[param], position(statement)
            message = ("a call to the recursive function `%s`, which writes into its argument "
                       "`%s` (line %d): srcad runs this call as it is, and cannot follow the "
                       "write" % (name, param, where.lineno))
            hint = ("Copy the argument inside `%s` before writing into it (`%s = %s.copy()`), "
                    "or build and return a new value." % (name, param, param))
            if certain:
                raise UnsupportedSyntaxError(message, _location(call_origin), hint)
            check = syntax.call(
                syntax.attribute(aliases.name_for(runtime), "check_not_written"),
                syntax.deepcopy(value), syntax.constant(_place(call_origin)),
                syntax.constant(message), syntax.constant(hint))
            checks.setdefault(id(statement), []).append(
                located_like(gast.Expr(value=check), statement))
    return checks


def _location(origin) -> Location:
    return Location(origin.filename, origin.lineno, origin.col_offset,
                    linecache.getline(origin.filename, origin.lineno))


class _Rewrite:
    """Insert, around each write, the rebindings, write-backs and checks it needs.

    Two passes over the statements: ``plan`` decides, for each write, what
    it needs (and which facts ``part = base[index]`` need a flag, computed
    right after that statement), then ``block`` inserts it.
    """

    def __init__(self, aliasing, liveness, local_names, namer, aliases, full, is_scalar,
                 call_checks=None):
        self.call_checks = call_checks or {}  # id(statement) -> checks before it
        self.is_scalar = is_scalar
        self.namer = namer
        self.aliasing = aliasing
        self.liveness = liveness
        self.local_names = local_names
        self.aliases = aliases
        self.full = full  # False: only rebind names certainly the same object
        self.plans = {}  # id(write) -> (statements before, statements after)
        # (ids of the statements making a part, helper) -> (flag, base, index, part)
        self.fact_flags = {}
        self.entry = {}  # (written root, other root) -> check_separate call
        self.after_binding = {}  # id(assignment) -> flags computed right after it
        self.binding_flags = {}  # (ids of assignments, name, other) -> their flag
        self.bound_after = {}  # id(assignment) -> the names certainly bound right after it
        self.order = 0  # statements met by plan_block so far (the order bindings run in)

    def rt(self, helper):
        return syntax.attribute(self.aliases.name_for(runtime), helper)

    def run(self, tree):
        # a parameter is bound on entry, to what the caller passed (the generated code holds
        # the same object there)
        self.plan_block(tree.body, _Facts({}, {
            a.id: ((0, None),) for a in syntax.parameters(tree.args)
            if a.id in self.local_names}))
        tree.body = list(self.entry.values()) + self.block(tree.body)

    def plan_block(self, statements, facts: "_Facts") -> "_Facts":
        """Plan the writes of ``statements`` in order (``plan``), given ``facts``: what holds
        on every path to here of the names' bindings and of the sharing checks decided
        (_Facts); the facts after them."""
        for s in statements:
            self.order += 1
            if isinstance(s, gast.If):
                facts = self.plan_block(s.body, facts.copy()).common(
                    self.plan_block(s.orelse, facts.copy()))
                continue
            if isinstance(s, (gast.For, gast.While)):
                # a name a later iteration may bind anew keeps no fact from before the loop;
                # what the body finds holds in the rest of that iteration only
                facts = facts.without(_bound_names(s))
                self.plan_block(s.body, facts.copy())
                self.plan_block(s.orelse, facts.copy())
                continue
            if isinstance(s, gast.Assign) and id(s) in self.aliasing.before:
                established = []
                self.plans[id(s)] = self.plan(s, facts, established)
                for pair in established:
                    facts.decided[pair] = _Decided(s)
            elif not (isinstance(s, gast.Assign) and write_kind(s) is not None):
                bound = _bound_names(s)  # (a write leaves its object the same one)
                facts = facts.without(bound)
                if isinstance(s, gast.Assign) and id(s) in self.aliasing.after:
                    for name in bound & self.local_names:
                        facts.bound_at[name] = ((self.order, s),)
                    self.bound_after[id(s)] = frozenset(facts.bound_at)
        return facts

    def binding_flag(self, name, other, facts) -> str | None:
        """``rt.may_share(name, other)`` computed right after the later of the assignments
        that bound them, where the generated code still holds what Python holds for both
        (its buffers decide, as in guard): None if that is not known.

        Where a name was last bound by different assignments on different paths (_Facts),
        the flag is computed after each of the sites that can be the later one on some
        path: the later of each pair of assignments, one of each name. On a path, the last
        of those sites that runs is the later of the two names' last assignments on it
        (any site after it would bind one of the names again), so the flag then holds
        rt.may_share of the values both names hold to the end of the path. Each site must
        have both names bound on every path to it, and buffers that decide."""
        first, second = facts.bound_at.get(name), facts.bound_at.get(other)
        if first is None or second is None:
            return None
        sites = {max(a, b, key=lambda entry: entry[0]) for a in first for b in second}
        if any(site is None for _, site in sites):
            return None  # two parameters: check_separate tells on entry
        for _, site in sites:
            state = self.aliasing.after[id(site)]
            if not ({name, other} <= self.bound_after.get(id(site), frozenset())
                    and name in state.tokens and other in state.tokens
                    and _memory_tells(state.tokens[name], state.tokens[other])):
                return None
        ordered = sorted(sites, key=lambda entry: entry[0])
        key = (tuple(id(site) for _, site in ordered), name, other)
        if key not in self.binding_flags:
            flag = self.binding_flags[key] = self.namer.fresh("may_share")
            for _, site in ordered:
                self.after_binding.setdefault(id(site), []).append(located_like(
                    syntax.assign(flag, syntax.call(self.rt("may_share"), syntax.name(name),
                                                    syntax.name(other))), site))
        return self.binding_flags[key]

    def sharing_flag(self, name, other, fact) -> str:
        """The flag ``rt.may_share(name, other)``, computed before the write whose checks
        decide it (added to its plan the first time a later write reads it)."""
        if fact.flag is None:
            fact.flag = self.namer.fresh("may_share")
            before = self.plans[id(fact.statement)][0]
            before.insert(0, located_like(syntax.assign(fact.flag, syntax.call(
                self.rt("may_share"), syntax.name(name), syntax.name(other))), fact.statement))
        return fact.flag

    def block(self, statements):
        out = []
        for s in statements:
            if isinstance(s, (gast.For, gast.While, gast.If)):
                s.body = self.block(s.body)
                s.orelse = self.block(s.orelse)
                out.append(s)
            elif id(s) in self.plans:
                before, after = self.plans[id(s)]
                out.extend(before + [s] + after)
            else:
                out.extend(self.call_checks.get(id(s), []) + [s])
                out.extend(self.after_binding.get(id(s), []))
            for (statements, helper), (flag, base, index, part) in self.fact_flags.items():
                if id(s) not in statements:
                    continue
                if index == SAME:  # part = rt.iterated(base): base itself, unless a dict
                    test = syntax.call(self.rt("same_object"), syntax.name(base),
                                       syntax.name(part))
                elif not isinstance(index, gast.AST):  # a transposed or reshaped view
                    test = syntax.call(self.rt("views_whole"), syntax.name(base),
                                       syntax.name(part))
                else:
                    test = syntax.call(self.rt(helper), syntax.name(base),
                                       syntax.index_expression(index), syntax.name(part))
                out.append(located_like(syntax.assign(flag, test), s))
        return out

    def fact_flag(self, fact, helper) -> tuple:
        """(flag, index) for the fact ``part = base[index]`` (from _State.part_of).

        The flag is ``rt.<helper>(base, index, part)`` computed right after that
        statement: whether a write into part in place changes base
        (writes_through), or part sees a write into base (views_into). It is
        decided there, before any write can have made the generated code's part
        or base a copy (the generated code computes with values). Where paths made
        the part alike by different statements, it is computed after each: the
        last to run on a path made the part that path holds (any other binding of
        it would have ended the fact).
        """
        part, base, index, statements = fact
        key = (statements, helper)
        if key not in self.fact_flags:
            flag = self.namer.fresh("through" if helper == "writes_through" else "view")
            self.fact_flags[key] = (flag, base, index, part)
        return self.fact_flags[key][0], index

    def plan(self, s, facts=None, established=None):
        """(statements before, statements after) the write ``s``; ``facts``: what plan_block
        knows before it (_Facts), and ``established`` receives the pairs its checks decide."""
        name = s.targets[0].id
        kind = write_kind(s)
        state = self.aliasing.before[id(s)]
        effects = self.aliasing.effects[id(s)]
        live = effects.live
        if kind == "augmented" and (self.is_scalar(name) or not self.full):
            return [], []  # `s += v` on a scalar makes a new one: nothing else changes

        def group(member):
            return state.same.get(member, frozenset([member]))

        def views_of(written, current, helper="views_into"):
            """Make the live views of ``written`` again from its new value, ``current``
            (``helper`` decides whether a part sees the write, see fact_flag)."""
            out = []
            for part, fact in effects.views.get(written, ()):
                flag, index = self.fact_flag(fact, helper)
                remade = located_like(syntax.assign(part, _made_again(index, fact[1], current)), s)
                inner = [remade] + self.rebinding(group(part) & live, part, s)
                inner += views_of(part, part)
                out.append(located_like(gast.If(test=syntax.name(flag), body=inner, orelse=[]), s))
            return out

        before, after = [], []
        own = self.rebinding(effects.rebound, name, s) + views_of(name, name)
        in_place = None  # `y += v` writes in place only into arrays and lists
        if kind == "augmented":
            in_place = self.namer.fresh("in_place")
            before.append(located_like(syntax.assign(in_place, syntax.call(
                self.rt("written_in_place"), syntax.name(name))), s))
        if kind != "augmented":
            after += own
        elif own:
            after.append(located_like(gast.If(test=syntax.name(in_place), body=own, orelse=[]), s))
        block, current = after, name
        for base, fact in effects.chain:
            flag, index = self.fact_flag(fact, "writes_through")
            inner = [located_like(statement, s) for statement in self.stored(base, index, current)]
            inner += self.rebinding(group(base) & live, base, s)
            # base changed because one of its parts was written in place: another part
            # sees that if it is a view of the written memory, or (in a list, tuple or
            # dict) the very element object written, which writes_through tells
            inner += views_of(base, base, "writes_through")
            block.append(located_like(gast.If(test=syntax.name(flag), body=inner, orelse=[]), s))
            block, current = inner, base
        if self.full and kind != "augmented" and memory(
                state.points.get(name, frozenset())) & self.aliasing.read_only:
            where = position(s)
            before.append(located_like(gast.Expr(value=syntax.call(
                self.rt("check_writable"), syntax.name(name), syntax.constant(_place(where)),
                syntax.constant(_written_name(where, name)))), s))
        checks = []
        if self.full:
            shared = self.shared(name, kind, state, live - effects.family)
            checks = [check for other in shared for check in self.guard(
                s, name, other, state, facts, established)]
            self.separate(s, name, state, live)
        if in_place is not None:
            if checks:  # a float's `+=` makes a new one: it cannot change another name
                before.append(located_like(gast.If(test=syntax.name(in_place), body=checks,
                                            orelse=[]), s))
            elif not own and not after:
                before = []  # nothing reads the flag
            return before, after
        return checks + before, after

    def stored(self, base, how, current) -> list:
        """Statements giving ``base`` the new value ``current`` of its part (see _view_of)."""
        if how == SAME:
            return [syntax.assign(base, syntax.name(current))]
        if how == TRANSPOSED:
            return [syntax.assign(base, syntax.attribute(current, "T"))]
        if not isinstance(how, gast.AST):  # reshaped: the same elements, base's shape
            shape = self.namer.fresh("shape")
            return [syntax.assign(shape, syntax.attribute(base, "shape")),
                    syntax.assign(base, syntax.call(syntax.attribute(current, "reshape"),
                                                    syntax.name(shape)))]
        return [syntax.assign(base, syntax.call(self.rt("updated"), syntax.name(base),
                                                syntax.index_expression(how),
                                                syntax.name(current)))]

    def rebinding(self, names, source, like) -> list:
        return [located_like(syntax.assign(other, syntax.name(source)), like)
                for other in sorted(names - {source})]

    def tokens(self, name, state) -> frozenset:
        if name in self.local_names:
            return state.tokens.get(name, frozenset())
        return _ORIGINAL

    def points(self, name, state) -> frozenset:
        if name in self.local_names:
            return state.points.get(name, frozenset())
        return self.aliasing.atom(syntax.dotted(name), state)

    def shared(self, name, kind, state, candidates) -> list:
        """The names among ``candidates`` that may see the write into ``name``."""
        written = state.points.get(name, frozenset())
        if self.is_scalar(name):
            return []
        out = []
        for other in sorted(candidates):
            if self.is_scalar(other):
                continue
            read = self.aliasing.reach(self.points(other, state))
            if kind in ("append", "pop"):  # the list object changes, not array memory
                common = objects(written) & objects(read)
            else:
                common = memory(written) & memory(read)
            if common:
                out.append((other, common))
        return out

    def guard(self, s, name, shared, state, facts=None, established=None):
        """A run-time check of ``name`` against ``other``, or an error when it runs if
        memory cannot decide: unless both are certainly views of one buffer of the
        generated code, an earlier write may have copied what Python keeps shared.

        Where memory decides, it decides for the writes after too (the pair is appended to
        ``established``): arrays of numbers that share no memory never will, until a name
        is bound anew. Where memory cannot decide, but did at an earlier write or right
        after both names were bound (``facts``), the error is raised only if rt.may_share
        said so there."""
        other, common = shared
        where = position(s)
        made = sorted(state.made.get(name, frozenset()) | state.made.get(other, frozenset()),
                      key=lambda o: (o.lineno, o.col_offset))
        since = _place(made[-1]) if made else ""
        written_name = _written_name(where, name)
        strings = [syntax.constant(text) for text in (_place(where), written_name, other, since)]
        undecidable = frozenset() if _memory_tells(state.tokens.get(name, frozenset()),
                                                   self.tokens(other, state)) else common
        other_node = syntax.name(other) if other in self.local_names else syntax.dotted(other)
        if any(not site[0].endswith("-part") for site in undecidable):
            # raised when (if) the write runs and other then holds an array or a list: the
            # generic code, made for any argument types, may not know what a
            # specialization for arrays knows
            raised = located_like(gast.Expr(value=syntax.call(
                self.rt("cannot_follow_write"), other_node, *strings, syntax.name(name))), s)
            fact = facts.decided.get((name, other)) if facts is not None else None
            if fact is not None:
                flag = self.sharing_flag(name, other, fact)
            elif facts is not None and other in self.local_names:
                flag = self.binding_flag(name, other, facts)
            else:
                flag = None
            if flag is None:
                return [raised]
            return [located_like(gast.If(test=syntax.name(flag), body=[raised], orelse=[]), s)]
        if not undecidable and established is not None and other in self.local_names:
            established.append((name, other))
        checks = []
        # an argument's elements, if it has any (a list of arrays, not an array): the
        # analysis assumes any argument may be a list, so these are often no sharing at all
        for root in sorted({_root(site) for site in undecidable}):
            checks.append(syntax.call(self.rt("check_holds_nothing"), _root_node(root),
                                      *strings))
        index = (syntax.deepcopy(s.value.args[1]) if write_kind(s) == "subscript"
                 else syntax.constant(None))
        checks.append(syntax.call(self.rt("check_unshared"), syntax.name(name), index,
                                  other_node, *strings))
        return [located_like(gast.Expr(value=call), s) for call in checks]

    def separate(self, s, name, state, live):
        """Check on entry that no argument the write reaches shares memory with another
        one read later (f(a, a)): then sites of different arguments never overlap."""
        written = {_root(site) for site in memory(state.points.get(name, ())) if _external(site)}
        for other in sorted(live):
            if self.is_scalar(other):
                continue
            read = {_root(site) for site in memory(self.aliasing.reach(self.points(other, state)))
                    if _external(site)}
            for first in sorted(written):
                for second in sorted(read - {first}):
                    key = (first, second)
                    if key in self.entry:
                        continue
                    where = position(s)
                    self.entry[key] = located_like(gast.Expr(value=syntax.call(
                        self.rt("check_separate"), _root_node(first), _root_node(second),
                        syntax.constant(_place(where)),
                        syntax.constant(_written_name(where, name)),
                        syntax.constant(first[1]), syntax.constant(second[1]))), s)


def _made_again(how, base, current):
    """The value ``part = base<how>`` has again, made from ``current``, base's new value."""
    if how == SAME:
        return syntax.name(current)
    if how == TRANSPOSED:
        return syntax.attribute(current, "T")
    if not isinstance(how, gast.AST):  # reshaped: the same call, on the new value
        call = syntax.deepcopy(how[1])
        if isinstance(call.func, gast.Attribute) and isinstance(
                call.func.value, gast.Name) and call.func.value.id == base:  # base.reshape(...)
            call.func.value = syntax.name(current)
        else:
            call.args[0] = syntax.name(current)
        return call
    return gast.Subscript(value=syntax.name(current), slice=syntax.deepcopy(how),
                          ctx=gast.Load())


def _root_node(root):
    return syntax.dotted(root[1]) if root[0] == "global" else syntax.name(root[1])


def _memory_tells(buffers, other_buffers) -> bool:
    """Whether the generated code's memory tells what Python shares between two names that
    view ``buffers`` and ``other_buffers`` (_State.tokens): an allocation is the same in
    Python and in the generated code; a write's copy stands for an object Python shares, so
    two different copies (or one of several) mean that memory does not tell."""
    copies = {buffer for buffer in buffers | other_buffers if buffer[0] != "new"}
    return len(copies) <= 1


@dataclasses.dataclass
class _Facts:
    """What holds at a point on every path to it: ``decided``, (name, other) -> _Decided,
    the pairs an earlier write's check decided; ``bound_at``, name -> the assignments that
    last bound the name on the paths to here, as (order, statement) pairs in order ((0,
    None): a parameter, bound on entry): a name is there only if every path binds it.
    Neither name of a fact was bound anew since."""

    decided: dict
    bound_at: dict

    def copy(self) -> "_Facts":
        return _Facts(dict(self.decided), dict(self.bound_at))

    def common(self, other: "_Facts") -> "_Facts":
        return _Facts({pair: fact for pair, fact in self.decided.items()
                       if other.decided.get(pair) is fact},
                      {name: entry if other.bound_at[name] == entry else tuple(sorted(
                          set(entry) | set(other.bound_at[name]),
                          key=lambda pair: pair[0]))
                       for name, entry in self.bound_at.items() if name in other.bound_at})

    def without(self, names) -> "_Facts":
        """These facts but those of ``names`` (bound anew)."""
        if not names:
            return self
        return _Facts({pair: fact for pair, fact in self.decided.items()
                       if not names & set(pair)},
                      {name: entry for name, entry in self.bound_at.items()
                       if name not in names})


@dataclasses.dataclass(eq=False)
class _Decided:
    """Two names whose sharing the checks of the write ``statement`` decide: the flag
    rt.may_share computes before that write, once a later write reads it (None until then)."""

    statement: gast.Assign
    flag: str | None = None


def _bound_names(statement) -> set:
    """The names ``statement`` (or any statement in it) binds anew: assigned (a write into
    an object excepted), a loop's target, deleted."""
    bound = set()
    for inner in _in_order([statement]):
        if isinstance(inner, gast.Assign) and write_kind(inner) is not None:
            continue
        if isinstance(inner, gast.For):
            bound |= {n.id for n in syntax.names(inner.target)}
        elif isinstance(inner, (gast.Assign, gast.Delete)):
            targets = inner.targets
            bound |= {n.id for t in targets for n in syntax.names(t)
                      if not isinstance(n.ctx, gast.Load)}
        elif isinstance(inner, gast.AugAssign):
            bound |= {n.id for n in syntax.names(inner.target)}
    return bound


def _in_order(statements):
    for s in statements:
        yield s
        if isinstance(s, (gast.For, gast.While, gast.If)):
            yield from _in_order(s.body)
            yield from _in_order(s.orelse)


def _place(origin) -> str:
    return "%s:%d:%d" % (origin.filename, origin.lineno, origin.col_offset)


def _written_name(origin, name) -> str:
    """The name the user wrote at the write (a helper's parameter has a fresh name in here)."""
    line = linecache.getline(origin.filename, origin.lineno)
    match = re.match(r"[A-Za-z_]\w*", line[origin.col_offset:])
    if match and (name == match.group(0) or name.startswith(match.group(0) + "_")):
        return match.group(0)  # v for v_2, the name an inlined helper's parameter got
    container = _container_text(line[origin.col_offset:])
    return container if container is not None else name


def _container_text(statement: str) -> str | None:
    """``xs[t]`` for ``xs[t][k] = v`` (or ``+=``): what a nested element write writes into,
    as the user wrote it (srcad names that element itself); None if not such a write."""
    target = re.match(r"\s*(.+?)\s*(?:\*\*|//|>>|<<|[-+*/@%&|^])?=(?!=)", statement)
    if target is None or not target.group(1).endswith("]"):
        return None
    text, depth = target.group(1), 0
    for at in range(len(text) - 1, -1, -1):  # the last subscript's opening bracket
        depth += {"]": 1, "[": -1}.get(text[at], 0)
        if depth == 0:
            inner = text[:at]
            return inner if inner.endswith("]") else None
    return None


