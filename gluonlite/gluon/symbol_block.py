"""Gluon's ``SymbolBlock`` (MXNet 1.9): a HybridBlock wrapping a ready-made Symbol.

The graph's arguments that are not inputs become Parameters (auxiliary states with
``grad_req='null'``), all with deferred shapes that the first forward infers.  The
graph always runs through one :class:`~gluonlite.engine.CachedOp`, so gradients reach
the parameters (fine-tuning) and BatchNorm statistics update in training mode.
``SymbolBlock.imports`` loads files written by ``HybridBlock.export`` (ours or MXNet's).
"""
from __future__ import annotations

import copy

import numpy as np

from ..base import MXNetError, mx_real_t
from ..ndarray.utils import check_paired
from .hybrid_block import HybridBlock, _flatten, _regroup
from .parameter import ParameterDict, _AssertionError

__all__ = ["SymbolBlock"]


def _sym_mod():
    from .. import symbol
    return symbol


def _common_prefix(names) -> str:
    """Longest common leading string of ``names`` (character-wise)."""
    if not names:
        return ""
    prefix = names[0]
    for name in names[1:]:
        n = 0
        limit = min(len(prefix), len(name))
        while n < limit and prefix[n] == name[n]:
            n += 1
        prefix = prefix[:n]
    return prefix


def _infer_param_types(in_syms, out, arg_names, aux_names):
    """Dtypes of the graph's arguments and auxiliary states, inferred from the input
    variables' dtypes.  As in MXNet, when an input has no dtype, or the inference
    fails or is incomplete, every parameter gets float32."""
    arg_types = aux_types = None
    known = {}
    for s in in_syms:
        try:
            types = s.infer_type()[0]
        except MXNetError:
            types = None
        if not types or types[0] is None:
            known = None
            break
        known[s.name] = types[0]
    if known is not None:
        try:
            arg_types, _, aux_types = out.infer_type(**known)
        except MXNetError:
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_names):
        arg_types = [mx_real_t] * len(arg_names)
    if aux_types is None or len(aux_types) != len(aux_names):
        aux_types = [mx_real_t] * len(aux_names)
    return arg_types, aux_types


def _refuse_row_sparse(out) -> None:
    """MXNet's SymbolBlock takes no ``row_sparse`` parameters (a Trainer would need
    ``row_sparse_pull`` for them): raise as it does."""
    from ..ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID
    row_sparse = str(_STORAGE_TYPE_STR_TO_ID["row_sparse"])
    for s in out.get_internals():
        if s.attr("__storage_type__") == row_sparse:
            raise _AssertionError(f"SymbolBlock doesn't support Parameter '{s.name}' because "
                                  f"its storage type is 'row_sparse'.")


class SymbolBlock(HybridBlock):
    """Runs a Symbol as a Block.

    Parameters
    ----------
    outputs : Symbol or list of Symbol
        The outputs of the wrapped graph.
    inputs : Symbol or list of Symbol
        Its input variables (the arguments fed with data).
    params : ParameterDict, optional
        Parameters to reuse (by name) instead of creating new ones.
    """

    # MXNet's SymbolBlock refuses row_sparse parameters; the Module family (which MXNet
    # runs on Executors) runs on a subclass that takes them
    _row_sparse_params = False

    @staticmethod
    def imports(symbol_file: str, input_names, param_file: str | None = None, ctx=None,
                allow_missing: bool = False, ignore_extra: bool = False) -> "SymbolBlock":
        """A SymbolBlock from ``-symbol.json`` (and ``.params``) files of ``export``.

        Parameters
        ----------
        symbol_file : str
        input_names : str or list of str
            Names of the graph variables fed with data.
        param_file : str, optional
            Parameters (``arg:``/``aux:`` keys); they keep their saved dtype.
        ctx : Context or list of Context, optional
        allow_missing, ignore_extra : bool
            As for ``ParameterDict.load``.
        """
        sym = _sym_mod()
        if param_file is not None:
            check_paired(param_file, symbol_file)  # finishes an interrupted export
        out = sym.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [sym.var(n, dtype=mx_real_t) for n in input_names]
        else:
            inputs = [sym.var(n) for n in input_names]
        block = SymbolBlock(out, inputs)
        if param_file is not None:
            block.collect_params().load(param_file, ctx, allow_missing, ignore_extra,
                                        cast_dtype=True, dtype_source="saved")
        return block

    def __repr__(self) -> str:
        inputs, out = self._cached_graph
        body = f"{out} : {len(inputs)} -> {len(out.list_outputs())}"
        return f"{self.__class__.__name__}(\n{body}\n)"

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        sym = _sym_mod()
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(inputs, sym.Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        in_syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        out = sym.Group(out)
        input_names = set()
        for s in in_syms:
            if len(s.get_internals().list_outputs()) != 1:
                raise _AssertionError(f"Input symbols must be variable, but {s} is an output "
                                      f"of operators")
            input_names.add(s.name)
        if not self._row_sparse_params:
            _refuse_row_sparse(out)
        arg_names = out.list_arguments()
        aux_names = out.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(in_syms, out, arg_names, aux_names)
        for name, dtype in zip(arg_names, arg_types):
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True, dtype=dtype)
        for name, dtype in zip(aux_names, aux_types):
            if name not in input_names:
                self.params.get(name, grad_req="null", allow_deferred_init=True, dtype=dtype)
        self._cached_graph = in_syms, out
        skip = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[skip:]: val for key, val in self._params.items()}

    def forward(self, x, *args):
        """NDArrays run the graph; Symbols give the graph composed onto them."""
        if self._cached_op is not None and self._fast_n:
            out = self._fast_call((x,) + args)
            if out is not None:
                return out
        from ..ndarray import NDArray
        if isinstance(x, NDArray):
            with x.context:
                return self._call_cached_op(x, *args)
        sym = _sym_mod()
        if not isinstance(x, sym.Symbol):
            raise _AssertionError(f"HybridBlock requires the first argument to forward be "
                                  f"either Symbol or NDArray, but got {type(x)}")
        flat, fmt = _flatten([x] + list(args), "input")
        if fmt != self._in_format:
            raise _AssertionError("Invalid input format")
        ret = copy.copy(self._cached_graph[1])
        ret._compose(**{k.name: v for k, v in zip(self._cached_graph[0], flat)})
        return _regroup(list(ret), self._out_format)[0]

    def _clear_cached_op(self) -> None:
        graph = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = graph

    def cast(self, dtype) -> None:
        """Cast the parameters; for float16, the inputs that operators declare
        ``float32_inputs`` (BatchNorm's statistics and affine parameters) stay float32,
        as MXNet's BatchNorm requires."""
        self._clear_cached_op()
        super().cast(dtype)
        if np.dtype(dtype).name != "float16":
            return
        from ..symbol.graph import topo_order
        for node in topo_order(self._cached_graph[1]._heads):
            keep = node.op.float32_inputs if node.op is not None else ()
            if not keep:
                continue
            for input_name, (src, _) in zip(node.op.input_names(node.attrs), node.inputs):
                if input_name in keep and src.op is None and src.name in self.params:
                    self.params[src.name].cast("float32")

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError
