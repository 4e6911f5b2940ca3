"""``mx.gluon.contrib``: experimental Gluon layers (MXNet 1.9 keeps ``Identity``,
``Concurrent``, ``SyncBatchNorm`` and ``PixelShuffle*`` here, in ``contrib.nn``)."""
from . import nn  # noqa: F401
from . import data  # noqa: F401
