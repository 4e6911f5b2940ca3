"""The registry itself: attribute parsing and printing, aliases, errors."""
import numpy as np
import pytest

from gluonlite.base import MXNetError
from gluonlite.ops import registry
from gluonlite.ops.attrs import Attr, format_attr
from gluonlite.ops.registry import OpDef


def _toy():
    def forward(oc, attrs, inputs, out):
        return [inputs[0] * attrs.scale]
    return OpDef("_toy_op", forward, attrs={
        "kernel": Attr("shape"), "scale": Attr("float", 1.0), "flag": Attr("bool", False),
        "axis": Attr("int", None), "mode": Attr("str", "a", choices=("a", "b")),
        "dtype": Attr("dtype", None), "vals": Attr("floats", ())})


def test_parse_mxnet_strings():
    op = _toy()
    a = op.parse_attrs({"kernel": "(3, 3)", "scale": "0.5", "flag": "True", "axis": "None",
                        "mode": "b", "dtype": "float16", "vals": "(1, 2.5)"})
    assert a.kernel == (3, 3) and a.scale == 0.5 and a.flag is True and a.axis is None
    assert a.mode == "b" and a.dtype == np.float16 and a.vals == (1.0, 2.5)
    b = op.parse_attrs({"kernel": [2], "flag": 1, "axis": 3})
    assert b.kernel == (2,) and b.flag is True and b.axis == 3 and b.scale == 1.0
    assert op.parse_attrs({"kernel": "5"}).kernel == (5,)
    assert op.parse_attrs({"kernel": "(2,)", "flag": "false"}).flag is False


def test_parse_errors_name_the_operator():
    op = _toy()
    with pytest.raises(MXNetError, match="_toy_op.*required attribute 'kernel'"):
        op.parse_attrs({"scale": 2})
    with pytest.raises(MXNetError, match="_toy_op.*unknown attribute 'bogus'"):
        op.parse_attrs({"kernel": (1,), "bogus": 1})
    with pytest.raises(MXNetError, match="must be one of"):
        op.parse_attrs({"kernel": (1,), "mode": "c"})
    with pytest.raises(MXNetError, match="invalid value"):
        op.parse_attrs({"kernel": (1,), "scale": "abc"})
    with pytest.raises(MXNetError, match="cannot be None"):
        op.parse_attrs({"kernel": (1,), "scale": None})


def test_user_attributes_are_ignored():
    a = _toy().parse_attrs({"kernel": (1,), "__lr_mult__": "2"})
    assert a.kernel == (1,)


def test_given_attributes_print_like_mxnet():
    a = _toy().parse_attrs({"kernel": (3, 3), "flag": True, "scale": 1e-05, "dtype": "float32"})
    assert a.to_strings() == {"kernel": "(3, 3)", "flag": "True", "scale": "1e-05",
                              "dtype": "float32"}
    assert format_attr((2,)) == "(2,)" and format_attr(None) == "None"
    assert format_attr([1, 2]) == "[1, 2]" and format_attr(False) == "False"


def test_parse_cache_returns_same_object():
    op = _toy()
    assert op.parse_attrs({"kernel": (3, 3)}) is op.parse_attrs({"kernel": (3, 3)})


def test_unknown_operator():
    with pytest.raises(MXNetError, match="Cannot find operator 'NoSuchOp'"):
        registry.get_op("NoSuchOp")
    assert registry.find_op("NoSuchOp") is None


def test_aliases_resolve_to_one_definition():
    for op in registry.all_ops():
        for alias in op.aliases:
            assert registry.get_op(alias) is op


def test_every_operator_is_well_formed():
    for op in registry.all_ops():
        assert callable(op.forward), op.name
        assert op._infer_shape is not None, f"{op.name} has no shape inference"
        if op.differentiable:
            assert callable(op.backward), op.name
