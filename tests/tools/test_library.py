"""``mx.library.load``: MXNet's path checks and errors; extension libraries cannot run
on gluonlite and raise ``MXNetError`` saying so."""
import os
import sys

import pytest

import gluonlite as mx
from gluonlite import library
from gluonlite.base import MXNetError


def test_missing_relative_and_non_library_paths_raise_as_mxnet(tmp_path, monkeypatch):
    with pytest.raises(MXNetError, match="load path .*none.so does NOT exist"):
        library.load(str(tmp_path / "none.so"))
    (tmp_path / "rel.so").write_bytes(b"\x7fELF")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MXNetError, match="load path rel.so is not an absolute path"):
        library.load("rel.so")
    (tmp_path / "lib.txt").write_text("x")
    with pytest.raises(MXNetError, match="is NOT a library file"):
        library.load(str(tmp_path / "lib.txt"))


def test_a_file_that_is_no_shared_library(tmp_path):
    for content in (b"junk\n", b""):
        (tmp_path / "junk.so").write_bytes(content)
        with pytest.raises(MXNetError, match="Error loading library"):
            library.load(str(tmp_path / "junk.so"))


def _head(path, size=4096):
    with open(path, "rb") as f:
        return f.read(size)


def test_a_shared_library_that_is_no_mxnet_extension(tmp_path):
    src = os.path.realpath(sys.executable)
    (tmp_path / "plain.so").write_bytes(_head(src) + b"\0" * 8)
    with pytest.raises(MXNetError, match="_opVersion.*not an MXNet extension"):
        library.load(str(tmp_path / "plain.so"))


def test_an_mxnet_extension_library_is_refused_clearly(tmp_path):
    # the entry points every lib_api.h library exports, in an ELF file
    (tmp_path / "libcustomop_lib.so").write_bytes(
        b"\x7fELF" + b"\0" * 60 + b"_opVersion\0initialize\0_opRegSize\0")
    with pytest.raises(MXNetError, match="extension library.*cannot load it.*CustomOp"):
        library.load(str(tmp_path / "libcustomop_lib.so"), verbose=False)


def test_module_paths():
    mx.install_mxnet_alias()
    import importlib
    assert importlib.import_module("mxnet.library") is library
    for name in ("im2rec", "parse_log", "diagnose"):
        module = importlib.import_module(f"mxnet.tools.{name}")
        assert module is importlib.import_module(f"gluonlite.tools.{name}")
        assert callable(module.main)
    im2rec = importlib.import_module("mxnet.tools.im2rec")
    for name in ("list_image", "write_list", "make_list", "read_list", "image_encode",
                 "read_worker", "write_worker", "parse_args"):
        assert callable(getattr(im2rec, name)), name


def test_library_is_a_top_level_name():
    # MXNet's __init__ imports it: ``mx.library.load`` works without an import
    assert mx.library is library
