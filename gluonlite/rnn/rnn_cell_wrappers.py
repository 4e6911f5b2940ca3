"""Cells that combine or modify other symbolic cells: ``SequentialRNNCell``,
``BidirectionalCell``, ``DropoutCell`` and the modifiers ``ZoneoutCell`` and
``ResidualCell`` (on ``ModifierCell``)."""
from __future__ import annotations

from typing import Optional, Tuple

from .. import symbol
from ..base import numeric_types
from .base_cell import (BaseRNNCell, RNNParams, SymbolOrList, cells_begin_state,
                        cells_pack_weights, cells_state_info, cells_unpack_weights,
                        normalize_sequence)

__all__ = ["SequentialRNNCell", "BidirectionalCell", "DropoutCell", "ModifierCell",
           "ZoneoutCell", "ResidualCell"]

_MODIFIED = ("After applying modifier cells (e.g. DropoutCell) the base cell cannot be "
             "called directly. Call the modifier cell instead.")


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells: each cell's output is the next cell's input.

    Parameters
    ----------
    params : RNNParams, optional
        Variables given to every added cell (which must then own theirs).
    """

    def __init__(self, params: Optional[RNNParams] = None) -> None:
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell: BaseRNNCell) -> None:
        """Append ``cell`` to the top of the stack.

        Parameters
        ----------
        cell : BaseRNNCell
        """
        self._cells.append(cell)
        if self._override_cell_params:
            assert cell._own_params, \
                "Either specify params for SequentialRNNCell or child cells, not both."
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self) -> list:
        return cells_state_info(self._cells)

    def begin_state(self, **kwargs) -> list:  # pylint: disable=arguments-differ
        """The begin states of every cell, bottom first (see
        :meth:`BaseRNNCell.begin_state`)."""
        assert not self._modified, _MODIFIED
        return cells_begin_state(self._cells, **kwargs)

    def unpack_weights(self, args: dict) -> dict:
        return cells_unpack_weights(self._cells, args)

    def pack_weights(self, args: dict) -> dict:
        return cells_pack_weights(self._cells, args)

    def __call__(self, inputs: symbol.Symbol, states: list) -> Tuple[symbol.Symbol, list]:
        self._counter += 1
        next_states = []
        pos = 0
        for cell in self._cells:
            assert not isinstance(cell, BidirectionalCell)
            count = len(cell.state_info)
            inputs, cell_states = cell(inputs, states[pos:pos + count])
            pos += count
            next_states.append(cell_states)
        return inputs, sum(next_states, [])

    def unroll(self, length: int, inputs, begin_state: Optional[list] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[SymbolOrList, list]:
        self.reset()
        if begin_state is None:
            begin_state = self.begin_state()
        pos = 0
        next_states = []
        last = len(self._cells) - 1
        for i, cell in enumerate(self._cells):
            count = len(cell.state_info)
            states = begin_state[pos:pos + count]
            pos += count
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states,
                                         layout=layout,
                                         merge_outputs=merge_outputs if i == last else None)
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the input, no state.

    Parameters
    ----------
    dropout : float
        Probability of dropping an element.
    prefix : str, default 'dropout_'
    params : RNNParams, optional
    """

    def __init__(self, dropout: float, prefix: str = "dropout_",
                 params: Optional[RNNParams] = None) -> None:
        super().__init__(prefix, params)
        assert isinstance(dropout, numeric_types), "dropout probability must be a number"
        self.dropout = dropout

    @property
    def state_info(self) -> list:
        return []

    def __call__(self, inputs: symbol.Symbol, states: list) -> Tuple[symbol.Symbol, list]:
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length: int, inputs, begin_state: Optional[list] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[SymbolOrList, list]:
        self.reset()
        inputs, _ = normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """Base of the cells that wrap one cell and change what it computes.  The
    wrapped cell must not be used directly afterwards.

    Parameters
    ----------
    base_cell : BaseRNNCell
    """

    def __init__(self, base_cell: BaseRNNCell) -> None:
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self) -> RNNParams:
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self) -> list:
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros,  # pylint: disable=arguments-differ
                    **kwargs) -> list:
        """The wrapped cell's begin states (see :meth:`BaseRNNCell.begin_state`)."""
        assert not self._modified, _MODIFIED
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(init_sym, **kwargs)
        self.base_cell._modified = True
        return begin

    def unpack_weights(self, args: dict) -> dict:
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args: dict) -> dict:
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError


