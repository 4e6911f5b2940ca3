"""bfloat16 is refused with a clear MXNetError, never cast silently: MXNet's ``bfloat16``
is the record dtype ``np.dtype([('bfloat16', np.uint16)])``, and ``astype`` to a record
would store raw integers (``1.0`` as the bits ``0x0001``) instead of bfloat16 bits."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.attrs import format_attr

BF16 = np.dtype([("bfloat16", np.uint16)])  # MXNet's mx.contrib.amp.amp.bfloat16


@pytest.mark.parametrize("dtype", [BF16, "bfloat16"])
def test_amp_cast_to_bfloat16_raises(dtype):
    with pytest.raises(MXNetError, match="amp_cast.*bfloat16 is not supported"):
        mx.nd.amp_cast(mx.nd.ones((2,)), dtype=dtype)


def test_astype_bfloat16_raises():
    with pytest.raises(MXNetError, match="Cast.*bfloat16 is not supported"):
        mx.nd.ones((2,)).astype(BF16)


def test_other_record_dtypes_raise():
    with pytest.raises(MXNetError, match="record/void dtype"):
        mx.nd.Cast(mx.nd.ones((2,)), dtype="V16")


def test_ordinary_dtypes_still_parse():
    assert mx.nd.ones((2,)).astype(np.float16).dtype == np.float16
    assert mx.nd.amp_cast(mx.nd.ones((2,)), dtype="float16").dtype == np.float16


def test_bfloat16_record_is_written_as_bfloat16():
    # MXNet writes amp_cast's dtype attribute as 'bfloat16'
    assert format_attr(BF16) == "bfloat16"
    assert format_attr(np.dtype(np.float16)) == "float16"
