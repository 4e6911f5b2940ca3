"""Files are written to a temporary name, then renamed: a write that fails half way
leaves the previous file as it was and no temporary behind (``nd.save``,
``Symbol.save``, checkpoints and optimizer states all go through
``base.write_atomically``)."""
import os

import pytest

import gluonlite as mx
from gluonlite import base


def _failing_replace(src, dst):
    raise OSError("disk full")


@pytest.mark.parametrize("what", ["nd.save", "Symbol.save", "save_checkpoint"])
def test_failed_write_keeps_the_old_file(what, tmp_path, monkeypatch):
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    args = {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.zeros((2,))}
    path = str(tmp_path / "out")
    write = {"nd.save": lambda: mx.nd.save(path, args),
             "Symbol.save": lambda: sym.save(path),
             "save_checkpoint": lambda: mx.model.save_checkpoint(path, 1, sym, args, {})}[what]
    write()
    before = {name: open(tmp_path / name, "rb").read() for name in os.listdir(tmp_path)}
    args["fc_weight"] = mx.nd.zeros((2, 3))
    monkeypatch.setattr(base.os, "replace", _failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write()
    after = {name: open(tmp_path / name, "rb").read() for name in os.listdir(tmp_path)}
    assert after == before  # old files intact, no temporary left


def test_next_save_removes_temporaries_of_dead_writers_only(tmp_path):
    path = str(tmp_path / "arrays.nd")
    dead = f"{path}.tmp{2 ** 22 + 1}"  # above Linux's pid_max: no such process
    live = f"{path}.tmp{os.getppid()}"  # a running process (pytest's parent) may be writing
    other = str(tmp_path / "other.nd.tmp1")  # another file's temporary
    for leftover in (dead, live, other):
        open(leftover, "wb").close()
    mx.nd.save(path, [mx.nd.ones((2,))])
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["arrays.nd", os.path.basename(live), "other.nd.tmp1"])
    assert base.stale_temporaries(path) == []
