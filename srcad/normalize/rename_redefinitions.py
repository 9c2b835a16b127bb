"""Give each redefinition of a name in straight-line code a fresh name (SSA renaming).

After this pass, a name assigned only in the function's top-level statement
list is assigned exactly once (parameters count as assignments), so the
reverse sweep can read every intermediate value without a tape::

    x = x * 2.0          x_2 = x * 2.0
    x = np.sin(x)   ->   x_3 = np.sin(x_2)
    return x             return x_3

Names also assigned inside a loop or branch keep their name; the tape takes
care of their overwritten values.
"""

from __future__ import annotations

import gast

from ..naming import Namer
from ..syntax import stored_names


class _RenameLoads(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node


def rename_redefinitions(tree: gast.FunctionDef, namer: Namer) -> gast.FunctionDef:
    in_compound = set()
    for statement in tree.body:
        if not isinstance(statement, (gast.Assign, gast.Expr, gast.Return)):
            in_compound |= stored_names(statement)
    defined = {a.id for a in tree.args.args}
    current: dict[str, str] = {}
    for statement in tree.body:
        _RenameLoads(current).visit(statement.value if hasattr(statement, "value")
                                    and statement.value is not None else statement)
        if not isinstance(statement, gast.Assign):
            continue
        for target in statement.targets:
            for node in gast.walk(target):
                if not isinstance(node, gast.Name) or node.id in in_compound:
                    continue
                original = node.id
                if original in defined:
                    node.id = namer.fresh(original)
                    current[original] = node.id
                else:
                    current.pop(original, None)
                defined.add(original)
    return tree
