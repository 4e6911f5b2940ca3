"""``Block.summary``: MXNet 1.9's table of layers, output shapes and parameter counts.

Every descendant (containers ``Sequential``/``HybridSequential`` excepted) gets a
forward hook; one imperative forward fills a row per call, in call order, numbered
``<Class>-<n>``.  A row counts the block's own parameters (``block.params``);
parameters met again are "shared".
"""
from __future__ import annotations

from collections import OrderedDict

from .parameter import _AssertionError

__all__ = ["summary"]

_LINE = "{:>20}  {:>42} {:>15}"


def _shape_str(value) -> str:
    """Shapes of a (nested) structure of arrays, as MXNet prints them."""
    def shapes(v):
        if isinstance(v, (list, tuple)):
            return [shapes(i) for i in v]
        return v.shape if hasattr(v, "shape") else v
    out = shapes(value)
    text = str(out)[1:-1] if isinstance(out, list) else str(out)
    return text.replace("L", "")


def _is_container(block) -> bool:
    try:
        from .nn import HybridSequential, Sequential
    except ImportError:  # the nn package may not be there
        return False
    return isinstance(block, (Sequential, HybridSequential))


def summary(block, *inputs) -> None:
    """Print the summary table of ``block`` run on ``inputs`` (see module docstring)."""
    from .hybrid_block import HybridBlock
    rows = OrderedDict()
    rows["Input"] = dict(output_shape=_shape_str(list(inputs)), n_params=0, trainable=0,
                         shared=0)
    seen = set()
    hooks = []

    def hook(blk, _, outputs):
        key = f"{blk.__class__.__name__}-{len(rows)}"
        row = dict(output_shape=_shape_str(outputs), n_params=0, trainable=0, shared=0)
        for p in blk.params.values():
            size = p.data().size
            row["n_params"] += size
            row["trainable"] += 0 if p.grad_req == "null" else size
            if p in seen:
                row["shared"] += size
            else:
                seen.add(p)
        rows[key] = row

    def register(blk):
        if isinstance(blk, HybridBlock) and blk._active:
            raise _AssertionError(f'"{blk.name}" must not be hybridized to print summary.')
        if not _is_container(blk):
            hooks.append(blk.register_forward_hook(hook))

    try:
        block.apply(register)
        block(*inputs)
        lines = ["-" * 80, _LINE.format("Layer (type)", "Output Shape", "Param #"), "=" * 80]
        total = trainable = shared = 0
        for name, row in rows.items():
            lines.append(_LINE.format(name, str(row["output_shape"]), row["n_params"]))
            total += row["n_params"]
            trainable += row["trainable"]
            shared += row["shared"]
        lines += ["=" * 80,
                  "Parameters in forward computation graph, duplicate included",
                  f"   Total params: {total}",
                  f"   Trainable params: {trainable}",
                  f"   Non-trainable params: {total - trainable}",
                  f"Shared params in forward computation graph: {shared}",
                  f"Unique parameters in model: {total - shared}",
                  "-" * 80]
        print("\n".join(lines))
    finally:
        for h in hooks:
            h.detach()
