"""The plain symbolic cells of ``mx.rnn``: ``RNNCell``, ``LSTMCell`` and ``GRUCell``.

Each step ``t`` builds FullyConnected layers ``{prefix}t{t}_i2h`` and
``{prefix}t{t}_h2h`` over the shared weights ``{prefix}i2h_weight``,
``{prefix}i2h_bias``, ``{prefix}h2h_weight``, ``{prefix}h2h_bias`` and names the
step's output ``{prefix}t{t}_out``, as MXNet does.
"""
from __future__ import annotations

from typing import Optional, Tuple

from .. import initializer
from .. import symbol
from .base_cell import BaseRNNCell, RNNParams

__all__ = ["RNNCell", "LSTMCell", "GRUCell"]


class RNNCell(BaseRNNCell):
    """Elman RNN cell: ``out = act(W_i x + b_i + W_h h + b_h)``.

    Parameters
    ----------
    num_hidden : int
        Size of the output.
    activation : str or callable, default 'tanh'
        ``Activation`` type, or a function of ``(symbol, name=...)``.
    prefix : str, default 'rnn_'
        Prefix of node and weight names.
    params : RNNParams, optional
        Shared variables.
    """

    def __init__(self, num_hidden: int, activation="tanh", prefix: str = "rnn_",
                 params: Optional[RNNParams] = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self) -> list:
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs: symbol.Symbol, states: list) -> Tuple[symbol.Symbol, list]:
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden, name="%si2h" % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden, name="%sh2h" % name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class LSTMCell(BaseRNNCell):
    """LSTM cell (gates in the order input, forget, cell, output).

    Parameters
    ----------
    num_hidden : int
        Size of the output and of the cell state.
    prefix : str, default 'lstm_'
        Prefix of node and weight names.
    params : RNNParams, optional
        Shared variables.
    forget_bias : float, default 1.0
        Initial value of the forget-gate part of ``{prefix}i2h_bias`` (through its
        ``mx.init.LSTMBias`` initializer attribute).
    """

    def __init__(self, num_hidden: int, prefix: str = "lstm_",
                 params: Optional[RNNParams] = None, forget_bias: float = 1.0) -> None:
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._hW = self.params.get("h2h_weight")
        self._iB = self.params.get("i2h_bias",
                                   init=initializer.LSTMBias(forget_bias=forget_bias))
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self) -> list:
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"},
                {"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs: symbol.Symbol, states: list) -> Tuple[symbol.Symbol, list]:
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        hidden4 = self._num_hidden * 4
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=hidden4, name="%si2h" % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=hidden4, name="%sh2h" % name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name="%sslice" % name)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = symbol.Activation(gates[2], act_type="tanh", name="%sc" % name)
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol._internal._plus(forget_gate * states[1], in_gate * in_transform,
                                        name="%sstate" % name)
        next_h = symbol._internal._mul(out_gate, symbol.Activation(next_c, act_type="tanh"),
                                       name="%sout" % name)
        return next_h, [next_h, next_c]


class GRUCell(BaseRNNCell):
    """GRU cell in cuDNN's form (the reset gate scales ``W_h h + b_h``).

    Parameters
    ----------
    num_hidden : int
        Size of the output.
    prefix : str, default 'gru_'
        Prefix of node and weight names.
    params : RNNParams, optional
        Shared variables.
    """

    def __init__(self, num_hidden: int, prefix: str = "gru_",
                 params: Optional[RNNParams] = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self) -> list:
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs: symbol.Symbol, states: list) -> Tuple[symbol.Symbol, list]:
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        prev_h = states[0]
        hidden3 = self._num_hidden * 3
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=hidden3, name="%s_i2h" % name)
        h2h = symbol.FullyConnected(data=prev_h, weight=self._hW, bias=self._hB,
                                    num_hidden=hidden3, name="%s_h2h" % name)
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid",
                                       name="%s_r_act" % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid",
                                        name="%s_z_act" % name)
        candidate = symbol.Activation(i2h + reset_gate * h2h, act_type="tanh",
                                      name="%s_h_act" % name)
        next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * prev_h,
                                        name="%sout" % name)
        return next_h, [next_h]
