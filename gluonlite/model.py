"""Checkpoints of the symbolic API (``mxnet.model``): ``prefix-symbol.json`` plus
``prefix-%04d.params`` with ``arg:``/``aux:`` keys, byte-compatible with MXNet's."""
from __future__ import annotations

import os
from collections import namedtuple

from . import ndarray as nd
from . import symbol as sym
from .base import MXNetError

__all__ = ["save_checkpoint", "load_checkpoint", "load_params", "BatchEndParam"]

# what batch-end callbacks receive (``fit`` loops pass their locals too)
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def _replace_atomically(path: str, write) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def save_checkpoint(prefix: str, epoch: int, symbol, arg_params: dict, aux_params: dict,
                    remove_amp_cast: bool = True) -> None:
    """Write ``prefix-symbol.json`` (when ``symbol`` is given) and ``prefix-%04d.params``.

    Parameters
    ----------
    prefix : str
        Path prefix of the files.
    epoch : int
        Epoch number in the parameter file name.
    symbol : Symbol or None
        The network.
    arg_params, aux_params : dict of str to NDArray
        Parameters, saved as ``arg:<name>`` and ``aux:<name>``.
    remove_amp_cast : bool, default True
        Accepted for MXNet compatibility (gluonlite inserts no AMP casts).
    """
    if symbol is not None:
        _replace_atomically(f"{prefix}-symbol.json", symbol.save)
    save_dict = {f"arg:{k}": v.as_in_context(_cpu()) for k, v in arg_params.items()}
    save_dict.update({f"aux:{k}": v.as_in_context(_cpu()) for k, v in aux_params.items()})
    _replace_atomically("%s-%04d.params" % (prefix, epoch), lambda f: nd.save(f, save_dict))


def _cpu():
    from .context import cpu
    return cpu()


def load_params(prefix: str, epoch: int) -> tuple:
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``."""
    fname = "%s-%04d.params" % (prefix, epoch)
    loaded = nd.load(fname)
    if not isinstance(loaded, dict):
        raise MXNetError(f"load_params: {fname} holds an unnamed list of arrays, not a "
                         "checkpoint with arg:/aux: keys")
    arg_params, aux_params = {}, {}
    for key, value in loaded.items():
        kind, _, name = key.partition(":")
        if kind == "arg":
            arg_params[name] = value
        elif kind == "aux":
            aux_params[name] = value
    return arg_params, aux_params


def load_checkpoint(prefix: str, epoch: int) -> tuple:
    """``(symbol, arg_params, aux_params)`` from a checkpoint written by
    :func:`save_checkpoint` (or by MXNet)."""
    symbol = sym.load(f"{prefix}-symbol.json")
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
