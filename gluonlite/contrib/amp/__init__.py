"""Automatic mixed precision (``mx.contrib.amp``): casting operator inputs to float16
where it is safe, and dynamic loss scaling for Gluon Trainers."""
from .amp import (bfloat16, init, init_trainer, list_conditional_fp32_ops,  # noqa: F401
                  list_fp32_ops, list_loss_output_functions, list_lp16_fp32_ops,
                  list_lp16_ops, list_lp16_use_fp32_params, list_widest_type_cast, scale_loss,
                  unscale)
from .convert import (convert_bucketing_module, convert_hybrid_block,  # noqa: F401
                      convert_model, convert_symbol)
from .loss_scaler import LossScaler  # noqa: F401
from . import lists  # noqa: F401
from . import amp as _amp_module


def __getattr__(name):
    # ``amp._amp_initialized`` is read by client code (GluonNLP) after init()
    if name == "_amp_initialized":
        return _amp_module._amp_initialized
    raise AttributeError(name)
