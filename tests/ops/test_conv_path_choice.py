"""Which CPU layout a convolution takes (``_conv_rows.use_rows``): the pixel-major
columns only where their weight transpose is repaid (at least as many output pixels as
filters); the results are the same either way (the op harness samples check both)."""
import numpy as np

from gluonlite.ops import convolution as cv
from gluonlite.ops._conv_rows import use_rows
from gluonlite.ops.registry import get_op


def _choice(n, c, size, filters):
    x = np.zeros((n, c, size, size), np.float32)
    w = np.zeros((filters, c, 3, 3), np.float32)
    attrs = get_op("Convolution").parse_attrs(dict(kernel=(3, 3), num_filter=filters,
                                                  pad=(1, 1), no_bias=True))
    geo = cv._geometry(attrs)
    return use_rows(np, x, w, 1, geo, geo.out_sizes("Convolution", x.shape[2:]))


def test_rows_need_as_many_pixels_as_filters():
    assert _choice(1, 64, 56, 64)            # 3136 pixels, 64 filters
    assert not _choice(1, 512, 7, 512)       # ResNet's last stage at batch 1
    assert not _choice(8, 512, 7, 512)       # 392 pixels
    assert _choice(16, 512, 7, 512)          # 784 pixels
