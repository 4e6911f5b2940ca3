"""``mx.npx``: MXNet's NumPy extensions: the neural-network operators over ``mx.np``
arrays (``relu``, ``convolution``, ``batch_norm``, ...), ``set_np``/``reset_np``, device
helpers, ``save``/``load``, ``image`` and ``random``."""
from . import _op, _register, image, random, utils  # noqa: F401
from ._op import *  # noqa: F401,F403
from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from ..context import gpu_memory_info  # noqa: F401
from ..util import is_np_shape, is_np_array, set_np, reset_np  # noqa: F401
from ..util import get_cuda_compute_capability  # noqa: F401
from ..ndarray import waitall  # noqa: F401
from .utils import save, load  # noqa: F401
