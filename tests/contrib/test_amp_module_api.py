"""``mx.contrib.amp.amp`` as MXNet 1.9.1's ``amp`` module: MXNet's tests do
``from mxnet.contrib.amp import amp`` and then use ``amp.lists.symbol_bf16``,
``amp.convert_symbol``, ``amp.convert_model`` and the ``list_*`` functions, which take
the low precision type (``'float16'`` or MXNet's ``bfloat16`` record dtype)."""
import collections

import numpy as np
import pytest

from gluonlite.contrib import amp as amp_package
from gluonlite.contrib.amp import amp
from gluonlite.contrib.amp.lists import symbol_bf16, symbol_fp16

# the names of MXNet 1.9.1's ``mxnet.contrib.amp.amp`` that user code reaches for
MXNET_NAMES = ["lists", "convert_symbol", "convert_model", "convert_hybrid_block",
               "convert_bucketing_module", "init", "init_trainer", "scale_loss", "unscale",
               "list_lp16_ops", "list_fp32_ops", "list_lp16_fp32_ops",
               "list_conditional_fp32_ops", "list_widest_type_cast",
               "list_loss_output_functions", "list_lp16_use_fp32_params", "bfloat16",
               "LossScaler"]


@pytest.mark.parametrize("name", MXNET_NAMES)
def test_amp_module_has_mxnet_names(name):
    assert hasattr(amp, name)


def test_amp_lists_is_the_lists_package():
    # test_contrib_amp.py::test_amp_coverage reads amp.lists.symbol_bf16
    assert amp.lists.symbol_bf16 is symbol_bf16
    assert amp.lists.symbol_fp16 is symbol_fp16
    assert amp.convert_symbol is amp_package.convert_symbol


def test_bfloat16_is_mxnets_record_dtype():
    assert amp.bfloat16 == np.dtype([("bfloat16", np.uint16)])
    assert amp.bfloat16.itemsize == 2


_FP16 = ("FP16_FUNCS", "FP16_FP32_FUNCS", None)
_BF16 = ("BF16_FUNCS", "BF16_FP32_FUNCS", "BF16_USE_FP32_PARAMS")


@pytest.mark.parametrize("target, lists, names", [
    ("float16", symbol_fp16, _FP16), (np.float16, symbol_fp16, _FP16),
    ("bfloat16", symbol_bf16, _BF16),
    (np.dtype([("bfloat16", np.uint16)]), symbol_bf16, _BF16)])
def test_list_functions(target, lists, names):
    lp16, lp16_fp32, use_fp32_params = names
    assert amp.list_lp16_ops(target) == getattr(lists, lp16)
    assert amp.list_fp32_ops(target) == lists.FP32_FUNCS
    assert amp.list_lp16_fp32_ops(target) == getattr(lists, lp16_fp32)
    assert amp.list_conditional_fp32_ops(target) == lists.CONDITIONAL_FP32_FUNCS
    assert amp.list_widest_type_cast(target) == lists.WIDEST_TYPE_CASTS
    assert amp.list_loss_output_functions(target) == lists.LOSS_OUTPUT_FUNCTIONS
    want = None if use_fp32_params is None else getattr(lists, use_fp32_params)
    assert amp.list_lp16_use_fp32_params(target) == want


def test_list_functions_default_is_float16():
    assert amp.list_lp16_ops() == symbol_fp16.FP16_FUNCS


@pytest.mark.parametrize("target", ["float32", np.float64, "int8"])
def test_list_functions_reject_other_types(target):
    # MXNet asserts "not supported type"
    with pytest.raises(AssertionError, match="not supported type"):
        amp.list_lp16_ops(target)


def test_list_functions_return_copies():
    got = amp.list_fp32_ops("float16")
    got.append("not_an_op")
    assert "not_an_op" not in symbol_fp16.FP32_FUNCS


def test_bf16_lists_have_no_duplicates():
    # the first half of test_contrib_amp.py::test_amp_coverage (the rest asks the C API)
    conditional = [item[0] for item in symbol_bf16.CONDITIONAL_FP32_FUNCS]
    groups = [symbol_bf16.BF16_FUNCS, symbol_bf16.BF16_FP32_FUNCS, symbol_bf16.FP32_FUNCS,
              symbol_bf16.WIDEST_TYPE_CASTS, conditional]
    for group in groups:
        assert [k for k, c in collections.Counter(group).items() if c > 1] == []
    everything = [name for group in groups for name in group]
    assert [k for k, c in collections.Counter(everything).items() if c > 1] == []


def test_convert_symbol_refuses_the_bfloat16_record():
    from gluonlite import sym
    from gluonlite.base import MXNetError
    with pytest.raises(MXNetError, match="bfloat16"):
        amp.convert_symbol(sym.var("x") * 2, target_dtype=amp.bfloat16)
