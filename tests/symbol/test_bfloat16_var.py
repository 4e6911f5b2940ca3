"""``sym.var(dtype=bfloat16)`` and ``sym.amp_cast(dtype=bfloat16)`` with MXNet's
bfloat16 record dtype raise a clear MXNetError (no KeyError, no 'void16')."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

BF16 = np.dtype([("bfloat16", np.uint16)])


@pytest.mark.parametrize("dtype", [BF16, "bfloat16"])
def test_var_bfloat16_raises(dtype):
    with pytest.raises(MXNetError, match="bfloat16 is not supported"):
        mx.sym.Variable("data", dtype=dtype)


def test_sym_amp_cast_bfloat16_raises():
    with pytest.raises(MXNetError, match="amp_cast.*bfloat16 is not supported"):
        mx.sym.amp_cast(mx.sym.var("x"), dtype=BF16)


def test_var_ordinary_dtypes_keep_their_codes():
    assert mx.sym.var("x", dtype=np.float16).attr("__dtype__") == "2"
    assert mx.sym.var("x", dtype="int64").attr("__dtype__") == "6"
