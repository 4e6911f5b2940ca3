"""``Symbol.get_backend_symbol`` and ``Symbol.optimize_for``: MXNet 1.9.1's subgraph
backends that gluonlite has, ``MKLDNN`` (:func:`.onednn_fusion.partition_onednn`) and
``MKLDNN_QUANTIZE`` (its fusion properties, then the post-quantization passes of
:mod:`.onednn_post_quantize`).

Other backends (TensorRT, custom libraries loaded with ``mx.library.load``) need code
gluonlite cannot run, and raise ``MXNetError`` naming the backend.
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError
from .graph import topo_order
from .onednn_fusion import partition_onednn
from .onednn_post_quantize import post_quantize_onednn

__all__ = ["BACKENDS", "get_backend_symbol", "optimize_for"]

BACKENDS = ("MKLDNN", "MKLDNN_QUANTIZE")


def _unknown(backend: str, where: str) -> MXNetError:
    return MXNetError(f"{where}: subgraph backend '{backend}' is not available in gluonlite "
                      f"(it has {', '.join(BACKENDS)})")


def _partition(sym, backend: str, where: str, honour_disable: bool, shape_info=None):
    if backend == "MKLDNN":
        return partition_onednn(sym, False, honour_disable, shape_info)
    if backend == "MKLDNN_QUANTIZE":
        return post_quantize_onednn(partition_onednn(sym, True, honour_disable, shape_info))
    raise _unknown(backend, where)


def get_backend_symbol(sym, backend: str):
    """The graph of ``sym`` partitioned for ``backend`` (MXNet's ``MXGenBackendSubgraph``:
    a property turned off by its ``MXNET_DISABLE_MKLDNN_*_OPT`` variable is skipped)."""
    return _partition(sym, backend, "get_backend_symbol", True)


def _shape_info(known_shapes: dict, known_types: dict):
    """A ``shape_info`` for :func:`partition_onednn`: infers, on each graph it is given,
    the shape and dtype of every entry from the inputs' (by variable name)."""
    from .infer import infer_graph_shapes, infer_graph_types

    def info(heads: list):
        order = topo_order(heads)
        variables = [n for n in order if n.op is None]
        shapes = infer_graph_shapes(order, {id(v): known_shapes[v.name] for v in variables
                                            if v.name in known_shapes})
        dtypes = infer_graph_types(order, {id(v): known_types[v.name] for v in variables
                                           if v.name in known_types})

        def node_attr(entry):
            key = (id(entry[0]), entry[1])
            shape = shapes.get(key)
            if shape is not None and (not shape or 0 in shape):
                shape = None
            return shape, dtypes.get(key)
        return node_attr
    return info


def optimize_for(sym, backend: str, args=None, aux=None, ctx=None, shape_dict=None,
                 type_dict=None, stype_dict=None, skip_infer: bool = False, **kwargs):
    """MXNet 1.9's ``Symbol.optimize_for`` (see :meth:`Symbol.optimize_for`).

    ``kwargs`` are the backend's options; the oneDNN properties read none but
    ``dedup_subgraph``, which is ignored here: with it MXNet 1.9.1 cuts a repeated input
    once but still rotates the fused convolution's inputs as if cut twice, so its fused
    ``conv + sum`` nodes read their operands in the wrong order (a deliberate
    difference)."""
    if not isinstance(backend, str):
        raise AssertionError("optimize_for: backend must be a str")
    if not (args is None or isinstance(args, dict)) or not (aux is None or isinstance(aux, dict)):
        raise AssertionError("optimize_for: args and aux must be dicts of NDArrays")
    if backend not in BACKENDS:
        raise _unknown(backend, "optimize_for")
    for key, value in (shape_dict or {}).items():
        if not isinstance(value, (tuple, list)):
            raise ValueError(f"{value} has to be a tuple or list.")
    shape_info = None
    if (args or aux) and not skip_infer:
        shapes = {k: tuple(v) for k, v in (shape_dict or {}).items()}
        types = {k: np.dtype(v) for k, v in (type_dict or {}).items()}
        for given in (args or {}, aux or {}):
            for name, arr in given.items():
                if arr is not None:
                    shapes[name] = tuple(arr.shape)
                    types[name] = np.dtype(arr.dtype)
        shape_info = _shape_info(shapes, types)
    out = _partition(sym, backend, "optimize_for", False, shape_info)
    for old, new, given in ((sym.list_arguments(), out.list_arguments(), args),
                            (sym.list_auxiliary_states(), out.list_auxiliary_states(), aux)):
        gone = set(old) - set(new)
        if gone and given is not None:
            for name in gone:
                given.pop(name, None)
    return out
