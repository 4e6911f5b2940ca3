"""``mx.gluon.contrib``: experimental Gluon layers (MXNet 1.9 keeps ``Identity``,
``Concurrent``, ``SyncBatchNorm`` and ``PixelShuffle*`` here, in ``contrib.nn``;
the contrib recurrent cells are in ``contrib.rnn``)."""
from . import nn  # noqa: F401
from . import rnn  # noqa: F401
from . import data  # noqa: F401
from . import estimator  # noqa: F401
from . import cnn  # noqa: F401
