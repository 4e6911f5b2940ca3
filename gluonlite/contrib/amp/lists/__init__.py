"""``mx.contrib.amp.lists``: which operators automatic mixed precision casts to the low
precision type, keeps in float32, or casts to the widest input type (MXNet 1.9's
``mxnet.contrib.amp.lists``): :mod:`.symbol_fp16` for float16, :mod:`.symbol_bf16` for
bfloat16.  The lists name registered operators only; they are defined with the
operators (``gluonlite.ops.amp_lists_fp16``/``amp_lists_bf16``)."""
from . import symbol_bf16, symbol_fp16  # noqa: F401

__all__ = ["symbol_fp16", "symbol_bf16"]
