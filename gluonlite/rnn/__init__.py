"""``mx.rnn``: MXNet 1.9's legacy symbolic RNN API.

Cells that build Symbols step by step (``RNNCell``, ``LSTMCell``, ``GRUCell``,
``FusedRNNCell`` and the wrappers), the bucketing data iterator
(``BucketSentenceIter``, ``encode_sentences``) and checkpoint helpers that
pack/unpack cell weights (``save_rnn_checkpoint``, ``load_rnn_checkpoint``,
``do_rnn_checkpoint``).  The Gluon cells are in :mod:`gluonlite.gluon.rnn`.
"""
from . import rnn_cell
from .rnn_cell import (BaseConvRNNCell, BaseRNNCell, BidirectionalCell, ConvGRUCell,  # noqa: F401
                       ConvLSTMCell, ConvRNNCell, DropoutCell, FusedRNNCell, GRUCell,
                       LSTMCell, ModifierCell, RNNCell, RNNParams, ResidualCell,
                       SequentialRNNCell, ZoneoutCell)
from . import rnn
from .rnn import (do_rnn_checkpoint, load_rnn_checkpoint, rnn_unroll,  # noqa: F401
                  save_rnn_checkpoint)
from . import io
from .io import BucketSentenceIter, encode_sentences  # noqa: F401

__all__ = rnn_cell.__all__ + rnn.__all__ + io.__all__ + ["rnn_cell", "rnn", "io"]
