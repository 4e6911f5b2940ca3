"""``mx.npx`` (MXNet's ``mx.nd.npx``): the neural-network and MXNet-specific operators
over ``mx.np`` arrays, with MXNet's calling convention (arrays are inputs, keywords are
attributes).  Each is the registry operator MXNet's ``npx`` function runs, so results
and gradients are those of the legacy operator of the same meaning."""
from __future__ import annotations

import numbers

import numpy as onp

from ...base import MXNetError
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
    "slice": "slice", "multibox_prior": "_contrib_MultiBoxPrior",
    "multibox_target": "_contrib_MultiBoxTarget",
    "multibox_detection": "_contrib_MultiBoxDetection",
}

__all__ = sorted(_OPS) + ["reshape", "nonzero"]


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
    shape = _npx_shape(tuple(a.shape), tuple(newshape), reverse)
    from ..numpy._op import reshape as np_reshape
    return np_reshape(a, shape)


def _npx_shape(src: tuple, spec: tuple, reverse: bool) -> tuple:
    """The target shape of ``npx.reshape`` (MXNet's ``_npx_reshape`` codes)."""
    if reverse:
        return tuple(reversed(_npx_shape(tuple(reversed(src)), _reverse_spec(spec), False)))
    out, i, j, infer = [], 0, 0, None
    while j < len(spec):
        code = spec[j]
        if code >= 0:
            out.append(code)
            i += 1
        elif code == -1:
            infer = len(out)
            out.append(-1)
            i += 1
        elif code == -2:
            out.append(src[i])
            i += 1
        elif code == -3:
            if src[i] != 1:
                raise MXNetError(f"npx.reshape: -3 drops a dimension of size 1, got "
                                 f"{src[i]} (shape {src}, newshape {spec})")
            i += 1
        elif code == -4:
            out.extend(src[i:])
            i = len(src)
        elif code == -5:
            out.append(src[i] * src[i + 1])
            i += 2
        elif code == -6:
            d1, d2 = spec[j + 1], spec[j + 2]
            if d1 == -1:
                d1 = src[i] // d2
            if d2 == -1:
                d2 = src[i] // d1
            out.extend([d1, d2])
            i += 1
            j += 2
        else:
            raise MXNetError(f"npx.reshape: invalid code {code} in {spec}")
        j += 1
    if infer is not None:
        known = int(onp.prod([d for k, d in enumerate(out) if k != infer]))
        out[infer] = int(onp.prod(src)) // max(known, 1)
    return tuple(out)


def _reverse_spec(spec):
    """``spec`` read right to left, keeping ``-6``'s two sizes in order after it."""
    items, j = [], 0
    while j < len(spec):
        if spec[j] == -6:
            items.append((-6, spec[j + 2], spec[j + 1]))
            j += 3
        else:
            items.append((spec[j],))
            j += 1
    return tuple(c for item in reversed(items) for c in item)


def nonzero(a) -> ndarray:
    """Indices of the nonzero elements, one row per element (shape ``(N, ndim)``)."""
    return apply("_npx_nonzero", [as_np(a)])



