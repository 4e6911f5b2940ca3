"""``mxnet.onnx.mx2onnx._export_helper``: loading a checkpoint for export."""
from __future__ import annotations

import logging
import os

__all__ = ["load_module"]


def load_module(sym_filepath: str, params_filepath: str) -> tuple:
    """The symbol and the merged parameters of a checkpoint, from its
    ``<prefix>-symbol.json`` and ``<prefix>-<epoch>.params`` paths.

    Parameters
    ----------
    sym_filepath : str
        Path of the symbol file; ``<prefix>`` is what precedes its last ``-``.
    params_filepath : str
        Path of the parameters file; its epoch follows the last ``-`` (0 when there is
        none).

    Returns
    -------
    tuple
        ``(Symbol, {name: NDArray})``, argument and auxiliary parameters together
        (names without ``arg:``/``aux:``).

    Raises
    ------
    ValueError
        If either file does not exist.
    """
    from ...model import load_checkpoint
    if not (os.path.isfile(sym_filepath) and os.path.isfile(params_filepath)):
        raise ValueError("Symbol and params files provided are invalid")
    prefix = sym_filepath.rsplit(".", 1)[0].rsplit("-", 1)[0]
    parts = params_filepath.rsplit(".", 1)[0].rsplit("-", 1)
    try:
        epoch = 0 if len(parts) == 1 else int(parts[1])
    except ValueError:
        logging.info("Model and params name should be in format: "
                     "prefix-symbol.json, prefix-epoch.params")
        raise
    sym, arg_params, aux_params = load_checkpoint(prefix, epoch)
    return sym, {**arg_params, **aux_params}
