"""``mx.profiler`` with Python custom operators and NDArray arithmetic: needs the changes in
/tmp/helper_runtime_extra.diff (operator.py runs CustomOps in
``profiler.custom_operator_scope``; nd.zeros/ones/full and ``x + 1`` report to the profiler)."""
import json

import pytest

import gluonlite as mx
from gluonlite import profiler


class _AddOne(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] + 1)
        mx.nd.zeros((3, 3))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * 1)


@mx.operator.register("GlProfAddOne")
class _AddOneProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return [in_shape[0]], [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _AddOne()


@pytest.fixture
def prof(tmp_path):
    profiler.set_config(profile_all=True, aggregate_stats=True,
                        filename=str(tmp_path / "profile.json"))
    profiler.set_state("run")
    profiler.dumps(reset=True)
    yield
    profiler.dump(finished=True)
    profiler.dumps(reset=True)
    profiler.set_config(profile_all=False, aggregate_stats=False, filename="profile.json")


def _time():
    return json.loads(profiler.dumps(format="json"))["Time"]


def test_creation_and_scalar_arithmetic_are_counted(prof):
    x = mx.nd.zeros((100, 100))
    x = x + 1
    x += 1
    ops = _time()["operator"]
    assert ops["_zeros"]["Count"] == 1
    assert ops["_plus_scalar"]["Count"] == 2


@pytest.mark.parametrize("mode", ["imperative", "symbolic"])
def test_custom_operator_domain(prof, mode):
    x = mx.nd.ones((4,))
    if mode == "imperative":
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Custom(x, op_type="GlProfAddOne")
        y.backward()
    else:
        exe = mx.sym.Custom(data=mx.sym.var("a"), op_type="GlProfAddOne").bind(
            mx.cpu(), {"a": x})
        exe.forward()
    time = _time()
    custom = time["Custom Operator"]
    assert custom["GlProfAddOne::pure_python"]["Count"] == 1
    assert "GlProfAddOne::_plus_scalar" in custom and "GlProfAddOne::_zeros" in custom
    if mode == "imperative":
        assert custom["_backward_GlProfAddOne::pure_python"]["Count"] == 1
        assert "_backward_GlProfAddOne::_mul_scalar" in custom
    # the enclosing operator call is the custom operator's code: not counted twice
    assert "Custom" not in time.get("operator", {})
    assert "_backward_Custom" not in time.get("operator", {})
