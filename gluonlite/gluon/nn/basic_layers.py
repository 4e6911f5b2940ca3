"""Basic Gluon layers (MXNet 1.9 ``mx.gluon.nn.basic_layers``): containers, ``Dense``,
``Dropout``, ``Embedding``, ``Flatten`` and the ``Lambda`` wrappers.

Every HybridBlock here calls the registry operators through ``F`` with the
arguments and node names MXNet's layers use (``name='fwd'`` gives ``dense0_fwd``),
so a hybridized model exports the same ``-symbol.json`` as MXNet.  The
normalization layers live in :mod:`.norm_layers` and are re-exported here, where
MXNet keeps them.
"""
from __future__ import annotations

import warnings

from ... import ndarray as _nd
from ... import symbol as _sym
from ..block import Block, HybridBlock
from ..parameter import _ValueError
from ..parameter_dict import _indent
from ._util import check

__all__ = ["Sequential", "HybridSequential", "Dense", "Dropout", "Embedding", "BatchNorm",
           "BatchNormReLU", "InstanceNorm", "LayerNorm", "GroupNorm", "Flatten", "Lambda",
           "HybridLambda"]


def _children_repr(block: Block) -> str:
    """``Name(\\n  (0): child\\n  ...)``: the container form of MXNet's ``__repr__``."""
    lines = [f"  ({key}): {_indent(repr(child), 2)}" for key, child in block._children.items()]
    return "{name}(\n{mods}\n)".format(name=block.__class__.__name__, mods="\n".join(lines))


def _run_chain(children, x, args):
    """Feed ``x`` through ``children``; a child returning a tuple passes its tail on as
    extra arguments to the next child (MXNet's Sequential contract)."""
    for block in children:
        x = block(x, *args)
        args = ()
        if isinstance(x, (tuple, list)):
            args = tuple(x[1:])
            x = x[0]
    if args:
        x = (x,) + args
    return x


class _ContainerMixin:
    """``add``, indexing (slices give a container of the same type and prefix),
    ``len`` and ``repr`` shared by ``Sequential`` and ``HybridSequential``."""

    def add(self, *blocks) -> None:
        """Append Blocks (each becomes the next child, named by position)."""
        for block in blocks:
            self.register_child(block)

    def __repr__(self) -> str:
        return _children_repr(self)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self) -> int:
        return len(self._children)


class Sequential(_ContainerMixin, Block):
    """Stack Blocks sequentially: each child's output is the next child's input.

    Parameters
    ----------
    prefix : str, optional
        Name prefix (default ``sequential<n>_``).
    params : ParameterDict, optional
        Parameters to share.
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def forward(self, x, *args):
        return _run_chain(self._children.values(), x, args)

    def hybridize(self, active: bool = True, **kwargs) -> None:
        """Hybridize the children; warn when all of them could have been one graph."""
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(f"All children of this Sequential layer '{self.prefix}' are "
                          f"HybridBlocks. Consider using HybridSequential for the best "
                          f"performance.", stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_ContainerMixin, HybridBlock):
    """Stack HybridBlocks sequentially; hybridized, the whole stack is one graph.

    Parameters
    ----------
    prefix : str, optional
        Name prefix (default ``hybridsequential<n>_``).
    params : ParameterDict, optional
        Parameters to share.
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args):
        return _run_chain(self._children.values(), x, args)


class Dense(HybridBlock):
    """Fully connected layer: ``activation(dot(x, weight.T) + bias)``.

    Parameters
    ----------
    units : int
        Output size.
    activation : str, optional
        Activation applied to the output (an :class:`Activation` child), default none.
    use_bias : bool
        Whether to add a bias.
    flatten : bool
        Flatten all but the first input axis (``True``) or apply to the last axis only.
    dtype : str or numpy dtype
        Type of the parameters.
    weight_initializer, bias_initializer : Initializer or str
        Initializers of ``weight`` (``(units, in_units)``) and ``bias`` (``(units,)``).
    in_units : int
        Input size; 0 defers it to the first forward.
    """

    def __init__(self, units: int, activation=None, use_bias: bool = True, flatten: bool = True,
                 dtype="float32", weight_initializer=None, bias_initializer="zeros",
                 in_units: int = 0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                from .activations import Activation
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            out = F.FullyConnected(x, weight, no_bias=True, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        else:
            out = F.FullyConnected(x, weight, bias, no_bias=False, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self) -> str:
        shape = self.weight.shape
        in_units = shape[1] if shape[1] else None
        return f"{self.__class__.__name__}({in_units} -> {shape[0]}, " \
               f"{self.act if self.act else 'linear'})"


class Dropout(HybridBlock):
    """Randomly zero elements with probability ``rate`` in training (scaled by
    ``1/(1-rate)``); identity in prediction.

    Parameters
    ----------
    rate : float
        Probability of dropping an element.
    axes : tuple of int
        Axes on which the same mask is shared (variational dropout).
    """

    def __init__(self, rate: float, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p = {self._rate}, axes={self._axes})"


class Embedding(HybridBlock):
    """Map integer indices to dense vectors (rows of ``weight``).

    Parameters
    ----------
    input_dim : int
        Vocabulary size (rows of ``weight``).
    output_dim : int
        Vector size.
    dtype : str or numpy dtype
        Type of ``weight`` and of the output.
    weight_initializer : Initializer or str, optional
        Initializer of ``weight``.
    sparse_grad : bool
        Give ``weight`` a ``row_sparse`` gradient buffer (``grad_stype='row_sparse'``):
        it stores the rows the batch looked up (rows whose gradient is nonzero), and a
        Trainer then updates only those rows (MXNet's lazy update).
    """

    def __init__(self, input_dim: int, output_dim: int, dtype="float32",
                 weight_initializer=None, sparse_grad: bool = False, **kwargs):
        super().__init__(**kwargs)
        grad_stype = "row_sparse" if sparse_grad else "default"
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": sparse_grad}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True, grad_stype=grad_stype)

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        k = self._kwargs
        return f"{self.__class__.__name__}({k['input_dim']} -> {k['output_dim']}, {k['dtype']})"


class Flatten(HybridBlock):
    """Reshape ``(N, d1, d2, ...)`` to ``(N, d1*d2*...)``."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self) -> str:
        return self.__class__.__name__


def _function_error(function):
    return _ValueError(f"Unrecognized function in lambda: {function} of type "
                       f"{type(function)}")


class Lambda(Block):
    """Wrap a function (or the name of an ``nd`` function) as a Block.

    Parameters
    ----------
    function : str or callable
        ``'tanh'`` (looked up in ``mx.nd``) or a callable taking the inputs.
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            check(hasattr(_nd, function), f"Function name {function} is not found in ndarray.")
            self._func_impl = getattr(_nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise _function_error(function)

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._func_impl.__name__})"


class HybridLambda(HybridBlock):
    """Wrap ``function(F, x, *args)`` (or the name of a function present in both
    ``mx.nd`` and ``mx.sym``) as a HybridBlock.

    Parameters
    ----------
    function : str or callable
        ``'tanh'`` or a callable ``f(F, x, *args)``.
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            check(hasattr(_nd, function) and hasattr(_sym, function),
                  f"Function name {function} is not found in symbol/ndarray.")
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise _function_error(function)

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._func_name})"


from .norm_layers import (BatchNorm, BatchNormReLU, InstanceNorm, LayerNorm,  # noqa: E402
                          GroupNorm)
