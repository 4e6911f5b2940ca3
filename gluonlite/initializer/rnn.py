"""``mx.init.FusedRNN``: initialize the packed parameter vector of the fused ``RNN`` op.

The vector is cut into MXNet's named per-gate pieces (``l0_i2h_i_weight`` of shape
``(H, in)``, ..., ``r1_h2h_o_bias`` of shape ``(H,)``; ``l``/``r`` is the
direction, the digit the layer, the gate letter ``i f c o`` for LSTM, ``r z o``
for GRU, none for plain RNNs), in the layout of :mod:`gluonlite.ops.rnn`: every
weight (per layer, per direction: all i2h gates, then all h2h gates), then every
bias in the same order.  Each piece is initialized on its own by the inner
initializer (so Xavier sees a ``(H, in)`` matrix, not the stacked gates), LSTM
forget-gate biases (``*_f_bias``, both i2h and h2h) are set to ``forget_bias``,
and the pieces are packed back.
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np

from ..ndarray import concat, zeros
from ..ndarray.ndarray import NDArray
from .base import Initializer, InitDesc, InitValueError, create, register

__all__ = ["FusedRNN"]

_GATE_NAMES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
               "gru": ["_r", "_z", "_o"]}


def rnn_param_slices(mode: str, num_layers: int, bidirectional: bool, num_hidden: int,
                     size: int, name: str = "parameters") -> List[Tuple[str, int, tuple]]:
    """The named pieces ``(name, offset, shape)`` of a packed RNN parameter vector.

    The input size is deduced from ``size``; a size that no input size fits raises.
    """
    if mode not in _GATE_NAMES:
        raise InitValueError(f"FusedRNN: unknown mode {mode!r} for parameter {name} "
                             f"(expected one of {sorted(_GATE_NAMES)})")
    gates = _GATE_NAMES[mode]
    dirs = ["l", "r"] if bidirectional else ["l"]
    b, m, h = len(dirs), len(gates), num_hidden
    num_input = size // b // h // m - (num_layers - 1) * (h + b * h + 2) - h - 2
    pieces = []
    pos = 0
    for layer in range(num_layers):
        in_size = num_input if layer == 0 else b * h
        for d in dirs:
            for kind, cols in (("i2h", in_size), ("h2h", h)):
                for g in gates:
                    pieces.append((f"{d}{layer}_{kind}{g}_weight", pos, (h, cols)))
                    pos += h * cols
    for layer in range(num_layers):
        for d in dirs:
            for kind in ("i2h", "h2h"):
                for g in gates:
                    pieces.append((f"{d}{layer}_{kind}{g}_bias", pos, (h,)))
                    pos += h
    if num_input <= 0 or pos != size:
        raise InitValueError(
            f"FusedRNN: parameter {name} has {size} elements, which fits no input size of a "
            f"{num_layers}-layer {'bidirectional ' if bidirectional else ''}{mode} with "
            f"num_hidden={num_hidden}")
    return pieces


@register
class FusedRNN(Initializer):
    """Initialize the packed parameters of a fused RNN layer piece by piece.

    Parameters
    ----------
    init : Initializer, str or None
        Initializer of every piece (a ``dumps()`` string or registered name works too);
        ``None`` uses the global initializer of the call.
    num_hidden : int
        Hidden size.
    num_layers : int
        Number of layers.
    mode : {'rnn_relu', 'rnn_tanh', 'lstm', 'gru'}
        Cell type.
    bidirectional : bool
        Whether the layers are bidirectional.
    forget_bias : float
        Value of the LSTM forget-gate biases.
    """

    def __init__(self, init, num_hidden: int, num_layers: int, mode: str,
                 bidirectional: bool = False, forget_bias: float = 1.0) -> None:
        if isinstance(init, (str, dict)):
            init = create(init)
        if init is not None and not isinstance(init, Initializer):
            raise InitValueError("FusedRNN: init must be an Initializer, a registered name, a "
                                 f"dumps() string or None, not {type(init).__name__}")
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr) -> None:
        size = int(np.prod(arr.shape))
        pieces = rnn_param_slices(self._mode, self._num_layers, self._bidirectional,
                                  self._num_hidden, size, str(desc))
        global_init = getattr(desc, "global_init", None)
        is_nd = isinstance(arr, NDArray)
        filled = []
        for name, _, shape in pieces:
            piece = zeros(shape, ctx=arr.context, dtype=arr.dtype) if is_nd else \
                np.zeros(shape, dtype=arr.dtype)
            if self._mode == "lstm" and name.endswith("_f_bias"):
                piece[:] = self._forget_bias
            else:
                init = self._init if self._init is not None else global_init
                if init is None:
                    raise InitValueError(f"FusedRNN: no initializer for {name} of parameter "
                                         f"{desc}: init is None and no global initializer")
                init(InitDesc(name, global_init=global_init), piece)
            filled.append(piece.reshape((-1,)))
        packed = concat(*filled, dim=0) if is_nd else np.concatenate(filled)
        arr[:] = packed.reshape(tuple(arr.shape))
