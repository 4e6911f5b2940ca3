"""``gluon.rnn``: the fused recurrent layers ``RNN``, ``LSTM``, ``GRU``.

MXNet's recurrent cells (``LSTMCell``, ``SequentialRNNCell``, ``unroll`` ...) are not
in gluonlite yet.
"""
from .rnn_layer import RNN, LSTM, GRU  # noqa: F401

__all__ = ["RNN", "LSTM", "GRU"]
