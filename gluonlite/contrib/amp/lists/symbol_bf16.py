"""``mx.contrib.amp.lists.symbol_bf16``: AMP's operator lists for bfloat16 (MXNet 1.9's
names; defined in :mod:`gluonlite.ops.amp_lists_bf16`).

``BF16_FUNCS``
    inputs cast to bfloat16;
``BF16_FP32_FUNCS``
    left alone (run in the type of their inputs);
``BF16_USE_FP32_PARAMS``
    operator to the inputs that stay float32 (``""`` is the data input);
``FP32_FUNCS``
    inputs cast to float32;
``CONDITIONAL_FP32_FUNCS``
    ``(op, attribute, values)``: inputs cast to float32 for those attribute values;
``WIDEST_TYPE_CASTS``
    inputs cast to the widest float type among them;
``LOSS_OUTPUT_FUNCTIONS``
    the loss-output operators.
"""
from ....ops.amp_lists_bf16 import (BF16_FP32_FUNCS, BF16_FUNCS,  # noqa: F401
                                    BF16_USE_FP32_PARAMS, CONDITIONAL_FP32_FUNCS, FP32_FUNCS,
                                    LOSS_OUTPUT_FUNCTIONS, WIDEST_TYPE_CASTS)

__all__ = ["BF16_FUNCS", "BF16_FP32_FUNCS", "BF16_USE_FP32_PARAMS", "FP32_FUNCS",
           "CONDITIONAL_FP32_FUNCS", "WIDEST_TYPE_CASTS", "LOSS_OUTPUT_FUNCTIONS"]
