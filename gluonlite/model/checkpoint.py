"""Checkpoints of the symbolic API (``mxnet.model``): ``prefix-symbol.json`` plus
``prefix-%04d.params`` with ``arg:``/``aux:`` keys, byte-compatible with MXNet's."""
from __future__ import annotations

from collections import namedtuple

from .. import ndarray as nd
from .. import symbol as sym
from ..base import MXNetError, write_files_atomically
from ..context import cpu

__all__ = ["save_checkpoint", "load_checkpoint", "load_params", "BatchEndParam"]

# what batch-end callbacks receive (``fit`` loops pass their locals too)
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


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
        Write the graph without the AMP casts its nodes read (``Symbol.save``).
    """
    params_file = "%s-%04d.params" % (prefix, epoch)
    if symbol is None:
        save_params_file(params_file, arg_params, aux_params)
    else:
        save_pair(f"{prefix}-symbol.json", symbol, params_file,
                  _params_dict(arg_params, aux_params), remove_amp_cast)


def save_pair(symbol_file: str, symbol, params_file: str, arrays: dict,
              remove_amp_cast: bool = True) -> None:
    """Write a graph and its parameters (``arg:``/``aux:`` keys) as a checkpoint pair.

    Both files are written to temporary files first and then renamed into place one
    right after the other (``base.write_files_atomically``), and the parameters file
    records which graph file it belongs with (``nd.utils.paired_payload``).  Where a crash
    falls between the two renames, :func:`load_checkpoint` and ``SymbolBlock.imports``
    finish the save from the graph's complete temporary file; a pair that does not belong
    together is refused with an ``MXNetError`` naming both files, never loaded silently.
    MXNet reads both files as usual.
    """
    text = symbol.tojson(remove_amp_cast=remove_amp_cast).encode("utf-8")  # Symbol.save's
    write_files_atomically([(params_file, nd.utils.paired_payload(arrays, symbol_file, text)),
                            (symbol_file, text)])


def _params_dict(arg_params: dict, aux_params: dict) -> dict:
    save_dict = {f"arg:{k}": v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({f"aux:{k}": v.as_in_context(cpu()) for k, v in aux_params.items()})
    return save_dict


def save_params_file(fname: str, arg_params: dict, aux_params: dict) -> None:
    """Write parameters with MXNet's ``arg:<name>`` / ``aux:<name>`` keys."""
    nd.save(fname, _params_dict(arg_params, aux_params))


def load_params_file(fname: str, strict: bool = False) -> tuple:
    """``(arg_params, aux_params)`` from a file with ``arg:``/``aux:`` keys; other keys
    are skipped, or with ``strict`` raise ``ValueError`` (Module.load_params, as MXNet)."""
    loaded = nd.load(fname)
    if not isinstance(loaded, dict):
        raise MXNetError(f"load_params: {fname} holds an unnamed list of arrays, not a "
                         "checkpoint with arg:/aux: keys")
    tables = {"arg": {}, "aux": {}}
    for key, value in loaded.items():
        kind, _, name = key.partition(":")
        if kind in tables:
            tables[kind][name] = value
        elif strict:
            raise ValueError(f"Invalid param file {fname}")
    return tables["arg"], tables["aux"]


def load_params(prefix: str, epoch: int) -> tuple:
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``."""
    return load_params_file("%s-%04d.params" % (prefix, epoch))


def load_checkpoint(prefix: str, epoch: int) -> tuple:
    """``(symbol, arg_params, aux_params)`` from a checkpoint written by
    :func:`save_checkpoint` (or by MXNet)."""
    symbol_file, params_file = f"{prefix}-symbol.json", "%s-%04d.params" % (prefix, epoch)
    nd.utils.check_paired(params_file, symbol_file)
    symbol = sym.load(symbol_file)
    arg_params, aux_params = load_params_file(params_file)
    return symbol, arg_params, aux_params
