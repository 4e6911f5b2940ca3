"""``LSTMPCell``: an LSTM cell whose hidden state is projected to ``projection_size``
units (Sak et al., 2014) before it is output and fed back."""
from __future__ import annotations

from ...rnn import HybridRecurrentCell
from ._gates import lstm_update

__all__ = ["LSTMPCell"]


class LSTMPCell(HybridRecurrentCell):
    r"""Long short-term memory cell with a projection layer (LSTMP).

    Each step computes

    .. math::
        \begin{array}{ll}
        i_t = \sigma(W_{ii} x_t + b_{ii} + W_{ri} r_{t-1} + b_{ri}) \\
        f_t = \sigma(W_{if} x_t + b_{if} + W_{rf} r_{t-1} + b_{rf}) \\
        g_t = \tanh(W_{ig} x_t + b_{ig} + W_{rg} r_{t-1} + b_{rg}) \\
        o_t = \sigma(W_{io} x_t + b_{io} + W_{ro} r_{t-1} + b_{ro}) \\
        c_t = f_t c_{t-1} + i_t g_t \\
        h_t = o_t \tanh(c_t) \\
        r_t = W_{hr} h_t
        \end{array}

    Parameters
    ----------
    hidden_size : int
        Number of units of the memory cell ``c``.
    projection_size : int
        Number of units of the output (and recurrent state) ``r``.
    i2h_weight_initializer, h2h_weight_initializer, h2r_weight_initializer : str or Initializer
        Initializers of the input, recurrent and projection weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the two bias vectors.
    input_size : int, default 0
        Number of input units; 0 infers it from the first input.
    prefix : str, default ``'lstmp_'``
        Prefix of the parameter and node names.
    params : ParameterDict, optional
        Parameters to share instead of creating new ones.

    Inputs: ``data`` of shape ``(batch_size, input_size)`` and ``states``, a list of
    ``r`` ``(batch_size, projection_size)`` and ``c`` ``(batch_size, hidden_size)``.
    Outputs: ``r_t`` and the list ``[r_t, c_t]``.
    """

    def __init__(self, hidden_size: int, projection_size: int, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, h2r_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size: int = 0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        rows = 4 * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, projection_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2r_weight = self.params.get("h2r_weight", shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size: int = 0) -> list:
        """Shapes of ``r`` and ``c``.

        Parameters
        ----------
        batch_size : int, default 0
            Leading dimension of the shapes (0: unknown).

        Returns
        -------
        list of dict
            ``[{'shape': (batch_size, projection_size), '__layout__': 'NC'},
            {'shape': (batch_size, hidden_size), '__layout__': 'NC'}]``.
        """
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self) -> str:
        return "lstmp"

    def __repr__(self) -> str:
        in_size = self.i2h_weight.shape[1]
        return (f"{type(self).__name__}({in_size if in_size else None} -> "
                f"{self.i2h_weight.shape[0]} -> {self.h2r_weight.shape[0]})")

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight,
                       i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        rows = 4 * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows,
                               name=prefix + "i2h")
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias,
                               num_hidden=rows, name=prefix + "h2h")
        hidden, next_c = lstm_update(self, F, F.elemwise_add(i2h, h2h), states[1], "tanh",
                                     1, prefix, hidden_name="hidden")
        next_r = F.FullyConnected(data=hidden, weight=h2r_weight, no_bias=True,
                                  num_hidden=self._projection_size, name=prefix + "out")
        return next_r, [next_r, next_c]
