"""``gluon.contrib.rnn.rnn_cell``: MXNet 1.9's module of the non-convolutional contrib
cells, ``VariationalDropoutCell`` and ``LSTMPCell``, and ``dynamic_unroll`` (not in
``__all__``, as in MXNet)."""
from .variational_dropout import VariationalDropoutCell
from .lstmp_cell import LSTMPCell
from .dynamic_unroll import dynamic_unroll  # noqa: F401

__all__ = ["VariationalDropoutCell", "LSTMPCell"]
