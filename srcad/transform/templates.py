"""Pasting a template's body into generated code.

Given a template and a binding of its parameters to the atoms of one
statement, ``instantiate`` returns the template's statements with

* each parameter replaced by the expression it is bound to,
* ``d[p]`` replaced by the derivative variable of whatever ``p`` is bound to
  (statements that write ``d[p]`` are dropped when ``p`` has no derivative,
  e.g. a constant or an inactive variable),
* template temporaries renamed to fresh names,
* every other free name (``np``, ``math``, ``rt``...) replaced by the alias
  generated code uses for the object it means in the template's module.

Accumulations stay in the intermediate form ``x_bar += e`` (and ``-=``);
transform/lower_accumulations.py turns them into plain assignments.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..registry import Template, is_derivative_ref

_UNBOUND = object()


class _Substitute(gast.NodeTransformer):
    def __init__(self, bindings, derivatives, temporaries, aliases, template):
        self.bindings = bindings
        self.derivatives = derivatives
        self.temporaries = temporaries
        self.aliases = aliases
        self.template = template

    def visit_Subscript(self, node):
        if is_derivative_ref(node):
            derivative = self.derivatives.get(node.slice.id)
            if derivative is None:
                raise _NoDerivative(node.slice.id)
            return syntax.name(derivative, store=isinstance(node.ctx, gast.Store))
        return self.generic_visit(node)

    def visit_Name(self, node):
        identifier = node.id
        if identifier in self.bindings:
            return syntax.deepcopy(self.bindings[identifier])
        if identifier in self.temporaries:
            return syntax.name(self.temporaries[identifier], isinstance(node.ctx, gast.Store))
        obj = self.template.namespace.get(identifier, _UNBOUND)
        if obj is _UNBOUND:
            import builtins

            obj = getattr(builtins, identifier, _UNBOUND)
            if obj is not _UNBOUND:
                return node  # builtins (float, abs...) are never shadowed in generated code
            raise NameError("template %s (%s) uses the unknown name %r"
                            % (self.template.name, self.template.where, identifier))
        return syntax.name(self.aliases.name_for(obj))


class _NoDerivative(Exception):
    def __init__(self, parameter):
        self.parameter = parameter


def instantiate(template: Template, bindings: dict, derivatives: dict, namer, aliases) -> list:
    """The template's statements for one use.

    ``bindings`` maps parameter names to gast expressions; ``derivatives``
    maps parameter names to the name of their derivative variable, or None
    when the parameter has none.
    """
    temporaries = {}
    for statement in template.body:
        if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name):
            temp = statement.targets[0].id
            if temp not in temporaries:
                temporaries[temp] = namer.fresh(temp)
    out = []
    for statement in template.body:
        target = statement.target if isinstance(statement, gast.AugAssign) else statement.targets[0]
        if is_derivative_ref(target) and derivatives.get(target.slice.id) is None:
            continue  # no derivative for this parameter: its contribution is not needed
        substitute = _Substitute(bindings, derivatives, temporaries, aliases, template)
        try:
            out.append(substitute.visit(syntax.deepcopy(statement)))
        except _NoDerivative:
            continue  # reads the derivative of something that has none: contributes zero
    return out
