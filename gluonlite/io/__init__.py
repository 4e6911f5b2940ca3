"""Data iterators of MXNet's symbolic API (``mxnet.io``)."""
from . import io, utils  # noqa: F401
from .io import DataBatch, DataDesc, DataIter, MXDataIter, PrefetchingIter, ResizeIter  # noqa: F401
from .ndarray_iter import NDArrayIter  # noqa: F401
from .utils import _getdata_by_idx, _has_instance, _init_data  # noqa: F401
from .image_record_iter import (ImageRecordInt8Iter, ImageRecordIter,  # noqa: F401
                                ImageRecordUInt8Iter)
from .text_iters import CSVIter, MNISTIter  # noqa: F401
from .libsvm_iter import LibSVMIter  # noqa: F401
