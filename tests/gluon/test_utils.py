"""``mx.gluon.utils`` against MXNet 1.9.1 behaviour (values read off the oracle)."""
import hashlib
import io
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.gluon import utils


def test_split_data_even_and_uneven():
    x = mx.nd.arange(12).reshape(6, 2)
    assert [a.shape for a in utils.split_data(x, 2)] == [(3, 2), (3, 2)]
    parts = utils.split_data(x[:5], 3, even_split=False)
    assert [a.asnumpy().tolist() for a in parts] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]],
                                                     [[8, 9]]]
    assert [a.shape for a in utils.split_data(x[:5], 6, even_split=False)] == \
        [(1, 2)] * 5 + [(0, 2)]
    assert [a.shape for a in utils.split_data(mx.nd.zeros((2, 7)), 3, batch_axis=1,
                                              even_split=False)] == [(2, 3), (2, 2), (2, 2)]
    with pytest.raises(ValueError, match="cannot be evenly split into 4 slices"):
        utils.split_data(x, 4)


def test_split_and_load_places_parts_on_contexts():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    parts = utils.split_and_load(x, [mx.cpu(0), mx.cpu(1)], even_split=False)
    assert [p.context for p in parts] == [mx.cpu(0), mx.cpu(1)]
    assert [p.shape for p in parts] == [(3, 2), (2, 2)]
    assert isinstance(utils.split_and_load(x, [mx.cpu(0)])[0], mx.nd.NDArray)


def test_clip_global_norm():
    a, b = mx.nd.ones((2, 2)), mx.nd.ones((3,)) * 2
    norm = utils.clip_global_norm([a, b], 1.0)
    assert norm == pytest.approx(4.0)
    np.testing.assert_allclose(a.asnumpy(), 0.25, rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), 0.5, rtol=1e-6)
    c = mx.nd.ones((2, 2))
    total = utils.clip_global_norm([c], 10.0, check_isfinite=False)
    assert isinstance(total, mx.nd.NDArray) and total.asscalar() == pytest.approx(2.0)
    np.testing.assert_array_equal(c.asnumpy(), 1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert utils.clip_global_norm([mx.nd.array([np.inf])], 1.0) == np.inf
    assert "nan or inf is detected" in str(caught[0].message)


def test_sha1_and_existing_download_is_kept(tmp_path):
    f = tmp_path / "w.bin"
    f.write_bytes(b"weights")
    digest = hashlib.sha1(b"weights").hexdigest()
    assert utils.check_sha1(str(f), digest) and not utils.check_sha1(str(f), "0" * 40)
    # present with the right hash: no network access happens
    assert utils.download("http://example.invalid/w.bin", path=str(f),
                          sha1_hash=digest) == str(f)


def test_download_goes_through_requests_where_installed(tmp_path, monkeypatch):
    # MXNet's download uses requests.get, and client tests (MXNet's test_gluon_utils)
    # mock it; the file appears whole, once, and a failed status is retried then raised
    requests = pytest.importorskip("requests")
    calls = []

    def fake_get(url, stream, verify):
        calls.append((url, stream, verify))
        response = requests.Response()
        response.status_code = 200
        response.raw = io.BytesIO(b"MOCK CONTENT" * 100)
        return response

    monkeypatch.setattr(requests, "get", fake_get)
    target = tmp_path / "README.md"
    assert utils.download("https://example.invalid/README.md", path=str(target),
                          verify_ssl=False) == str(target)
    assert target.read_bytes() == b"MOCK CONTENT" * 100
    assert calls == [("https://example.invalid/README.md", True, False)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]

    def not_found(url, stream, verify):
        response = requests.Response()
        response.status_code = 404
        return response

    monkeypatch.setattr(requests, "get", not_found)
    with pytest.raises(mx.base.MXNetError, match="after 2 tries.*Failed downloading"):
        utils.download("https://example.invalid/x.bin", path=str(tmp_path / "x.bin"),
                       retries=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]


def test_names_mxnet_exposes():
    assert utils.shape_is_known((2, 3)) and not utils.shape_is_known((2, 0))
    assert utils.HookHandle is mx.gluon.block.HookHandle


def test_repo_urls(monkeypatch):
    from gluonlite.gluon import utils
    monkeypatch.delenv("MXNET_GLUON_REPO", raising=False)
    assert utils._get_repo_url().endswith(".amazonaws.com/")
    monkeypatch.setenv("MXNET_GLUON_REPO", "https://mirror.example/gluon")
    assert utils._get_repo_url() == "https://mirror.example/gluon/"
    assert utils._get_repo_file_url("gluon/models", "x.zip") == \
        "https://mirror.example/gluon/gluon/models/x.zip"
