"""What ``mx.viz.print_summary`` and ``plot_network`` show for an operator: the
``summary_params`` and ``plot_style`` traits of the layers MXNet's visualization
singles out (its parameter counts and box labels)."""
from __future__ import annotations


def _xs(values, default: str) -> str:
    """``(3, 3)`` -> ``"3x3"``; ``default`` for an attribute left at its empty default."""
    return "x".join(str(int(v)) for v in values) if values else default


def conv_params(attrs, in_channels: int, out_shape) -> int:
    count = in_channels * attrs.num_filter // attrs.num_group
    for k in attrs.kernel:
        count *= int(k)
    return count if attrs.no_bias else count + attrs.num_filter


def conv_style(name: str, attrs) -> tuple:
    return (f"Convolution\n{_xs(attrs.kernel, '')}/{_xs(attrs.stride, '1')}, "
            f"{attrs.num_filter}", "layer")


def fc_params(attrs, in_channels: int, out_shape) -> int:
    return (in_channels + (0 if attrs.no_bias else 1)) * attrs.num_hidden


def fc_style(name: str, attrs) -> tuple:
    return f"FullyConnected\n{attrs.num_hidden}", "layer"


def batchnorm_params(attrs, in_channels: int, out_shape) -> int:
    return int(out_shape[1]) * 2 if out_shape is not None else 0


def embedding_params(attrs, in_channels: int, out_shape) -> int:
    return attrs.input_dim * attrs.output_dim


def activation_style(name: str, attrs) -> tuple:
    return f"{name}\n{attrs.act_type}", "activation"


def pooling_style(name: str, attrs) -> tuple:
    return (f"Pooling\n{attrs.pool_type}, {_xs(attrs.kernel, '')}/{_xs(attrs.stride, '1')}",
            "pooling")


def family(kind: str):
    """A ``plot_style`` that labels the node with its operator name, in ``kind``'s colour."""
    def style(name: str, attrs) -> tuple:
        return name, kind
    return style
