"""``mx.npx`` (MXNet's ``mx.nd.npx``): the neural-network and MXNet-specific operators
over ``mx.np`` arrays, with MXNet's calling convention (arrays are inputs, keywords are
attributes).  Each is the registry operator MXNet's ``npx`` function runs, so results
and gradients are those of the legacy operator of the same meaning."""
from __future__ import annotations

import numbers

from ...ops.numpy_shape_free import npx_reshape_shape
from ...ops.registry import get_op

from ..register import make_function
from ..numpy._array import ndarray, apply, as_np

# npx name: registry operator
_OPS = {
    "relu": "relu", "sigmoid": "sigmoid", "softmax": "softmax", "log_softmax": "log_softmax",
    "activation": "Activation", "leaky_relu": "LeakyReLU", "convolution": "Convolution",
    "deconvolution": "Deconvolution", "pooling": "Pooling",
    "fully_connected": "FullyConnected", "batch_norm": "BatchNorm", "layer_norm": "LayerNorm",
    "dropout": "Dropout", "embedding": "Embedding", "one_hot": "one_hot", "pick": "pick",
    "topk": "topk", "batch_dot": "batch_dot", "batch_flatten": "Flatten",
    "sequence_mask": "SequenceMask", "gamma": "gamma", "gammaln": "gammaln", "erf": "erf",
    "erfinv": "erfinv", "shape_array": "shape_array", "arange_like": "_contrib_arange_like",
    "gather_nd": "gather_nd", "rnn": "RNN", "roi_pooling": "ROIPooling",
    "smooth_l1": "smooth_l1", "reshape_like": "reshape_like", "cast": "Cast",
    "multibox_prior": "_contrib_MultiBoxPrior",
    "multibox_target": "_contrib_MultiBoxTarget",
    "multibox_detection": "_contrib_MultiBoxDetection",
    "constraint_check": "_npx_constraint_check",
}

__all__ = sorted(_OPS) + ["reshape", "nonzero", "slice"]


def _install():
    g = globals()
    for name, op_name in _OPS.items():
        g[name] = make_function(get_op(op_name), name, cls=ndarray)


_install()


def reshape(a, newshape, reverse: bool = False, order: str = "C") -> ndarray:
    """MXNet's extended reshape: ``-1`` infers, ``-2`` copies the dimension, ``-3`` drops a
    size-1 dimension, ``-4`` copies the remaining dimensions, ``-5`` merges two, ``-6``
    splits one in two (the two sizes follow; one may be ``-1``)."""
    a = as_np(a)
    if isinstance(newshape, numbers.Integral):
        newshape = (newshape,)
    shape = npx_reshape_shape(tuple(a.shape), tuple(newshape), reverse)
    from ..numpy._op import reshape as np_reshape
    return np_reshape(a, shape)


def nonzero(a) -> ndarray:
    """Indices of the nonzero elements, one row per element (shape ``(N, ndim)``)."""
    return apply("_npx_nonzero", [as_np(a)])


def slice(data, begin, end, step=None) -> ndarray:  # noqa: A001 - MXNet's name
    """``data[begin:end:step]`` per leading axis (``None`` entries take the defaults; no
    ``step`` means 1 everywhere)."""
    return apply("slice", [as_np(data)], begin=tuple(begin), end=tuple(end),
                 step=() if step is None else tuple(step))
