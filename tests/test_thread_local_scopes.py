"""Scopes are per thread, as in MXNet: ``AttrScope``/``NameManager`` (also when set with
``Cls.current = ...``) and ``np_array`` scopes; ``set_np`` stays process-wide."""
import threading

import gluonlite as mx
from gluonlite.attribute import AttrScope
from gluonlite.name import NameManager
from gluonlite.util import _NumpyArrayScope


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_assigning_current_sets_this_threads_scope():
    old_attr, old_name = AttrScope.current, NameManager.current
    try:
        AttrScope.current = AttrScope(x="main")
        NameManager.current = NameManager()
        NameManager.current.get(None, "main_thread")
        assert AttrScope.current._attr == {"x": "main"}
        assert "main_thread" in NameManager.current._counter
        # another thread still has its own (fresh) scopes
        assert _in_thread(lambda: AttrScope.current._attr) == {}
        assert _in_thread(lambda: "main_thread" in NameManager.current._counter) is False
        with AttrScope(y="in"):
            assert AttrScope.current._attr == {"x": "main", "y": "in"}
        assert AttrScope.current._attr == {"x": "main"}
    finally:
        AttrScope.current, NameManager.current = old_attr, old_name


def test_np_array_scope_is_thread_local():
    assert not mx.is_np_array()
    with mx.np_array(True):
        assert mx.is_np_array()
        assert _in_thread(mx.is_np_array) is False
        assert isinstance(_NumpyArrayScope._current.value, _NumpyArrayScope)
    assert not mx.is_np_array()


def test_set_np_is_process_wide_and_scopes_override_it():
    try:
        mx.npx.set_np()
        assert _in_thread(mx.is_np_array) is True   # e.g. data-loader threads
        with mx.np_array(False):
            assert not mx.is_np_array()
            assert _in_thread(mx.is_np_array) is True
        assert mx.is_np_array()
    finally:
        mx.npx.reset_np()
    assert not mx.is_np_array()


def test_set_np_inside_a_scope_changes_that_scope():
    with mx.np_array(False):
        mx.util.set_np(shape=True, array=True)
        assert mx.is_np_array()
        mx.util.reset_np()
        assert not mx.is_np_array()


def test_use_np_decorator_scope():
    @mx.util.use_np
    def inner():
        return mx.is_np_array(), mx.is_np_shape()

    assert inner() == (True, True)
    assert not mx.is_np_array() and not mx.is_np_shape()
