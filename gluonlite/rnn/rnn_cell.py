"""``mx.rnn.rnn_cell``: every symbolic cell class in one namespace, as in MXNet.

The classes live in small modules: :mod:`.base_cell` (``RNNParams``,
``BaseRNNCell``), :mod:`.cells` (``RNNCell``, ``LSTMCell``, ``GRUCell``),
:mod:`.fused_cell` (``FusedRNNCell``), :mod:`.rnn_cell_wrappers` (stacks,
bidirectional, dropout, modifiers) and :mod:`.conv_cell` (convolutional cells).
"""
from .base_cell import BaseRNNCell, RNNParams
from .cells import GRUCell, LSTMCell, RNNCell
from .conv_cell import BaseConvRNNCell, ConvGRUCell, ConvLSTMCell, ConvRNNCell
from .fused_cell import FusedRNNCell
from .rnn_cell_wrappers import (BidirectionalCell, DropoutCell, ModifierCell,
                                ResidualCell, SequentialRNNCell, ZoneoutCell)

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell",
           "ConvGRUCell"]
