"""``mx.model``: checkpoints of the symbolic API (``prefix-symbol.json`` plus
``prefix-%04d.params`` with ``arg:``/``aux:`` keys, byte-compatible with MXNet's) and
MXNet 1.x's deprecated ``FeedForward`` estimator.

The package, by purpose: ``checkpoint`` (saving and loading, ``BatchEndParam``) and
``feedforward`` (``FeedForward``, an adapter over :class:`gluonlite.module.Module`).
"""
from .checkpoint import (BatchEndParam, load_checkpoint, load_params,  # noqa: F401
                         load_params_file, save_checkpoint, save_pair, save_params_file)
from .feedforward import FeedForward
# (load_params_file, save_pair, save_params_file: used by Module and HybridBlock.export)

__all__ = ["save_checkpoint", "load_checkpoint", "load_params", "BatchEndParam", "FeedForward"]