class ZoneoutCell(ModifierCell):
    """Zoneout: in training, each output/state element keeps its previous value with
    the given probability.

    Parameters
    ----------
    base_cell : BaseRNNCell
        A cell that can be stepped (not fused, not bidirectional).
    zoneout_outputs : float, default 0
    zoneout_states : float, default 0
    """

    def __init__(self, base_cell: BaseRNNCell, zoneout_outputs: float = 0.,
                 zoneout_states: float = 0.) -> None:
        from .fused_cell import FusedRNNCell
        assert not isinstance(base_cell, FusedRNNCell), \
            "FusedRNNCell doesn't support zoneout. Please unfuse first."
        assert not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support zoneout since it doesn't support step. " \
            "Please add ZoneoutCell to the cells underneath instead."
        assert not isinstance(base_cell, SequentialRNNCell) or \
            not getattr(base_cell, "_bidirectional", False), \
            "Bidirectional SequentialRNNCell doesn't support zoneout. " \
            "Please add ZoneoutCell to the cells underneath instead."
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self) -> None:
        super().reset()
        self.prev_output = None

    def __call__(self, inputs: symbol.Symbol, states: list) -> Tuple[symbol.Symbol, list]:
        p_outputs, p_states = self.zoneout_outputs, self.zoneout_states
        next_output, next_states = self.base_cell(inputs, states)

        def keep_mask(p, like):
            return symbol.Dropout(symbol.ones_like(like), p=p)

        prev_output = self.prev_output if self.prev_output is not None \
            else symbol.zeros((0, 0))
        if p_outputs != 0.:
            output = symbol.where(keep_mask(p_outputs, next_output), next_output, prev_output)
        else:
            output = next_output
        if p_states != 0.:
            states = [symbol.where(keep_mask(p_states, new), new, old)
                      for new, old in zip(next_states, states)]
        else:
            states = next_states
        self.prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds the input to the wrapped cell's output (Wu et al. 2016); the sums are named
    ``{output name}_plus_residual``.

    Parameters
    ----------
    base_cell : BaseRNNCell
    """

    def __init__(self, base_cell: BaseRNNCell) -> None:
        super().__init__(base_cell)

    def __call__(self, inputs: symbol.Symbol, states: list) -> Tuple[symbol.Symbol, list]:
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name="%s_plus_residual" % output.name)
        return output, states

    def unroll(self, length: int, inputs, begin_state: Optional[list] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[SymbolOrList, list]:
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state,
                                                layout=layout, merge_outputs=merge_outputs)
        self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            outputs = symbol.elemwise_add(outputs, inputs,
                                          name="%s_plus_residual" % outputs.name)
        else:
            outputs = [symbol.elemwise_add(out, inp, name="%s_plus_residual" % out.name)
                       for out, inp in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(BaseRNNCell):
    """Runs one cell forward and one backward over the sequence and concatenates their
    outputs (``{output_prefix}t{i}``, or ``{output_prefix}out`` when merged).

    Parameters
    ----------
    l_cell : BaseRNNCell
        Forward cell.
    r_cell : BaseRNNCell
        Backward cell.
    params : RNNParams, optional
        Variables given to both cells (which must then own theirs).
    output_prefix : str, default 'bi_'
    """

    def __init__(self, l_cell: BaseRNNCell, r_cell: BaseRNNCell,
                 params: Optional[RNNParams] = None, output_prefix: str = "bi_") -> None:
        super().__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            assert l_cell._own_params and r_cell._own_params, \
                "Either specify params for BidirectionalCell or child cells, not both."
            l_cell.params._params.update(self.params._params)
            r_cell.params._params.update(self.params._params)
        self.params._params.update(l_cell.params._params)
        self.params._params.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args: dict) -> dict:
        return cells_unpack_weights(self._cells, args)

    def pack_weights(self, args: dict) -> dict:
        return cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    @property
    def state_info(self) -> list:
        return cells_state_info(self._cells)

    def begin_state(self, **kwargs) -> list:  # pylint: disable=arguments-differ
        """The begin states of the forward cell, then of the backward cell."""
        assert not self._modified, _MODIFIED
        return cells_begin_state(self._cells, **kwargs)

    def unroll(self, length: int, inputs, begin_state: Optional[list] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[SymbolOrList, list]:
        self.reset()
        inputs, axis = normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        l_cell, r_cell = self._cells
        n_left = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs,
                                            begin_state=begin_state[:n_left],
                                            layout=layout, merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)),
                                            begin_state=begin_state[n_left:],
                                            layout=layout, merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = (isinstance(l_outputs, symbol.Symbol)
                             and isinstance(r_outputs, symbol.Symbol))
            if not merge_outputs:
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(symbol.SliceChannel(l_outputs, axis=axis,
                                                         num_outputs=length, squeeze_axis=1))
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(symbol.SliceChannel(r_outputs, axis=axis,
                                                         num_outputs=length, squeeze_axis=1))
        if merge_outputs:
            l_outputs = [l_outputs]
            r_outputs = [symbol.reverse(r_outputs, axis=axis)]
        else:
            r_outputs = list(reversed(r_outputs))
        outputs = []
        for i, (l_out, r_out) in enumerate(zip(l_outputs, r_outputs)):
            name = ("%sout" % self._output_prefix if merge_outputs
                    else "%st%d" % (self._output_prefix, i))
            outputs.append(symbol.Concat(l_out, r_out, dim=1 + merge_outputs, name=name))
        if merge_outputs:
            outputs = outputs[0]
        return outputs, [l_states, r_states]
