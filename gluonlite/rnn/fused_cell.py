"""``mx.rnn.FusedRNNCell``: a whole (multi-layer, optionally bidirectional) RNN as one
``RNN`` operator over MXNet's packed parameter vector ``{prefix}parameters``.

The vector's layout (every weight, per layer and direction, i2h gates then h2h
gates; then every bias in the same order) is the one of ``mx.init.FusedRNN``;
:meth:`FusedRNNCell.unpack_weights` names its pieces the way :meth:`FusedRNNCell.unfuse`'s
cells name their weights (``{prefix}l0_i2h_i_weight``, ...), so checkpoints move
between the fused and the unfused network.
"""
from __future__ import annotations

import warnings
from typing import Dict, List, Optional, Tuple

from .. import initializer
from .. import ndarray
from .. import symbol
from ..initializer.rnn import rnn_param_slices
from .base_cell import BaseRNNCell, RNNParams, SymbolOrList, normalize_sequence
from .cells import GRUCell, LSTMCell, RNNCell
from .rnn_cell_wrappers import BidirectionalCell, DropoutCell, SequentialRNNCell

__all__ = ["FusedRNNCell"]

_GATES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
          "gru": ["_r", "_z", "_o"]}


class FusedRNNCell(BaseRNNCell):
    """All layers and steps of an RNN in one ``RNN`` operator (cannot be stepped).

    Parameters
    ----------
    num_hidden : int
        Hidden size.
    num_layers : int, default 1
    mode : {'rnn_relu', 'rnn_tanh', 'lstm', 'gru'}, default 'lstm'
    bidirectional : bool, default False
        Run each layer both ways; the output size doubles.
    dropout : float, default 0
        Dropout between layers in training.
    get_next_state : bool, default False
        Return the last states from :meth:`unroll` (else an empty list).
    forget_bias : float, default 1.0
        LSTM forget-gate bias set by the ``mx.init.FusedRNN`` initializer of the
        parameter vector.
    prefix : str, optional
        ``'{mode}_'`` when None.
    params : RNNParams, optional
    """

    def __init__(self, num_hidden: int, num_layers: int = 1, mode: str = "lstm",
                 bidirectional: bool = False, dropout: float = 0.,
                 get_next_state: bool = False, forget_bias: float = 1.0,
                 prefix: Optional[str] = None, params: Optional[RNNParams] = None) -> None:
        if prefix is None:
            prefix = "%s_" % mode
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        init = initializer.FusedRNN(None, num_hidden, num_layers, mode, bidirectional,
                                    forget_bias)
        self._parameter = self.params.get("parameters", init=init)

    @property
    def state_info(self) -> list:
        directions = self._bidirectional + 1
        count = (self._mode == "lstm") + 1
        return [{"shape": (directions * self._num_layers, 0, self._num_hidden),
                 "__layout__": "LNC"} for _ in range(count)]

    @property
    def _gate_names(self):
        return _GATES[self._mode]

    @property
    def _num_gates(self) -> int:
        return len(self._gate_names)

    def _pieces(self, size: int) -> List[Tuple[str, int, tuple]]:
        """``(full name, offset, shape)`` of every piece of a packed vector of ``size``."""
        try:
            pieces = rnn_param_slices(self._mode, self._num_layers, self._bidirectional,
                                      self._num_hidden, size, self._parameter.name)
        except ValueError as err:
            raise AssertionError("Invalid parameters size for FusedRNNCell: %s" % err) \
                from None
        return [(self._prefix + name, offset, shape) for name, offset, shape in pieces]

    def unpack_weights(self, args: dict) -> dict:
        """Replace ``{prefix}parameters`` by its named per-layer, per-direction, per-gate
        pieces (copies).

        Parameters
        ----------
        args : dict of str to NDArray

        Returns
        -------
        dict of str to NDArray
        """
        args = args.copy()
        packed = args.pop(self._parameter.name)
        flat = packed.reshape((-1,))
        for name, offset, shape in self._pieces(packed.size):
            count = 1
            for dim in shape:
                count *= dim
            args[name] = flat[offset:offset + count].reshape(shape).copy()
        return args

    def pack_weights(self, args: dict) -> dict:
        """The inverse of :meth:`unpack_weights`.

        Parameters
        ----------
        args : dict of str to NDArray

        Returns
        -------
        dict of str to NDArray
        """
        args = args.copy()
        gates = self._gate_names
        hidden = self._num_hidden
        first = args["%sl0_i2h%s_weight" % (self._prefix, gates[0])]
        num_input = first.shape[1]
        directions = self._bidirectional + 1
        total = ((num_input + hidden + 2) * hidden * len(gates) * directions
                 + (self._num_layers - 1) * len(gates) * hidden
                 * (hidden + directions * hidden + 2) * directions)
        pieces = [args.pop(name).reshape((-1,)) for name, _, _ in self._pieces(total)]
        packed = ndarray.concatenate(pieces)
        if packed.dtype != first.dtype:
            packed = packed.astype(first.dtype)
        args[self._parameter.name] = packed
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length: int, inputs, begin_state: Optional[list] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[SymbolOrList, list]:
        self.reset()
        inputs, axis = normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for "
                          "faster speed")
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        else:
            assert axis == 0, "Unsupported layout %s" % layout
        if begin_state is None:
            begin_state = self.begin_state()
        state_inputs: Dict[str, symbol.Symbol] = {"state": begin_state[0]}
        if self._mode == "lstm":
            state_inputs["state_cell"] = begin_state[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter,
                         state_size=self._num_hidden, num_layers=self._num_layers,
                         bidirectional=self._bidirectional, p=self._dropout,
                         state_outputs=self._get_next_state, mode=self._mode,
                         name=self._prefix + "rnn", **state_inputs)
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            count = 3 if self._mode == "lstm" else 2
            for i in range(1, count):
                rnn[i]._set_attr(__layout__="LNC")
            outputs, states = rnn[0], [rnn[i] for i in range(1, count)]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self) -> SequentialRNNCell:
        """The same network as a stack of steppable cells (named ``{prefix}l{i}_``,
        ``{prefix}r{i}_``, with ``BidirectionalCell`` outputs ``{prefix}bi_l{i}_`` and
        ``DropoutCell`` ``{prefix}_dropout{i}_`` between layers).

        Returns
        -------
        SequentialRNNCell
        """
        hidden = self._num_hidden
        makers = {"rnn_relu": lambda p: RNNCell(hidden, activation="relu", prefix=p),
                  "rnn_tanh": lambda p: RNNCell(hidden, activation="tanh", prefix=p),
                  "lstm": lambda p: LSTMCell(hidden, prefix=p),
                  "gru": lambda p: GRUCell(hidden, prefix=p)}
        make = makers[self._mode]
        stack = SequentialRNNCell()
        for layer in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make("%sl%d_" % (self._prefix, layer)),
                                            make("%sr%d_" % (self._prefix, layer)),
                                            output_prefix="%sbi_l%d_" % (self._prefix, layer)))
            else:
                stack.add(make("%sl%d_" % (self._prefix, layer)))
            if self._dropout > 0 and layer != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout,
                                      prefix="%s_dropout%d_" % (self._prefix, layer)))
        return stack
