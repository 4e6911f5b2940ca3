"""``mx.init`` / ``mx.initializer``: weight initializers (MXNet 1.9).

An initializer is called as ``init(desc, arr)`` and writes ``arr`` in place
(``arr[:] = ...``; the array keeps its dtype).  ``desc`` is an :class:`InitDesc`,
the parameter's name with its attributes.  When the attributes carry
``__init__`` (an initializer's ``dumps()`` string, a registered name or an
instance), that initializer's ``_init_weight`` fills the array; otherwise the
name's ending picks the method: ``weight`` -> ``_init_weight``, ``bias`` -> 0,
``gamma`` -> 1, ``beta`` -> 0, ``min`` -> 0, ``max`` -> 1, ``weight_quantize``,
``bias_quantize``; any other name raises.  Calling with a plain ``str`` name is
MXNet's deprecated legacy path, which also knows ``upsampling*`` (bilinear),
``stn_loc*`` and the ``moving_*`` statistics.

Random draws go through ``mx.random`` (so ``mx.random.seed`` makes them
repeatable); the numbers differ from MXNet's, their distributions do not.

The package, by purpose: ``base`` (the protocol, ``InitDesc``, the registry),
``standard`` (MXNet's initializers), ``composite`` (``Load``, ``Mixed``) and ``rnn``
(``FusedRNN``); every name is exported here, at MXNet's paths ``mx.init.X`` and
``mx.initializer.X``.
"""
from .base import (InitAssertionError, InitDesc, Initializer, InitValueError,  # noqa: F401
                   alias, create, register)  # (the errors: public names of mx.init, not in __all__)
from .composite import Load, Mixed
from .rnn import FusedRNN
from .standard import (Bilinear, Constant, LSTMBias, MSRAPrelu, Normal, One, Orthogonal,
                       Uniform, Xavier, Zero)

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero",
           "One", "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu",
           "Bilinear", "LSTMBias", "FusedRNN"]
