"""srcad's gradient templates, one family of primitives per module.

Each primitive's adjoint (reverse mode) sits next to its tangent (forward
mode), in the notation of DESIGN.md: the first parameter is the result, the
others the arguments, and ``d[x]`` is x's derivative. Broadcasting, zeros and
other shared numerics come from srcad.runtime (``rt``), never re-derived here.
Shape rules (srcad.analysis.shapes) let generated code be specialized.
"""
