"""``mx.contrib.symbol``: the contrib operators of ``mx.sym.contrib``."""
from ..symbol import contrib as _contrib

globals().update({k: v for k, v in vars(_contrib).items() if not k.startswith("__")})
