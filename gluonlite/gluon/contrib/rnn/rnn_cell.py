"""``gluon.contrib.rnn.rnn_cell``: MXNet 1.9's module of the non-convolutional contrib
cells, ``VariationalDropoutCell`` and ``LSTMPCell``."""
from .variational_dropout import VariationalDropoutCell
from .lstmp_cell import LSTMPCell

__all__ = ["VariationalDropoutCell", "LSTMPCell"]
