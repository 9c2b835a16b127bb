"""One request's generated code: one per tuple of argument kinds, made on first need.

A derivative (``srcad.grad(f)``, the code ``jvp`` and ``vjp`` run) is generated
for the kinds of the arguments it is called with (analysis/shapes.py), once per
tuple of kinds. A lookup takes no lock; a miss generates under the lock after
looking again, so threads meeting new kinds at once generate each
specialization once.
"""

from __future__ import annotations

import threading

from ..analysis.shapes import of_value
from .memory import statistics


class Specializations:
    """``generate(kinds)`` (a pipeline.Generated) per tuple of kinds, made on first need."""

    def __init__(self, generate):
        self.generate = generate
        self.table: dict = {}  # kinds (analysis/shapes.of_value of each argument) -> Generated
        self.lock = threading.Lock()

    def for_kinds(self, kinds):
        """The code for arguments of ``kinds`` (None: of any kind)."""
        generated = self.table.get(kinds)
        if generated is None:
            with self.lock:
                generated = self.table.get(kinds)
                if generated is None:
                    generated = self.generate(kinds)
                    statistics["generated"] += 1
                    self.table[kinds] = generated
        return generated

    def for_values(self, values):
        """The code for arguments ``values``."""
        return self.for_kinds(tuple(map(of_value, values)))
