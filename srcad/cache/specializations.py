"""One request's generated code: one compiled function per tuple of argument kinds.

A derivative (``srcad.grad(f)``, the code ``jvp`` and ``vjp`` run) is generated
for the kinds of the arguments it is called with (analysis/shapes.py), once per
tuple of kinds, on first need. Threads calling it at once for new kinds generate
the code once: the table is checked again under a lock before generating.
"""

from __future__ import annotations

import threading

from ..analysis.shapes import of_value


class Specializations:
    """``generate(kinds)`` (a pipeline.Generated) per tuple of kinds, made on first need."""

    def __init__(self, generate):
        self.generate = generate
        self.by_kinds: dict = {}  # kinds -> pipeline.Generated; readers may use it directly
        self._lock = threading.Lock()

    def for_values(self, values):
        """The code for arguments ``values``."""
        return self.get(tuple(map(of_value, values)))

    def get(self, kinds: tuple):
        """The code for arguments of ``kinds``."""
        generated = self.by_kinds.get(kinds)
        if generated is None:
            with self._lock:
                generated = self.by_kinds.get(kinds)
                if generated is None:
                    generated = self.by_kinds[kinds] = self.generate(kinds)
        return generated
