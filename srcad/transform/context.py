"""What a transform (reverse or forward) reads besides the tree: one function's facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.activity import Activity
from ..namespace import Aliases
from ..naming import Namer
from ..parse import ParsedFunction


@dataclass
class TransformContext:
    parsed: ParsedFunction
    namer: Namer
    aliases: Aliases
    activity: Activity
    resolve: object
    kinds: dict = field(default_factory=dict)  # abstract values, when specializing
    recompute: bool = True  # recompute cheap loop intermediates rather than record them
    # the driver's hook (statements, the names they read now, their shapes: see
    # templates.instantiate) -> the names the adjoint
    # statements will still read once optimized (a read specialization removes, say the
    # shape argument of rt.unbroadcast, needs no tape); None: every name they read now
    reads_once_optimized: object = None
    # statement of the tree -> how the adjoint template of its operation binds, found by an
    # earlier transform of the same tree (the check grad() runs, then the first call): what
    # does not depend on the names a transform makes (transform/reverse.py, _TemplateUse;
    # and its survey of the body, _Survey)
    template_uses: dict = field(default_factory=dict)
