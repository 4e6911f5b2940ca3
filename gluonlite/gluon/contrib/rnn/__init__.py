"""``mx.gluon.contrib.rnn``: MXNet 1.9's contrib recurrent cells: the convolutional
cells ``Conv{1,2,3}D{RNN,LSTM,GRU}Cell``, ``VariationalDropoutCell`` and
``LSTMPCell``."""
from . import conv_rnn_cell, rnn_cell  # noqa: F401
from .conv_rnn_cell import *  # noqa: F401,F403
from .rnn_cell import *  # noqa: F401,F403

__all__ = conv_rnn_cell.__all__ + rnn_cell.__all__
