"""``mx.contrib.amp.lists.symbol_fp16``: AMP's operator lists for float16 (MXNet 1.9's
names; defined in :mod:`gluonlite.ops.amp_lists_fp16`).

``FP16_FUNCS``
    inputs cast to float16;
``FP16_FP32_FUNCS``
    left alone (run in the type of their inputs);
``FP32_FUNCS``
    inputs cast to float32;
``CONDITIONAL_FP32_FUNCS``
    ``(op, attribute, values)``: inputs cast to float32 for those attribute values;
``WIDEST_TYPE_CASTS``
    inputs cast to the widest float type among them;
``LOSS_OUTPUT_FUNCTIONS``
    the loss-output operators.
"""
from ....ops.amp_lists_fp16 import (CONDITIONAL_FP32_FUNCS, FP16_FP32_FUNCS,  # noqa: F401
                                    FP16_FUNCS, FP32_FUNCS, LOSS_OUTPUT_FUNCTIONS,
                                    WIDEST_TYPE_CASTS)

__all__ = ["FP16_FUNCS", "FP16_FP32_FUNCS", "FP32_FUNCS", "CONDITIONAL_FP32_FUNCS",
           "WIDEST_TYPE_CASTS", "LOSS_OUTPUT_FUNCTIONS"]
