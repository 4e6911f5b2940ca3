"""``mx.contrib.ndarray``: the contrib operators of ``mx.nd.contrib``."""
from ..ndarray import contrib as _contrib

globals().update({k: v for k, v in vars(_contrib).items() if not k.startswith("__")})
