"""Fused CPU steps for CachedOp plans: a layer with the ReLU that follows it, and an
inference convolution with the BatchNorm after it folded into its weights.

These are not registered operators: :mod:`gluonlite.engine.cpu_rewrite` builds one
:class:`FusedLayer` per matched group of graph units and runs it as one plan step.
The operator knowledge the rewrite needs (which operators may absorb a ReLU, what
counts as a ReLU, when a BatchNorm folds) lives here, next to the operators.

Semantics are those of the unfused steps:

* ``relu`` keeps NaN (``maximum``), ``Activation(act_type="relu")`` maps NaN to 0
  (``fmax``); both are applied in place on the producer's output buffer;
* the ReLU gradient is ``dy * (y > 0)`` (0 at 0 and at NaN), computed from the fused
  output, then handed to the producer's own backward;
* a folded BatchNorm (predict mode or ``use_global_stats``, no gradients wanted)
  turns ``BN(conv(x, w) + b)`` into ``conv(x, w * s) + (b - mean) * s + beta`` with
  ``s = gamma / sqrt(moving_var + eps)`` (``gamma = 1`` with ``fix_gamma``); when the
  output has fewer elements than the weight, the output is scaled by ``s`` instead.
  Scale and shift are recomputed on every call from the step's inputs (a few
  operations per channel, one multiply per weight), so updated parameters or
  statistics are always seen; the result differs from the unfused one by float
  rounding only.
"""
from __future__ import annotations

import numpy as np

from ._cpu_pool import run_halves

__all__ = ["FusedLayer", "relu_kind", "absorbs_relu", "folds_batchnorm"]

# producers whose output a following ReLU may overwrite: their backward reads only
# their inputs (and per-call state), never their output
_RELU_PRODUCERS = ("Convolution", "FullyConnected")
_GRAD_RELU_PRODUCERS = ("Convolution",)
_CHANNEL_FIRST = (None, "NCW", "NCHW", "NCDHW")


def relu_kind(op, attrs) -> str | None:
    """``"maximum"`` for ``relu``, ``"fmax"`` for ``Activation(relu)``, else ``None``."""
    name = getattr(op, "name", None)
    if name == "relu":
        return "maximum"
    if name == "Activation" and getattr(attrs, "act_type", None) == "relu":
        return "fmax"
    return None


def absorbs_relu(op, dtype, grad: bool = False) -> bool:
    """Whether a unit of ``op`` with an output of ``dtype`` may take a following ReLU
    (in a plan with a backward when ``grad``: convolutions only)."""
    producers = _GRAD_RELU_PRODUCERS if grad else _RELU_PRODUCERS
    return (getattr(op, "name", None) in producers and "outputs" not in op.backward_uses
            and not op.random and dtype is not None and np.dtype(dtype).kind == "f")


def opens_epilogue(op, dtype, grad: bool = False) -> bool:
    """Whether a unit of ``op`` may start a fused output epilogue (a folded BatchNorm, a
    ReLU): convolutions always, other ReLU producers where :func:`absorbs_relu` says."""
    return getattr(op, "name", None) == "Convolution" or absorbs_relu(op, dtype, grad)


def folds_batchnorm(conv_op, conv_attrs, bn_op, bn_attrs, is_train: bool, dtypes,
                    ndim: int) -> bool:
    """Whether a BatchNorm (``bn_*``) after a convolution folds into it.

    Parameters
    ----------
    is_train : bool
        The plan's mode: BatchNorm then uses batch statistics unless ``use_global_stats``.
    dtypes : sequence of numpy dtype
        Of the convolution's inputs and the BatchNorm's parameters and statistics:
        all must be one float32/float64 dtype.
    ndim : int
        Rank of the convolution's output; the BatchNorm's axis must be its channel axis 1.
    """
    if getattr(conv_op, "name", None) != "Convolution" or getattr(bn_op, "name", None) != \
            "BatchNorm":
        return False
    if getattr(conv_attrs, "layout", None) not in _CHANNEL_FIRST:
        return False
    if is_train and not bn_attrs.use_global_stats:
        return False
    axis = bn_attrs.axis + ndim if bn_attrs.axis < 0 else bn_attrs.axis
    if axis != 1 or any(d is None for d in dtypes):
        return False
    first = np.dtype(dtypes[0])
    return first.char in "fd" and all(np.dtype(d) == first for d in dtypes)


