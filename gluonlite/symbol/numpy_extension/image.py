"""``mx.sym.npx.image``: the image operators on ``mx.np`` symbols."""
from ...ops.registry import get_op
from ...ndarray.numpy_extension.image import _OPS
from ..register import make_function
from ._op import np_result

__all__ = sorted(_OPS)
for _name, _op_name in _OPS.items():
    globals()[_name] = np_result(make_function(get_op(_op_name), _name))
