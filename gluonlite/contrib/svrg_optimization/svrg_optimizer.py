"""The two optimizers behind :class:`SVRGModule` (MXNet's
``contrib.svrg_optimization.svrg_optimizer``).

``_SVRGOptimizer`` holds the user's optimizer and an ``_AssignmentOptimizer``.  An
index whose name (``param_idx2name``) is an auxiliary full-gradient key
(``<param>_full``) is "updated" by assignment, which is how the full gradients are
gathered in a kvstore; every other index is updated by the user's optimizer.  Both
are registered, as in MXNet, under ``_svrgoptimizer`` and ``_assignmentoptimizer``.
"""
from __future__ import annotations

from ... import optimizer as opt
from ...base import MXNetError

__all__ = ["_AssignmentOptimizer", "_SVRGOptimizer"]

FULL_SUFFIX = "_full"

# keyword arguments of the Optimizer base class: the wrapper keeps these for itself
_BASE_PARAMS = ("rescale_grad", "param_idx2name", "wd", "clip_gradient", "learning_rate",
                "lr_scheduler", "sym", "begin_num_update", "multi_precision", "param_dict")


def is_full_key(name) -> bool:
    """Whether ``name`` is the key of an accumulated full gradient (``<param>_full``).

    MXNet tests ``"full" in name``, which also sends parameters such as
    ``fullyconnected0_weight`` to the assignment optimizer; the suffix is what
    SVRGModule actually appends, so only that is matched here.
    """
    return isinstance(name, str) and name.endswith(FULL_SUFFIX)


@opt.register
class _AssignmentOptimizer(opt.Optimizer):
    """Sets the weight to the gradient: accumulates SVRG's full gradients in a kvstore.

    Meant for :class:`SVRGModule` only.
    """

    def update(self, index, weight, grad, state) -> None:
        """``weight[:] = grad`` (``index`` and ``state`` are unused)."""
        weight[:] = grad


@opt.register
class _SVRGOptimizer(opt.Optimizer):
    """Dispatches each update to the user's optimizer or, for full-gradient keys, to
    :class:`_AssignmentOptimizer`.

    Meant for :class:`SVRGModule` only.

    Parameters
    ----------
    default_optimizer : str or Optimizer
        The optimizer given to ``SVRGModule.init_optimizer``.  A name is created with
        all of ``kwargs``; an instance is used as it is.
    **kwargs
        Arguments of the default optimizer; those of the :class:`Optimizer` base class
        (``learning_rate``, ``rescale_grad``, ``param_idx2name``, ...) also configure
        this wrapper.
    """

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**_base_params(kwargs))
        if isinstance(default_optimizer, str):
            self.default_opt = opt.create(default_optimizer, **kwargs)
        elif isinstance(default_optimizer, opt.Optimizer):
            self.default_opt = default_optimizer
        else:
            raise MXNetError(f"_SVRGOptimizer: default_optimizer must be an optimizer name "
                             f"or an Optimizer, got {type(default_optimizer).__name__}")
        self.aux_opt = opt.create(_AssignmentOptimizer.__name__)

    @staticmethod
    def _check_params(**kwargs) -> dict:
        """The entries of ``kwargs`` that the Optimizer base class accepts."""
        return _base_params(kwargs)

    def _check_index(self, index):
        """The parameter name of ``index`` (an int key of ``idx2name``, or already a
        name, as kvstores with string keys pass it)."""
        if index in self.idx2name.values():
            return index
        if index not in self.idx2name:
            raise MXNetError(f"_SVRGOptimizer: index {index!r} is not in param_idx2name "
                             f"({sorted(self.idx2name.values())})")
        return self.idx2name[index]

    def _target(self, index) -> opt.Optimizer:
        return self.aux_opt if is_full_key(self._check_index(index)) else self.default_opt

    def create_state(self, index, weight):
        """The state of ``weight`` as its optimizer makes it."""
        return self._target(index).create_state(index, weight)

    def update(self, index, weight, grad, state) -> None:
        """Update ``weight`` with the optimizer that owns ``index``."""
        self._target(index).update(index, weight, grad, state)


def _base_params(kwargs: dict) -> dict:
    return {key: value for key, value in kwargs.items() if key in _BASE_PARAMS}
