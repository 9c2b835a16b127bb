"""scipy.signal: convolve, correlate (any number of dimensions, every method), convolve2d
and correlate2d (boundary 'fill' with fillvalue 0). Registered only when SciPy imports (it is
an optional dependency: without it this module registers nothing).

Each is bilinear in its two operands. Its result in a mode is a window of the full result
(rt.convolution_padding says where, for each library's 'same' and 'valid' conventions:
'valid' swaps the operands when the second is the larger, 'same' centers in1's shape, and
correlate2d centers it one element later than correlate along an axis of even length);
the adjoint pads g back to the full result with zeros and correlates it with the other
operand in 'valid' mode (rt.valid_correlation: by FFTs of the padded g's size for operands
of more than 64 elements, where SciPy's own methods would take several times longer): a
convolution or correlation again, so second order works through these templates.
``method`` only changes how SciPy computes the result, not the derivative.
"""

import gast
import numpy as np  # noqa: F401 - the templates' np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import constraint
from srcad.templates.numpy_numerical import convolution_shape
from srcad.vocabulary import multilinear

try:
    from scipy import signal
except ImportError:  # SciPy is optional: without it this module registers nothing
    signal = None


def _filled_with_zeros(arguments, carries, resolve):
    """convolve2d and correlate2d: only boundary='fill' with fillvalue=0 (constants) is
    linear in the operands; 'wrap' and 'symm' are too, but srcad has no adjoint for them."""
    boundary, fillvalue = arguments["boundary"], arguments["fillvalue"]
    if (isinstance(boundary, gast.Constant) and boundary.value == "fill"
            and isinstance(fillvalue, gast.Constant) and fillvalue.value == 0):
        return None
    return (("srcad differentiates scipy.signal.convolve2d and correlate2d with "
             "boundary='fill' and fillvalue=0 only"),
            ("Pad the image yourself (np.pad with mode 'wrap' or 'symmetric', or a constant) "
             "and call it with mode='valid'."))


_FULL = shapes.Known("full")


def _shape_of_first(in1, in2, mode=_FULL, *rest, **kwargs):
    """in1's rank; each axis of length 1 or not when the operands' tell."""
    return convolution_shape(in1, in2, mode)


if signal is not None:
    # convolve: the adjoint pads g back to the full result with zeros (rt.convolution_padding)
    # and correlates it with the other operand in 'valid' mode (rt.valid_correlation)
    multilinear(signal.convolve, parameters='y, in1, in2, mode="full", method="auto"',
                transposes={
                    "in1": "rt.valid_correlation(np.pad(g, rt.convolution_padding(g, in1, in2, "
                           "mode, 'scipy')), in2)",
                    "in2": "rt.valid_correlation(np.pad(g, rt.convolution_padding(g, in1, in2, "
                           "mode, 'scipy')), in1)"},
                call="signal.convolve", shape=_shape_of_first)
    # correlate(in1, in2) is the convolution of in1 with in2 reversed: in2's adjoint is
    # reversed back
    multilinear(signal.correlate, parameters='y, in1, in2, mode="full", method="auto"',
                transposes={
                    "in1": "rt.valid_correlation(np.pad(g, rt.convolution_padding(g, in1, in2, "
                           "mode, 'scipy')), np.flip(in2))",
                    "in2": "np.flip(rt.valid_correlation(np.pad(g, rt.convolution_padding(g, "
                           "in1, in2, mode, 'scipy')), in1))"},
                call="signal.correlate", shape=_shape_of_first)
    # convolve2d as convolve, with boundary='fill' and fillvalue=0 only (refused otherwise)
    multilinear(signal.convolve2d,
                parameters='y, in1, in2, mode="full", boundary="fill", fillvalue=0',
                transposes={
                    "in1": "signal.correlate2d(np.pad(g, rt.convolution_padding(g, in1, in2, "
                           "mode, 'scipy')), in2, 'valid')",
                    "in2": "signal.correlate2d(np.pad(g, rt.convolution_padding(g, in1, in2, "
                           "mode, 'scipy')), in1, 'valid')"},
                call="signal.convolve2d", shape=_shape_of_first)
    # correlate2d as correlate, boundary='fill' and fillvalue=0 only; its 'same' window
    # starts one element later than correlate's along an axis of even length
    multilinear(signal.correlate2d,
                parameters='y, in1, in2, mode="full", boundary="fill", fillvalue=0',
                transposes={
                    "in1": "signal.convolve2d(np.pad(g, rt.convolution_padding(g, in1, in2, "
                           "mode, 'correlate2d')), in2, 'valid')",
                    "in2": "signal.correlate2d(in1, np.pad(g, rt.convolution_padding(g, in1, "
                           "in2, mode, 'correlate2d')), 'valid')"},
                call="signal.correlate2d", shape=_shape_of_first)
    constraint(_filled_with_zeros, signal.convolve2d, signal.correlate2d)
    # the adjoints' correlation (srcad.runtime), bilinear: big's adjoint is the full
    # convolution of small with g, small's the correlation of big with g
    multilinear(rt.valid_correlation, parameters="y, big, small",
                transposes={"big": "signal.convolve(small, g)",
                            "small": "rt.valid_correlation(big, g)"})
