"""``amp.init`` wraps the ``nd``/``sym`` operator functions so float inputs are cast
(``amp_cast`` / ``amp_multicast`` nodes, as MXNet inserts them); ``init_trainer``,
``scale_loss`` and ``unscale`` scale the loss of a Gluon Trainer dynamically."""
from __future__ import annotations

import contextlib
import functools
import logging

import numpy as np

from ... import ndarray as nd
from ... import symbol as sym
from ...base import MXNetError
from . import lists
from .convert import (convert_bucketing_module, convert_hybrid_block,  # noqa: F401
                      convert_model, convert_symbol)
from .loss_scaler import LossScaler

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "list_lp16_ops", "list_fp32_ops",
           "list_lp16_fp32_ops", "list_widest_type_cast", "list_conditional_fp32_ops",
           "list_loss_output_functions", "list_lp16_use_fp32_params", "convert_symbol",
           "convert_model", "convert_hybrid_block", "convert_bucketing_module", "bfloat16"]

#: MXNet's NumPy stand-in for bfloat16 (a 16-bit record); ``target_dtype=bfloat16``
#: selects the bfloat16 operator lists.
bfloat16 = np.dtype([("bfloat16", np.uint16)])

_fp16 = lists.symbol_fp16

_amp_initialized = False
_loss_scaler = None
_loss_scaler_taken = False


def _is_float_input(x, module) -> bool:
    if module is nd:
        return isinstance(x, nd.NDArray) and np.dtype(x.dtype) in (np.float16, np.float32)
    return isinstance(x, sym.Symbol)


def _cast_inputs(module, args, kwargs, cast):
    """``args``/``kwargs`` with every array (Symbol) input replaced by ``cast(x)``."""
    args = [cast(a) if _is_float_input(a, module) else a for a in args]
    kwargs = {k: cast(v) if _is_float_input(v, module) else v for k, v in kwargs.items()}
    return args, kwargs


def _cast_node_inputs(out, cast) -> None:
    """Put ``cast`` on every non-auxiliary input of the node just made for ``out``
    (weights and biases the operator created included, as MXNet's AMP does)."""
    node = out._single_node()
    if node is None or node.op is None:
        return
    names = node.op.input_names(node.attrs)
    node.inputs = [entry if name in node.op.aux_names else cast(sym.Symbol([entry]))._heads[0]
                   for name, entry in zip(names, node.inputs)]


def _wrap(module, name: str, make_cast) -> None:
    func = getattr(module, name, None)
    if func is None or getattr(func, "_amp_wrapped", False):
        return
    whole_node = make_cast is not _widest

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        cast = make_cast(module, args, kwargs)
        if cast is None:
            return func(*args, **kwargs)
        if module is sym and whole_node:
            out = func(*args, **kwargs)
            _cast_node_inputs(out, cast)
            return out
        args, kwargs = _cast_inputs(module, args, kwargs, cast)
        return func(*args, **kwargs)

    wrapper._amp_wrapped = True
    setattr(module, name, wrapper)


def _to(dtype):
    def make(module, args, kwargs):
        return lambda x: module.amp_cast(x, dtype=dtype)
    return make


def _conditional_fp32(attr: str, values):
    def make(module, args, kwargs):
        if kwargs.get(attr) in values:
            return lambda x: module.amp_cast(x, dtype="float32")
        return None
    return make


def _widest(module, args, kwargs):
    inputs = [x for x in list(args) + list(kwargs.values()) if _is_float_input(x, module)]
    if len(inputs) < 2:
        return None
    cast = iter(module.amp_multicast(*inputs, num_outputs=len(inputs)))
    return lambda x: next(cast)


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None,
         fp32_ops=None) -> None:
    """Turn AMP on: ``nd``/``sym`` operators of the float16 list get float16 inputs,
    those of the float32 list float32 inputs, and multi-input operators the widest
    float type of their inputs.  Call it before building the model.

    Parameters
    ----------
    target_dtype : {'float16'}
        The low precision type (bfloat16 is not supported by gluonlite).
    target_precision_ops, conditional_fp32_ops, fp32_ops : list, optional
        Replace the default lists (see :mod:`.lists`).
    """
    global _amp_initialized, _loss_scaler
    if _amp_initialized:
        return
    if target_dtype == "bfloat16" or np.dtype(target_dtype) != np.float16:
        raise MXNetError(f"amp.init: target_dtype {target_dtype!r} is not supported; "
                         "gluonlite's AMP supports float16")
    _amp_initialized = True
    logging.info("Using AMP")
    fp16 = target_precision_ops if target_precision_ops is not None else _fp16.FP16_FUNCS
    fp32 = fp32_ops if fp32_ops is not None else _fp16.FP32_FUNCS
    conditional = conditional_fp32_ops if conditional_fp32_ops is not None \
        else _fp16.CONDITIONAL_FP32_FUNCS
    for module in (nd, sym):
        for name in fp16:
            _wrap(module, name, _to("float16"))
        for name in fp32:
            _wrap(module, name, _to("float32"))
        for name, attr, values in conditional:
            _wrap(module, name, _conditional_fp32(attr, values))
        for name in _fp16.WIDEST_TYPE_CASTS:
            _wrap(module, name, _widest)
    _loss_scaler = LossScaler()


