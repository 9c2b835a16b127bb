"""NumPy's numerical routines: convolve and correlate (1-D, modes full, same, valid).

np.convolve and np.correlate are bilinear in their operands. The result in a mode is a
window of the full result (rt.convolution_padding: 'valid' takes the middle whichever
operand is the longer; 'same' has the longer length, and np.correlate, which correlates
v with a and reverses the result when v is the longer, starts its window one element
later than np.convolve for an even length); the adjoint pads g back to the full result
with zeros and correlates it with the other operand in 'valid' mode: np.correlate or
np.convolve again, so second order works through these same templates.
"""

import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.vocabulary import multilinear

VECTOR = shapes.Array((None,))

# np.convolve takes a number for an operand as a vector of one element: np.ravel
multilinear(np.convolve, parameters='y, a, v, mode="full"',
            transposes={"a": "np.reshape(np.correlate(np.pad(g, rt.convolution_padding("
                             "g, a, v, mode, 'numpy.convolve')), np.ravel(v), 'valid'), np.shape(a))",
                        "v": "np.reshape(np.correlate(np.pad(g, rt.convolution_padding("
                             "g, a, v, mode, 'numpy.convolve')), np.ravel(a), 'valid'), np.shape(v))"},
            shape=lambda *args, **kwargs: VECTOR)
# np.correlate(a, v) is the convolution of a with v reversed: v's adjoint is reversed back,
# which np.correlate(a, padded g, 'valid') does (NumPy reverses the result when the second
# operand is the longer)
multilinear(np.correlate, parameters='y, a, v, mode="valid"',
            transposes={"a": "np.reshape(np.convolve(np.pad(g, rt.convolution_padding("
                             "g, a, v, mode, 'numpy.correlate')), v, 'valid'), np.shape(a))",
                        "v": "np.reshape(np.correlate(a, np.pad(g, rt.convolution_padding("
                             "g, a, v, mode, 'numpy.correlate')), 'valid'), np.shape(v))"},
            shape=lambda *args, **kwargs: VECTOR)