def _without_bias(op, attrs):
    """``attrs`` of a convolution with ``no_bias=True`` (the folded shift is added after)."""
    if attrs.no_bias:
        return attrs
    given = dict(attrs._given)
    given["no_bias"] = True
    return op.parse_attrs(given)


# read-only zeros per dtype, grown on demand: ``maximum(y, zeros)`` over two contiguous
# operands runs ~3x faster than ``maximum(y, 0)`` (NumPy 2.4, 65K float32: 8 vs 25 us)
_ZEROS: dict = {}


def _zeros_like(y):
    """A read-only zero array of ``y``'s shape and dtype (a view of a shared buffer)."""
    flat = _ZEROS.get(y.dtype)
    if flat is None or flat.size < y.size:
        flat = np.zeros(max(y.size, 1 << 16), y.dtype)
        flat.flags.writeable = False
        _ZEROS[y.dtype] = flat
    return flat[:y.size].reshape(y.shape)


def _relu_in_place(y, kind: str):
    """``y`` with the ReLU applied in its own memory (``maximum`` keeps NaN, ``fmax``
    maps it to 0); a copy when ``y`` is not a writeable NumPy array."""
    if not (isinstance(y, np.ndarray) and y.flags.writeable):
        y = np.array(y)
    if kind == "maximum":
        return np.maximum(y, _zeros_like(y), out=y)
    return np.fmax(y, _zeros_like(y), out=y)


def _channel_rows(y, vec):
    """``vec`` (one value per channel of axis 1) as ``(C * plane)`` contiguous rows."""
    plane = y.size // (y.shape[0] * vec.size) if y.size else 0
    return np.repeat(vec, plane) if plane > 1 else vec


# Planes of at least this many elements take the per-channel vectors broadcast over
# them; smaller ones as repeated rows (measured, float32: (8, 256, 8, 8) 41 against
# 18 us; equal at 16x16; (1, 64, 256, 256) 0.56 against 1.7 ms, and in a network the
# repeated rows' fresh 16 MB allocation per call costs page faults on top)
_BROADCAST_PLANE = 256


def _affine_channels(y, scale, shift) -> None:
    """``y = y * scale + shift`` per channel (axis 1; no multiply when ``scale`` is
    ``None``), in place.  Small planes get the vectors laid out as contiguous
    ``(C * plane)`` rows: there NumPy's ``(C, 1, 1)`` broadcast runs ~2-3x slower than a
    same-shape pass; large planes (``_BROADCAST_PLANE``) the broadcast."""
    plane = y.size // (y.shape[0] * shift.size) if y.ndim >= 2 and y.size else 0
    if not y.flags.c_contiguous or y.ndim < 2 or plane >= _BROADCAST_PLANE:
        bshape = (1, -1) + (1,) * (y.ndim - 2)
        if scale is not None:
            y *= scale.reshape(bshape)
        y += shift.reshape(bshape)
        return
    y2 = y.reshape(y.shape[0], -1)
    if scale is not None:
        np.multiply(y2, _channel_rows(y, scale), out=y2)
    np.add(y2, _channel_rows(y, shift), out=y2)


# Outputs of at least this many elements (with planes of at least ``_BROADCAST_PLANE``)
# get their shift and ReLU from two threads, one half of the channels each
_PARALLEL_MIN = 1 << 18


