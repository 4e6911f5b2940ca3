"""The base of MXNet's symbolic RNN cells (``mx.rnn.BaseRNNCell``) and the
parameter container they share (``mx.rnn.RNNParams``).

A cell builds Symbols: calling it on one step's input and states gives the
step's output and new states, and :meth:`BaseRNNCell.unroll` repeats that over a
sequence.  Node names follow MXNet (``{prefix}t{step}_...``), so graphs saved to
``-symbol.json`` and their checkpoints interoperate with MXNet's.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from .. import ndarray
from .. import symbol
from ..base import string_types

__all__ = ["RNNParams", "BaseRNNCell"]

SymbolOrList = Union[symbol.Symbol, List[symbol.Symbol]]


def normalize_sequence(length: Optional[int], inputs, layout: str, merge: Optional[bool],
                       in_layout: Optional[str] = None) -> Tuple[SymbolOrList, int]:
    """Bring a sequence to the form a cell wants.

    Parameters
    ----------
    length : int or None
        Number of time steps.
    inputs : Symbol or list of Symbol
        One symbol holding every step (time axis from ``in_layout``, else ``layout``),
        or one symbol per step.
    layout : str
        ``'NTC'`` or ``'TNC'``: where the time axis is.
    merge : bool or None
        True: return one symbol (steps stacked on the time axis); False: a list of
        per-step symbols; None: leave the form as it is.
    in_layout : str, optional
        Layout of a merged ``inputs`` when it differs from ``layout``.

    Returns
    -------
    (Symbol or list of Symbol, int)
        The sequence and the time axis.
    """
    assert inputs is not None, \
        "unroll(inputs=None) has been deprecated. Please create input variables outside unroll."
    axis = layout.find("T")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            assert len(inputs.list_outputs()) == 1, \
                "unroll doesn't allow grouped symbol as input. Please convert to list with " \
                "list(inputs) first or let unroll handle splitting."
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length,
                                       squeeze_axis=1))
    else:
        assert length is None or len(inputs) == length
        if merge is True:
            steps = [symbol.expand_dims(step, axis=axis) for step in inputs]
            inputs = symbol.Concat(*steps, dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


def cells_state_info(cells: Sequence["BaseRNNCell"]) -> list:
    """The ``state_info`` entries of several cells, in order."""
    return sum([cell.state_info for cell in cells], [])


def cells_begin_state(cells: Sequence["BaseRNNCell"], **kwargs) -> list:
    """The begin states of several cells, in order."""
    return sum([cell.begin_state(**kwargs) for cell in cells], [])


def cells_unpack_weights(cells: Sequence["BaseRNNCell"], args: dict) -> dict:
    """Apply each cell's :meth:`BaseRNNCell.unpack_weights` in turn."""
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def cells_pack_weights(cells: Sequence["BaseRNNCell"], args: dict) -> dict:
    """Apply each cell's :meth:`BaseRNNCell.pack_weights` in turn."""
    for cell in cells:
        args = cell.pack_weights(args)
    return args


class RNNParams:
    """Variables of RNN cells, created once by name so that cells can share them.

    Parameters
    ----------
    prefix : str, default ''
        Prepended to the name of every variable made here.
    """

    def __init__(self, prefix: str = "") -> None:
        self._prefix = prefix
        self._params: Dict[str, symbol.Symbol] = {}

    def get(self, name: str, **kwargs) -> symbol.Symbol:
        """The variable ``prefix + name``, created on first use.

        Parameters
        ----------
        name : str
            Name without the prefix.
        **kwargs
            Passed to :func:`gluonlite.symbol.Variable` when the variable is created
            (``init``, ``shape``, ``lr_mult``, ...).

        Returns
        -------
        Symbol
        """
        full_name = self._prefix + name
        if full_name not in self._params:
            self._params[full_name] = symbol.Variable(full_name, **kwargs)
        return self._params[full_name]


