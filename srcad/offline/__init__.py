"""Offline code generation: write derivatives as an importable Python module.

(The package is ``srcad.offline``: ``srcad.codegen`` is its main function.)

``srcad.codegen(f, "grads.py", wrt=...)`` (and ``srcad codegen FILE.py:FUNC``)
writes a module holding ``grad_f`` (reverse mode: the parameters of ``f``,
returning what ``srcad.grad(f, wrt=...)`` returns) or ``jvp_f`` (forward
mode: the parameters, then the tangents of ``wrt``; returns
``(output, output_tangent)``), with a header saying what it was generated
from, when, by which srcad and with which options.

The generated function's text is the one ``srcad.source`` shows (for
arguments of any type, unless ``example_args`` are given: then specialized
for arguments like those). One file per step:

    target.py      one derivative to write: checks, generation (api.generate)
    link.py        module-level imports and literals for the names the code
                   reads; renaming and defaults, on the syntax tree
    header.py      the module's docstring
    standalone.py  srcad's runtime helpers copied into the module
                   (``standalone=True``: it then needs only NumPy)
    module.py      ``codegen`` and ``module_source``: the module, assembled

Code that calls ``vjp_of`` (the derivative of a recursive function, generated
at run time) cannot be standalone.
"""

from .link import free_names, rename_names
from .module import codegen, module_source, write_module
from .target import CodegenError, Target, module_name_for_path

__all__ = ["CodegenError", "Target", "codegen", "free_names", "module_name_for_path",
           "module_source", "rename_names", "write_module"]
