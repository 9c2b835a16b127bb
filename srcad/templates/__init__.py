"""srcad's primitives: everything it knows about each function it differentiates.

One family of primitives per module. For each primitive its file holds its
adjoint (reverse mode) beside its tangent (forward mode), in the notation of
DESIGN.md (the first parameter is the result, the others the arguments, and
``d[x]`` is x's derivative), its shape rule (srcad.analysis.shapes), its
specializer if it is one of srcad's runtime helpers, and the facts the
optimizer relies on (linear in which arguments, allocating, pure,
non-differentiable): all on its record, registry.Primitive. Most are declared
in one line by a rule helper of srcad/vocabulary.py (``elementwise``,
``binary``, ``linear``, ``multilinear``, ``reduction``); the rest as
``@adjoint``/``@tangent`` pairs. Broadcasting, zeros and other shared numerics
come from srcad.runtime (``rt``), never re-derived here. These modules import
nothing above the registry (never srcad.api).
"""