class BaseRNNCell:
    """Abstract symbolic RNN cell.

    Parameters
    ----------
    prefix : str, default ''
        Prefix of node names (and of weight names when ``params`` is None).
    params : RNNParams, optional
        Shared variables; a new container with ``prefix`` when None.
    """

    def __init__(self, prefix: str = "", params: Optional[RNNParams] = None) -> None:
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self) -> None:
        """Restart the step counters (and those of child cells) before building a new
        graph with this cell."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs: symbol.Symbol, states: list) -> Tuple[symbol.Symbol, list]:
        """One time step.

        Parameters
        ----------
        inputs : Symbol
            This step's input, ``(batch, features)``.
        states : list of Symbol
            States from the previous step or from :meth:`begin_state`.

        Returns
        -------
        (Symbol, list of Symbol)
            The step's output and the next states.
        """
        raise NotImplementedError()

    @property
    def params(self) -> RNNParams:
        """The variables of this cell.  Reading them marks the container as shared
        (as MXNet does)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self) -> list:
        """Per state, a dict with ``shape`` (0 = unknown batch) and ``__layout__``."""
        raise NotImplementedError()

    @property
    def state_shape(self) -> list:
        """The shapes of the states."""
        return [info["shape"] for info in self.state_info]

    @property
    def _gate_names(self):
        """Suffixes of the gates packed in the i2h/h2h weights (empty: nothing to pack)."""
        return ()

    def begin_state(self, func: Callable = symbol.zeros, **kwargs) -> list:
        """Initial states, named ``{prefix}begin_state_{i}``.

        Parameters
        ----------
        func : callable, default symbol.zeros
            Makes each state from ``name=``, the state's ``shape``/``__layout__`` and
            ``kwargs`` (``symbol.zeros``, ``symbol.Variable``, ``symbol.uniform``, ...).
        **kwargs
            More arguments of ``func``.

        Returns
        -------
        list of Symbol
        """
        assert not self._modified, \
            "After applying modifier cells (e.g. DropoutCell) the base cell cannot be " \
            "called directly. Call the modifier cell instead."
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter),
                               **kwargs))
        return states

    def unpack_weights(self, args: dict) -> dict:
        """Split the stacked gate weights into one array per gate.

        ``{prefix}i2h_weight`` of an LSTM becomes ``{prefix}i2h_i_weight``,
        ``{prefix}i2h_f_weight``, ``{prefix}i2h_c_weight``, ``{prefix}i2h_o_weight``,
        and the same for the biases and for ``h2h``.

        Parameters
        ----------
        args : dict of str to NDArray
            Parameters, e.g. ``Module.get_params()[0]``.

        Returns
        -------
        dict of str to NDArray
            A new dict with this cell's weights unpacked.
        """
        args = args.copy()
        if not self._gate_names:
            return args
        hidden = self._num_hidden
        for group in ("i2h", "h2h"):
            weight = args.pop("%s%s_weight" % (self._prefix, group))
            bias = args.pop("%s%s_bias" % (self._prefix, group))
            for j, gate in enumerate(self._gate_names):
                rows = slice(j * hidden, (j + 1) * hidden)
                args["%s%s%s_weight" % (self._prefix, group, gate)] = weight[rows].copy()
                args["%s%s%s_bias" % (self._prefix, group, gate)] = bias[rows].copy()
        return args

    def pack_weights(self, args: dict) -> dict:
        """The inverse of :meth:`unpack_weights`: stack the per-gate arrays.

        Parameters
        ----------
        args : dict of str to NDArray
            Parameters with per-gate arrays.

        Returns
        -------
        dict of str to NDArray
            A new dict with this cell's weights packed.
        """
        args = args.copy()
        if not self._gate_names:
            return args
        for group in ("i2h", "h2h"):
            weights = [args.pop("%s%s%s_weight" % (self._prefix, group, gate))
                       for gate in self._gate_names]
            biases = [args.pop("%s%s%s_bias" % (self._prefix, group, gate))
                      for gate in self._gate_names]
            args["%s%s_weight" % (self._prefix, group)] = ndarray.concatenate(weights)
            args["%s%s_bias" % (self._prefix, group)] = ndarray.concatenate(biases)
        return args

    def unroll(self, length: int, inputs, begin_state: Optional[list] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[SymbolOrList, list]:
        """Build ``length`` steps of the cell.

        Parameters
        ----------
        length : int
            Number of steps.
        inputs : Symbol or list of Symbol
            One symbol of shape ``(batch, length, ...)`` (``'NTC'``) or
            ``(length, batch, ...)`` (``'TNC'``), or one ``(batch, ...)`` symbol per step.
        begin_state : list of Symbol, optional
            Initial states; :meth:`begin_state` when None.
        layout : str, default 'NTC'
            Layout of a merged ``inputs`` and of merged outputs.
        merge_outputs : bool, optional
            True: one symbol for all outputs; False: a list; None: whichever is natural.

        Returns
        -------
        (Symbol or list of Symbol, list of Symbol)
            The outputs and the last states.
        """
        self.reset()
        inputs, _ = normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        states = begin_state
        outputs = []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
        outputs, _ = normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs: symbol.Symbol, activation, **kwargs) -> symbol.Symbol:
        """``Activation(act_type=activation)`` for a string, else ``activation(inputs)``."""
        if isinstance(activation, string_types):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)
