"""The operators of ``mx.sym.npx`` on ``mx.np`` symbols (the same operators as
``mx.npx``, with MXNet's calling convention)."""
from ...ops.registry import get_op
from ...ndarray.numpy_extension._op import _OPS
from ..register import make_function
from ..numpy._symbol import _Symbol
from ..numpy._symbol import apply



def np_result(fn):
    """``fn`` (a legacy symbol function) returning ``mx.np`` symbols."""
    def wrapped(*args, **kwargs):
        out = fn(*args, **kwargs)
        return _Symbol(out._heads)
    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


for _name, _op_name in _OPS.items():
    globals()[_name] = np_result(make_function(get_op(_op_name), _name))


def reshape(a, newshape, reverse=False, order="C"):
    """MXNet's extended reshape on a symbol (codes -1..-6, ``reverse``), resolved at shape
    inference (the ``_npx_reshape`` operator)."""
    newshape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    return apply("_npx_reshape", [a], newshape=newshape, reverse=reverse, order=order)


def nonzero(a) -> _Symbol:
    """Indices of the nonzero elements, one row per element (shape ``(N, ndim)``, known
    only when the graph runs)."""
    return apply("_npx_nonzero", [a])


def slice(data, begin, end, step=None) -> _Symbol:  # noqa: A001 - MXNet's name
    """``data[begin:end:step]`` per leading axis (``None`` entries take the defaults; no
    ``step`` means 1 everywhere)."""
    return apply("slice", [data], begin=tuple(begin), end=tuple(end),
                 step=() if step is None else tuple(step))


__all__ = sorted(_OPS) + [f.__name__ for f in (reshape, nonzero, slice)]
