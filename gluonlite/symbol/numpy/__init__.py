"""``mx.sym.np``: MXNet's NumPy interface on symbols (``_Symbol`` and the functions
whose operators need no input shape); see :mod:`._symbol`."""
from . import _op, _creation, _statistics, _edit  # noqa: F401
from . import _internal, _register, linalg, random  # noqa: F401
from ._symbol import _Symbol
from ._op import *  # noqa: F401,F403
from ._op import __all__ as _op_all
from ._creation import *  # noqa: F401,F403
from ._creation import __all__ as _creation_all
from ._statistics import *  # noqa: F401,F403
from ._statistics import __all__ as _statistics_all
from ._edit import *  # noqa: F401,F403
from ._edit import __all__ as _edit_all

_NUMPY_DUNDERS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "div": "true_divide", "mod": "mod", "pow": "power", "matmul": "matmul",
}
_COMPARE = {"eq": "equal", "ne": "not_equal", "gt": "greater", "ge": "greater_equal",
            "lt": "less", "le": "less_equal"}
_FLUENT = ("sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "all",
           "any", "cumsum", "round", "clip", "repeat", "tile", "dot", "squeeze",
           "expand_dims", "abs", "exp", "log", "sqrt", "square", "sin", "cos", "tanh",
           "sign", "floor", "ceil", "swapaxes")


def _install() -> None:
    def forward(fname):
        return lambda self, other: getattr(_op, fname)(self, other)

    def reflected(fname):
        return lambda self, other: getattr(_op, fname)(other, self)

    def fluent(fname):
        def method(self, *args, **kwargs):
            return getattr(_op, fname)(self, *args, **kwargs)
        method.__name__ = fname
        return method

    for dunder, fname in _NUMPY_DUNDERS.items():
        setattr(_Symbol, f"__{dunder}__", forward(fname))
        setattr(_Symbol, f"__r{dunder}__", reflected(fname))
    for dunder, fname in _COMPARE.items():
        setattr(_Symbol, f"__{dunder}__", forward(fname))
    _Symbol.__neg__ = lambda self: _op.negative(self)
    _Symbol.__abs__ = lambda self: _op.absolute(self)
    _Symbol.__hash__ = lambda self: id(self)
    for name in _FLUENT:
        setattr(_Symbol, name, fluent(name))


_install()
__all__ = (list(_op_all) + list(_creation_all) + list(_statistics_all) + list(_edit_all)
           + ["linalg", "random", "_Symbol"])
