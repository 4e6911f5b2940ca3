"""Activation layers (MXNet 1.9 ``mx.gluon.nn.activations``)."""
from __future__ import annotations

from ... import initializer
from ..block import HybridBlock
from ._util import check

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU"]


class Activation(HybridBlock):
    """Apply an activation function (``F.Activation``).

    Parameters
    ----------
    activation : str
        ``'relu'``, ``'sigmoid'``, ``'tanh'``, ``'softrelu'`` or ``'softsign'``; it is
        also the default name prefix (``relu0_``).
    """

    def __init__(self, activation: str, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self) -> str:
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._act_type})"


class LeakyReLU(HybridBlock):
    """``x`` for ``x > 0``, ``alpha * x`` otherwise.

    Parameters
    ----------
    alpha : float
        Slope for negative inputs (``>= 0``).
    """

    def __init__(self, alpha: float, **kwargs):
        check(alpha >= 0, "Slope coefficient for LeakyReLU must be no less than 0.")
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._alpha})"


class PReLU(HybridBlock):
    """Leaky ReLU with a learnt slope ``alpha`` (one per channel, or one shared).

    Parameters
    ----------
    alpha_initializer : Initializer
        Initializer of ``alpha`` (default ``Constant(0.25)``).
    in_channels : int
        Number of slopes: 1 (shared) or the number of channels (axis 1).
    """

    def __init__(self, alpha_initializer=initializer.Constant(0.25), in_channels: int = 1,
                 **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,),
                                         init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type="prelu", name="fwd")


class ELU(HybridBlock):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Parameters
    ----------
    alpha : float
        Scale of the negative part.
    """

    def __init__(self, alpha: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)


class SELU(HybridBlock):
    """Scaled exponential linear unit (Klambauer et al. 2017)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class Swish(HybridBlock):
    """Swish: ``x * sigmoid(beta * x)``.

    Parameters
    ----------
    beta : float
        Scale inside the sigmoid.
    """

    def __init__(self, beta: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")


class GELU(HybridBlock):
    """Gaussian error linear unit: ``x * Phi(x)`` (exact, with ``erf``)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="gelu", name="fwd")
