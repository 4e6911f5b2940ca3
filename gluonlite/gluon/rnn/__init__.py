"""``gluon.rnn``: the fused recurrent layers ``RNN``, ``LSTM``, ``GRU`` and the cells
(``RNNCell``, ``LSTMCell``, ``GRUCell``, sequential, dropout, zoneout, residual and
bidirectional cells) with ``unroll``."""
from .rnn_layer import RNN, LSTM, GRU  # noqa: F401
from .rnn_cell import (RecurrentCell, HybridRecurrentCell, RNNCell, LSTMCell,  # noqa: F401
                       GRUCell)
from .rnn_cell_wrappers import (SequentialRNNCell, HybridSequentialRNNCell,  # noqa: F401
                                DropoutCell, ModifierCell, ZoneoutCell, ResidualCell,
                                BidirectionalCell)

__all__ = ["RNN", "LSTM", "GRU", "RecurrentCell", "HybridRecurrentCell", "RNNCell",
           "LSTMCell", "GRUCell", "SequentialRNNCell", "HybridSequentialRNNCell",
           "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell", "BidirectionalCell"]
