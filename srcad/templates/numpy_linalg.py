"""Products: np.dot (and the .dot method), np.outer. (`@` is in operators.py.)"""

import numpy as np

from srcad.analysis import shapes
from srcad.registry import facts, shape_rule
from srcad.vocabulary import multilinear


multilinear(np.dot, np.ndarray.dot, parameters="z, x, y", call="np.dot",
            transposes={"x": "rt.dot_adjoint_left(g, x, y)", "y": "rt.dot_adjoint_right(g, x, y)"})
multilinear(np.outer, parameters="z, x, y",
            transposes={"x": "np.reshape(np.dot(g, np.ravel(y)), np.shape(x))",
                        "y": "np.reshape(np.dot(np.ravel(x), g), np.shape(y))"})
shape_rule(shapes.dot, np.dot, np.ndarray.dot)
# products: zero when either factor is zero, and a fresh array
facts(np.dot, np.outer, np.tensordot, allocating=True)
facts(np.tensordot, linear_in=(0, 1))
facts(np.inner, linear_in=(0, 1))
