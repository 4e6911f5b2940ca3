"""Channel-last layouts (``NWC``, ``NHWC``, ``NDHWC``) for operators written for
channel-first data (``Convolution``, ``Deconvolution``, ``Pooling``).

MXNet runs these layouts on the CPU too.  Here the channel axis of the moved inputs
(data, and the weight, whose channel-last form ``(lead, *kernel, per_group)`` becomes
``(lead, per_group, *kernel)``) goes to position 1, the channel-first implementation
runs with the channel-first layout, and the outputs' channel axis goes back to the
end.  Backward and shape inference are wrapped the same way.  The transposes cost
one copy per moved array; channel-first calls go straight to the original functions.
"""
from __future__ import annotations

import copy

from .common import fail, put
from .registry import OpDef


def _is_last(attrs) -> bool:
    layout = getattr(attrs, "layout", None)
    return bool(layout) and len(layout) >= 3 and layout[-1] == "C" and layout[1] != "C"


def _first_attrs(attrs):
    first = copy.copy(attrs)
    first.layout = "NC" + attrs.layout[1:-1]
    return first


def _to_first(xp, a):
    return None if a is None else xp.ascontiguousarray(xp.moveaxis(a, -1, 1))


def _to_last(xp, a):
    return None if a is None else xp.ascontiguousarray(xp.moveaxis(a, 1, -1))


def _check_rank(op: str, attrs, shape) -> None:
    """A channel-last layout names every axis: its length must be the data's rank."""
    if shape is not None and len(shape) != len(attrs.layout):
        fail(op, f"layout {attrs.layout} does not match {len(shape)}-D data", shape)


def _shape_first(s):
    return s if s is None or len(s) < 3 else (s[0], s[-1]) + tuple(s[1:-1])


def _shape_last(s):
    return s if s is None or len(s) < 3 else (s[0],) + tuple(s[2:]) + (s[1],)


def support_channel_last(op: OpDef, moved_inputs: tuple = (0,)) -> OpDef:
    """Wrap ``op``'s forward, backward and shape inference so that a channel-last
    ``layout`` attribute works; ``moved_inputs`` are the inputs whose channel axis
    is last in that layout (all outputs are moved back)."""
    forward, backward, infer_shape = op.forward, op.backward, op._infer_shape

    def forward_any(oc, attrs, inputs, out, **kwargs):
        # ``kwargs``: ``keep_state`` for operators declaring ``saved_state``
        if not _is_last(attrs):
            return forward(oc, attrs, inputs, out, **kwargs)
        _check_rank(op.name, attrs, inputs[0].shape)
        xp = oc.xp
        ins = [_to_first(xp, a) if i in moved_inputs else a for i, a in enumerate(inputs)]
        res = forward(oc, _first_attrs(attrs), ins, None, **kwargs)
        if kwargs.get("keep_state"):  # the state is the channel-first call's: backward
            res, state = res          # hands it to that call again
            return [put(out, i, _to_last(xp, r)) for i, r in enumerate(res)], state
        return [put(out, i, _to_last(xp, r)) for i, r in enumerate(res)]

    def backward_any(oc, attrs, inputs, outputs, out_grads, **kwargs):
        if not _is_last(attrs):
            return backward(oc, attrs, inputs, outputs, out_grads, **kwargs)
        xp = oc.xp
        ins = [_to_first(xp, a) if i in moved_inputs else a for i, a in enumerate(inputs)]
        outs = [_to_first(xp, o) for o in outputs] if outputs is not None else outputs
        grads = backward(oc, _first_attrs(attrs), ins, outs,
                         [_to_first(xp, g) for g in out_grads], **kwargs)
        return [_to_last(xp, g) if i in moved_inputs else g for i, g in enumerate(grads)]

    def infer_shape_any(attrs, in_shapes, *known_outs):
        # ``known_outs``: the output shapes, for operators declaring infer_shape_outputs
        if not _is_last(attrs):
            return infer_shape(attrs, in_shapes, *known_outs)
        _check_rank(op.name, attrs, in_shapes[0])
        shapes = [_shape_first(s) if i in moved_inputs else s for i, s in enumerate(in_shapes)]
        known_outs = [[_shape_first(s) for s in outs] for outs in known_outs]
        ins, outs = infer_shape(_first_attrs(attrs), shapes, *known_outs)
        return ([_shape_last(s) if i in moved_inputs else s for i, s in enumerate(ins)],
                [_shape_last(s) for s in outs])

    op.forward = forward_any
    if backward is not None:
        op.backward = backward_any
    op._infer_shape = infer_shape_any
    return op
