"""Saving and loading Blocks: ``save_parameters``/``load_parameters`` (structural
names such as ``features.3.weight``) and ``HybridBlock.export`` (``-symbol.json``
plus ``.params`` with ``arg:``/``aux:`` keys), in MXNet 1.9's file formats."""
from __future__ import annotations

from collections import OrderedDict, defaultdict

from ..base import MXNetError
from ..model import save_pair
from .parameter import _AssertionError, _ValueError
from .parameter_dict import _brief_print_list

__all__ = ["save_parameters", "load_parameters", "export"]


def _nd():
    from .. import ndarray
    return ndarray


def save_parameters(block, filename: str, deduplicate: bool = False) -> None:
    """Save ``block``'s parameters by structural name.

    Parameters
    ----------
    block : Block
    filename : str
    deduplicate : bool
        Save a parameter shared by several Blocks once (under its last structural
        name) instead of once per name.
    """
    params = block._collect_params_with_prefix()
    if deduplicate:
        last = OrderedDict()
        for key, param in params.items():
            last[param] = key
        params = OrderedDict((key, param) for param, key in last.items())
    arrays = OrderedDict((key, param._reduce()) for key, param in params.items())
    _nd().save(filename, arrays)


def load_parameters(block, filename: str, ctx=None, allow_missing: bool = False,
                    ignore_extra: bool = False, cast_dtype: bool = False,
                    dtype_source: str = "current") -> None:
    """Load a file written by ``save_parameters`` into ``block``.

    A file whose names hold no ``.`` is a legacy one (``save_params`` or
    ``collect_params().save``): it is loaded by prefixed name, restoring
    ``block.prefix``.
    """
    loaded = _nd().load(filename)
    params = block._collect_params_with_prefix()
    if not loaded and not params:
        return
    if not isinstance(loaded, dict):
        raise _ValueError(f"load_parameters: file '{filename}' holds a list of arrays "
                          f"without names; it needs parameter names (nd.save of a dict)")
    if not any("." in key for key in loaded):
        del loaded
        block.collect_params().load(filename, ctx, allow_missing, ignore_extra, block.prefix,
                                    cast_dtype=cast_dtype, dtype_source=dtype_source)
        return
    if not allow_missing:
        # a shared parameter is in the file under one of its names
        names_of = defaultdict(list)
        for key, param in params.items():
            names_of[param].append(key)
        for key, param in params.items():
            if not any(n in loaded for n in names_of[param]):
                raise _AssertionError(
                    f"Parameter '{key}' is missing in file '{filename}', which contains "
                    f"parameters: {_brief_print_list(loaded.keys())}. Set "
                    f"allow_missing=True to ignore missing parameters.")
    for key in loaded:
        if not ignore_extra and key not in params:
            # MXNet lists the Block's own parameters here (empty for containers)
            raise _ValueError(
                f"Parameter '{key}' loaded from file '{filename}' is not present in "
                f"ParameterDict, which contains parameters "
                f"{_brief_print_list(block._params.keys())}. Set ignore_extra=True to "
                f"ignore. ")
        if key in params:
            params[key]._load_init(loaded[key], ctx, cast_dtype=cast_dtype,
                                   dtype_source=dtype_source)


def export(block, path: str, epoch: int = 0, remove_amp_cast: bool = True) -> None:
    """Write ``block``'s traced graph and parameters for ``SymbolBlock.imports``.

    Files: ``path-symbol.json`` and ``path-%04d.params`` (``epoch``), parameters keyed
    ``arg:<name>`` / ``aux:<name>``.  Needs a graph: hybridize and run one forward first.
    """
    if not block._cached_graph:
        raise MXNetError("Please first call block.hybridize() and then run forward with "
                            "this block at least once before calling export.")
    sym = block._cached_graph[1]
    arg_names = set(sym.list_arguments())
    aux_names = set(sym.list_auxiliary_states())
    arrays = OrderedDict()
    for name, param in block.collect_params().items():
        if name in arg_names:
            arrays[f"arg:{name}"] = param._reduce()
        elif name in aux_names:
            arrays[f"aux:{name}"] = param._reduce()
        else:
            raise _AssertionError(f"export: Parameter '{name}' of {block.name} is not an "
                                  f"input of the exported graph")
    save_pair(f"{path}-symbol.json", sym, f"{path}-{epoch:04d}.params", arrays,
              remove_amp_cast)