def init_trainer(optimizer_or_trainer) -> None:
    """Give a Gluon Trainer dynamic loss scaling (needs :func:`init` first)."""
    global _loss_scaler_taken
    from ...gluon import Trainer
    from ... import optimizer as opt
    assert _amp_initialized, "AMP not initialized, did you forget to call amp.init()?"
    scaler = _loss_scaler if not _loss_scaler_taken else LossScaler()
    _loss_scaler_taken = True
    if isinstance(optimizer_or_trainer, Trainer):
        optimizer_or_trainer._amp_loss_scaler = scaler
        optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale
    elif isinstance(optimizer_or_trainer, opt.Optimizer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    else:
        raise TypeError("optimizer_or_trainer should be a Gluon Trainer or an optimizer, "
                        f"instead is {type(optimizer_or_trainer)}")


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Yield the loss (or list of losses) times the loss scale; the Trainer divides
    the gradients by it again in its next step."""
    scaler = getattr(optimizer_or_trainer, "_amp_loss_scaler", None)
    assert scaler is not None, "Loss scaler is not initialized, did you forget to call " \
                               "amp.init_trainer()?"
    optimizer_or_trainer._scale = (optimizer_or_trainer._amp_original_scale
                                   / scaler.loss_scale)
    if isinstance(loss, (list, tuple)):
        yield [l * scaler.loss_scale for l in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer) -> None:
    """Divide the gradients by the loss scale now (e.g. before clipping them)."""
    from ...gluon import Trainer
    if not isinstance(optimizer_or_trainer, Trainer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    for param in optimizer_or_trainer._params:
        if param._grad is not None:
            for grad in param._grad:
                grad[:] *= optimizer_or_trainer._scale
    optimizer_or_trainer._scale = 1.0


class AmpTargetError(MXNetError, AssertionError):
    """An unknown ``target_dtype`` (MXNet checks it with ``assert``)."""


def _lists_for(target_dtype):
    """The operator-list module of ``target_dtype``: ``'float16'`` or ``bfloat16``."""
    if isinstance(target_dtype, str):
        if target_dtype == "float16":
            return lists.symbol_fp16
        if target_dtype == "bfloat16":
            return lists.symbol_bf16
    elif target_dtype is np.float16 or target_dtype == np.dtype(np.float16):
        return lists.symbol_fp16
    elif target_dtype == bfloat16:
        return lists.symbol_bf16
    raise AmpTargetError(f"amp: target_dtype {target_dtype!r} is not supported type; "
                         "expected 'float16' or bfloat16")


def list_lp16_ops(target_dtype="float16") -> list:
    """Operators AMP runs in the low precision type ``target_dtype``."""
    mod = _lists_for(target_dtype)
    return list(mod.BF16_FUNCS if mod is lists.symbol_bf16 else mod.FP16_FUNCS)


def list_fp32_ops(target_dtype="float16") -> list:
    """Operators AMP keeps in float32."""
    return list(_lists_for(target_dtype).FP32_FUNCS)


def list_lp16_fp32_ops(target_dtype="float16") -> list:
    """Operators that run in the low precision type or float32, whichever their inputs have."""
    mod = _lists_for(target_dtype)
    return list(mod.BF16_FP32_FUNCS if mod is lists.symbol_bf16 else mod.FP16_FP32_FUNCS)


def list_widest_type_cast(target_dtype="float16") -> list:
    """Operators whose inputs AMP casts to their widest float type."""
    return list(_lists_for(target_dtype).WIDEST_TYPE_CASTS)


def list_conditional_fp32_ops(target_dtype="float16") -> list:
    """``(operator, attribute, values)`` kept in float32 for those values."""
    return list(_lists_for(target_dtype).CONDITIONAL_FP32_FUNCS)


def list_loss_output_functions(target_dtype="float16") -> list:
    """The loss-output operators (their outputs are float32 whatever their inputs)."""
    return list(_lists_for(target_dtype).LOSS_OUTPUT_FUNCTIONS)


def list_lp16_use_fp32_params(target_dtype="float16"):
    """For bfloat16: operator -> inputs that stay float32 (``None`` for float16, as MXNet)."""
    mod = _lists_for(target_dtype)
    return dict(mod.BF16_USE_FP32_PARAMS) if mod is lists.symbol_bf16 else None