def _epilogue(y, scale, shift, relu: str | None):
    """``y * scale + shift`` per channel, then the ReLU ``relu`` (if any), in place; on
    large outputs the two halves of the channels on two threads."""
    if not (isinstance(y, np.ndarray) and y.flags.writeable):
        y = np.array(y)
    c = y.shape[1] if y.ndim >= 2 else 0

    def work(parts) -> None:
        for sl in parts:
            part = y[:, sl]
            _affine_channels(part, None if scale is None else scale[sl], shift[sl])
            if relu is not None:
                _relu_in_place(part, relu)

    if (y.size >= _PARALLEL_MIN and c >= 2
            and y.size // (y.shape[0] * c) >= _BROADCAST_PLANE):
        run_halves(work, [slice(0, c // 2), slice(c // 2, c)])
        return y
    _affine_channels(y, scale, shift)
    return y if relu is None else _relu_in_place(y, relu)


class FusedLayer:
    """One plan step: a producer (Convolution / FullyConnected), optionally a folded
    inference BatchNorm, optionally a ReLU applied in place.

    The step's inputs are the producer's, then (with a fold) the BatchNorm's
    ``gamma, beta, moving_mean, moving_var``; its one output is the last member's.
    It has the OpDef attributes a CachedOp plan reads (``forward``, ``backward``,
    ``backward_uses``, ``differentiable``, ``random``, ``name``, ``saved_state``,
    ``backward_mask``).

    Parameters
    ----------
    op, attrs : OpDef, OpAttrs
        The producer and its attributes.
    relu : str or None
        ``"maximum"``, ``"fmax"`` (see :func:`relu_kind`) or ``None``.
    bn_attrs : OpAttrs, optional
        The folded BatchNorm's attributes (inference only: such a step has no backward).
    post_scale : bool
        With ``bn_attrs``: scale the convolution's output per channel instead of its
        weight (cheaper when the output has fewer elements than the weight).
    """

    random = False

    def __init__(self, op, attrs, relu: str | None = None, bn_attrs=None,
                 post_scale: bool = False):
        self.op = op
        self.post_scale = post_scale
        self.relu = relu
        self.bn_attrs = bn_attrs
        self.n_producer_inputs = len(op.input_names(attrs))
        self.has_bias = not getattr(attrs, "no_bias", True)
        self.run_attrs = attrs if bn_attrs is None else _without_bias(op, attrs)
        parts = [op.name] + (["BatchNorm"] if bn_attrs is not None else []) + \
            ([relu and "relu"] if relu else [])
        self.name = "_fused_" + "_".join(parts)
        folded = bn_attrs is not None
        self.differentiable = op.differentiable and not folded
        self.saved_state = bool(getattr(op, "saved_state", False)) and not folded
        self.backward_mask = bool(getattr(op, "backward_mask", False))
        self.backward_uses = ("inputs", "outputs") if relu else tuple(op.backward_uses)
        if not self.differentiable:
            self.backward = None

    # -- forward ------------------------------------------------------------------------
    def _fold(self, inputs):
        """``(s, (b - mean) * s + beta)`` with ``s = gamma / sqrt(var + eps)`` from the
        step's inputs."""
        n = self.n_producer_inputs
        gamma, beta, mean, var = inputs[n:n + 4]
        bn = self.bn_attrs
        s = np.add(var, bn.eps)
        with np.errstate(invalid="ignore", divide="ignore"):  # BatchNorm's nan/inf, silently
            np.sqrt(s, out=s)
            if bn.fix_gamma:
                np.divide(1.0, s, out=s)
            else:
                np.divide(gamma, s, out=s)
        if self.has_bias:
            shift = np.subtract(inputs[2], mean)
            np.multiply(shift, s, out=shift)
        else:
            shift = np.multiply(mean, s)
            np.negative(shift, out=shift)
        np.add(shift, beta, out=shift)
        return s, shift

    def forward(self, oc, attrs, inputs, out, keep_state: bool = False):
        """The producer's forward (on folded parameters), then the ReLU in place."""
        if self.bn_attrs is not None:
            # the convolution without bias, then the shift as contiguous rows: NumPy's
            # (C, 1, 1) broadcast runs ~3x slower than a same-shape add
            scale, shift = self._fold(inputs)
            w = inputs[1]
            if self.post_scale:  # fewer outputs than weights: scale the output
                y = self.op.forward(oc, self.run_attrs, [inputs[0], w], out)[0]
                return [_epilogue(y, scale, shift, self.relu)]
            w = np.multiply(w, scale.reshape((-1,) + (1,) * (w.ndim - 1)))
            y = self.op.forward(oc, self.run_attrs, [inputs[0], w], out)[0]
            return [_epilogue(y, None, shift, self.relu)]
        if keep_state:
            res, state = self.op.forward(oc, attrs, inputs, out, keep_state=True)
        else:
            res = self.op.forward(oc, attrs, inputs, out)
        if self.relu is not None:
            res = [_relu_in_place(res[0], self.relu)]
        return (res, state) if keep_state else res

    # -- backward -----------------------------------------------------------------------
    def backward(self, oc, attrs, inputs, outputs, out_grads, need=None, state=None):
        """The ReLU's gradient ``dy * (y > 0)``, then the producer's backward."""
        dy = out_grads[0]
        if self.relu is not None:
            dy = np.multiply(dy, np.greater(outputs[0], _zeros_like(outputs[0])))
        kwargs = {}
        if self.backward_mask and need is not None:
            kwargs["need"] = need
        if state is not None or self.saved_state:
            kwargs["state"] = state
        return self.op.backward(oc, attrs, inputs, None, [dy], **kwargs)
