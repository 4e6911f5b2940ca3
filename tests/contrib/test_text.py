"""``mx.contrib.text`` (vocabularies, token embeddings from local files, token counting)
and ``gluon.contrib.data.text`` (WikiText from local files) against MXNet 1.9.1
(fixture ``contrib_text.json``, made by ``gen_contrib_text.py``)."""
import collections
import hashlib
import json
import os
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.contrib import text

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
import contrib_text_cases as cases  # noqa: E402

with open(os.path.join(FIXTURES, "contrib_text.json")) as _f:
    EXPECTED = json.load(_f)


# ---- utils ------------------------------------------------------------------------------
@pytest.mark.parametrize("td,sd", [(" ", "\n"), ("IS", "LIFE"), ("\\*", "\\|")])
def test_count_tokens_from_str(td, sd):
    raw = {"*": "*", "|": "|"}
    tdel, sdel = raw.get(td[-1], td), raw.get(sd[-1], sd)
    src = "".join(tdel + tdel.join(seq) + tdel + sdel for seq in
                  (["Life", "is", "great", "!"], ["life", "is", "good", "."]))
    assert text.utils.count_tokens_from_str(src, td, sd) == collections.Counter(
        {"Life": 1, "life": 1, "is": 2, "great": 1, "!": 1, "good": 1, ".": 1})
    assert text.utils.count_tokens_from_str(src, td, sd, to_lower=True) == \
        collections.Counter({"life": 2, "is": 2, "great": 1, "!": 1, "good": 1, ".": 1})
    base = collections.Counter({"life": 3})
    out = text.utils.count_tokens_from_str(src, td, sd, to_lower=True, counter_to_update=base)
    assert out is base and base["life"] == 5


# ---- vocabulary -------------------------------------------------------------------------
def test_vocabulary_orders_match_mxnet():
    assert cases.vocab_cases(mx) == EXPECTED["vocab"]


def test_vocabulary_api():
    v = text.vocab.Vocabulary(collections.Counter(["a", "b", "b", "c", "c", "c"]),
                              reserved_tokens=["<pad>"])
    assert v.idx_to_token == ["<unk>", "<pad>", "c", "b", "a"] and len(v) == 5
    assert v.token_to_idx["c"] == 2 and v.unknown_token == "<unk>"
    assert v.reserved_tokens == ["<pad>"]
    assert v.to_indices("b") == 3 and v.to_indices(["b"]) == [3]
    assert v.to_indices(["zz", "a"]) == [0, 4]
    assert v.to_tokens(4) == "a" and v.to_tokens([0, 2]) == ["<unk>", "c"]
    for bad in (5, 1.0, [1, 100]):
        with pytest.raises(ValueError):
            v.to_tokens(bad)
    # gluonlite extras
    assert "c" in v and "zz" not in v and list(v) == v.idx_to_token and v["a"] == 4
    empty = text.vocab.Vocabulary()
    assert empty.idx_to_token == ["<unk>"] and empty.reserved_tokens is None


@pytest.mark.parametrize("kwargs", [
    {"min_freq": 0}, {"reserved_tokens": ["<unk>"]}, {"reserved_tokens": ["a", "a"]},
    {"counter": {"a": 1}}])
def test_vocabulary_checks(kwargs):
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(**kwargs)


def test_vocabulary_non_string_tokens():
    v = text.vocab.Vocabulary(collections.Counter([3, 1, 1, (2, 2)][:3]), unknown_token=-1)
    assert v.idx_to_token == [-1, 1, 3] and v.to_indices([3, 7]) == [2, 0]


# ---- embeddings -------------------------------------------------------------------------
def test_custom_and_composite_embeddings_match_mxnet(tmp_path):
    got = cases.embedding_cases(mx, str(tmp_path))
    want = EXPECTED["embedding"]
    assert got.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, list) and value and isinstance(value[0], str):
            assert got[key] == value, key
        else:
            np.testing.assert_allclose(got[key], value, rtol=1e-6, err_msg=key)


def test_custom_embedding_api(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("a\t0.1\t0.2\nb\t1\t2\nc\t3\t4\n")
    emb = text.embedding.CustomEmbedding(str(path), "\t", init_unknown_vec=mx.nd.ones)
    assert isinstance(emb, text.embedding.TokenEmbedding)
    assert isinstance(emb, text.embedding._TokenEmbedding)
    assert len(emb) == 4 and emb.vec_len == 2 and emb.idx_to_vec.shape == (4, 2)
    assert emb.idx_to_vec.dtype == np.float32
    np.testing.assert_allclose(emb.get_vecs_by_tokens("zz").asnumpy(), [1, 1])
    np.testing.assert_allclose(emb["b"].asnumpy(), [1, 2])
    np.testing.assert_allclose(emb.get_vecs_by_tokens(["c", "a"]).asnumpy(),
                               [[3, 4], [0.1, 0.2]], rtol=1e-6)
    assert emb.get_vecs_by_tokens([]).shape == (0, 2)
    emb.update_token_vectors("a", mx.nd.array([7, 8]))
    emb.update_token_vectors(["b"], mx.nd.array([[5, 6]]))
    np.testing.assert_allclose(emb.idx_to_vec.asnumpy()[1:3], [[7, 8], [5, 6]])
    with pytest.raises(ValueError, match="zz is unknown"):
        emb.update_token_vectors("zz", mx.nd.array([1, 2]))
    with pytest.raises(AssertionError):
        emb.update_token_vectors(["a", "b"], mx.nd.array([1, 2]))
    with pytest.raises(AssertionError):
        emb.update_token_vectors("a", np.array([1.0, 2.0]))
    with pytest.raises(AssertionError):
        emb.update_token_vectors(["a", "b"], mx.nd.ones((2, 3)))


def test_custom_embedding_reserved_tokens_get_init_vector(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("a 1 2\n<pad> 3 4\nb 5 6\n")
    emb = text.embedding.CustomEmbedding(str(path), reserved_tokens=["<pad>", "<s>"])
    assert emb.idx_to_token == ["<unk>", "<pad>", "<s>", "a", "b"]
    np.testing.assert_allclose(emb.idx_to_vec.asnumpy(),
                               [[0, 0], [3, 4], [0, 0], [1, 2], [5, 6]])


@pytest.mark.parametrize("content", ["a 1 2\nb\n", "a 1 2\nb 1 2 3\n"])
def test_custom_embedding_bad_files(tmp_path, content):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(AssertionError):
        text.embedding.CustomEmbedding(str(path))


def test_custom_embedding_missing_file_and_encoding(tmp_path):
    with pytest.raises(ValueError, match="valid path"):
        text.embedding.CustomEmbedding(str(tmp_path / "none.txt"))
    path = tmp_path / "latin.txt"
    path.write_bytes("caf\xe9 1 2\n".encode("latin-1"))
    emb = text.embedding.CustomEmbedding(str(path), encoding="latin-1")
    assert emb.idx_to_token == ["<unk>", "caf\xe9"]


def test_duplicate_and_header_lines_warn(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("3 2\na 1 2\na 3 4\n")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        emb = text.embedding.CustomEmbedding(str(path))
    messages = " ".join(str(x.message) for x in w)
    assert "likely a header" in messages and "duplicate" in messages
    np.testing.assert_allclose(emb["a"].asnumpy(), [1, 2])


def test_pretrained_file_names():
    assert len(text.embedding.get_pretrained_file_names("glove")) == 10
    assert len(text.embedding.get_pretrained_file_names("fasttext")) == 327
    reg = text.embedding.get_pretrained_file_names()
    assert len(reg["glove"]) == 10 and len(reg["fasttext"]) == 327
    assert "glove.6B.50d.txt" in reg["glove"] and "wiki.simple.vec" in reg["fasttext"]
    with pytest.raises(KeyError):
        text.embedding.get_pretrained_file_names("unknown$$")
    with pytest.raises(KeyError, match="Cannot find pretrained file"):
        text.embedding.GloVe("glove.nope.txt")


def test_pretrained_missing_file_names_path_and_url(tmp_path, monkeypatch):
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError) as err:
        text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt")
    assert isinstance(err.value, mx.MXNetError)
    msg = str(err.value)
    assert os.path.join(str(tmp_path), "embeddings", "glove", "glove.6B.50d.txt") in msg
    assert "gluon/embeddings/glove/glove.6B.zip" in msg and "does not download" in msg
    with pytest.raises(FileNotFoundError, match="wiki.simple.zip"):
        text.embedding.FastText(embedding_root=str(tmp_path / "r"))


def _register_local_embedding(tmp_path, content):
    data = content.encode()
    sha1 = hashlib.sha1(data).hexdigest()

    class LocalTestEmbed(text.embedding.TokenEmbedding):
        pretrained_file_name_sha1 = {"local.vec": sha1}

        def __init__(self, embedding_root=None, init_unknown_vec=mx.nd.zeros, **kwargs):
            LocalTestEmbed._check_pretrained_file_names("local.vec")
            super().__init__(**kwargs)
            path = LocalTestEmbed._get_pretrained_file(embedding_root, "local.vec")
            self._load_embedding(path, " ", init_unknown_vec)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # re-registering the name across tests warns
        text.embedding.register(LocalTestEmbed)
    return data


def test_registered_embedding_reads_checked_local_file(tmp_path):
    data = _register_local_embedding(tmp_path, "hello 1 2 3 4 5\nworld 6 7 8 9 10\n")
    folder = tmp_path / "localtestembed"
    folder.mkdir()
    (folder / "local.vec").write_bytes(data)
    emb = text.embedding.create("localtestembed", embedding_root=str(tmp_path))
    assert emb.token_to_idx == {"<unk>": 0, "hello": 1, "world": 2}
    np.testing.assert_allclose(emb.idx_to_vec.asnumpy()[2], [6, 7, 8, 9, 10])
    (folder / "local.vec").write_bytes(data + b"x 1 2 3 4 5\n")
    with pytest.raises(mx.MXNetError, match="SHA-1"):
        text.embedding.create("localtestembed", embedding_root=str(tmp_path))


def test_glove_unpacks_a_local_archive(tmp_path, monkeypatch):
    content = b"the 1 2\nof 3 4\n"
    name = "glove.6B.50d.txt"
    monkeypatch.setitem(text.embedding.GloVe.pretrained_file_name_sha1, name,
                        hashlib.sha1(content).hexdigest())
    folder = tmp_path / "glove"
    folder.mkdir()
    with zipfile.ZipFile(folder / "glove.6B.zip", "w") as zf:
        zf.writestr(name, content)
    vocab = text.vocab.Vocabulary(collections.Counter(["of", "zz"]))
    emb = text.embedding.GloVe(name, embedding_root=str(tmp_path), vocabulary=vocab)
    assert (folder / name).is_file()
    assert emb.idx_to_token == ["<unk>", "of", "zz"]
    np.testing.assert_allclose(emb.idx_to_vec.asnumpy(), [[0, 0], [3, 4], [0, 0]])


# ---- WikiText -------------------------------------------------------------------------
WIKI = " = Title = \n\n the cat sat . \n the dog sat on the cat . \n"


def test_wikitext2_reads_local_tokens(tmp_path):
    from gluonlite.gluon.contrib.data.text import WikiText2, WikiText103
    (tmp_path / "wiki.train.tokens").write_text(WIKI)
    ds = WikiText2(root=str(tmp_path), seq_len=4)
    vocab = ds.vocabulary
    assert vocab.reserved_tokens == ["<eos>"] and ds.frequencies["the"] == 3
    tokens = ["=", "Title", "=", "<eos>", "the", "cat", "sat", ".", "<eos>", "the", "dog",
              "sat", "on", "the", "cat", ".", "<eos>"]
    idx = vocab.to_indices(tokens)
    assert len(ds) == 4
    data, label = ds[1]
    assert data.dtype == np.int32 and data.shape == (4,)
    assert data.asnumpy().tolist() == idx[4:8] and label.asnumpy().tolist() == idx[5:9]
    # a given vocabulary is used as is (tokens are still counted); the zip alone is unpacked
    other = tmp_path / "w103"
    other.mkdir()
    with zipfile.ZipFile(other / "wikitext-103-v1.zip", "w") as zf:
        zf.writestr("wikitext-103/wiki.valid.tokens", WIKI)
    ds2 = WikiText103(root=str(other), segment="validation", vocab=vocab, seq_len=5)
    assert ds2.vocabulary is vocab and ds2.frequencies["the"] == 3 and len(ds2) == 3
    assert (other / "wiki.valid.tokens").is_file()


def test_wikitext_missing_file_error(tmp_path):
    from gluonlite.gluon.contrib.data.text import WikiText2
    with pytest.raises(FileNotFoundError) as err:
        WikiText2(root=str(tmp_path / "wt2"), segment="test")
    msg = str(err.value)
    assert isinstance(err.value, mx.MXNetError) and "wiki.test.tokens" in msg
    assert "wikitext-2-v1.zip" in msg and str(tmp_path / "wt2") in msg


# ---- import paths -----------------------------------------------------------------------
def test_mxnet_module_paths_import_under_the_alias():
    code = (
        "import gluonlite; gluonlite.install_mxnet_alias()\n"
        "import mxnet as mx\n"
        "import mxnet.contrib.text.vocab, mxnet.contrib.text.embedding\n"
        "import mxnet.contrib.text.utils, mxnet.contrib.text._constants\n"
        "import mxnet.gluon.contrib.estimator.estimator, mxnet.gluon.contrib.estimator.utils\n"
        "import mxnet.gluon.contrib.estimator.event_handler\n"
        "import mxnet.gluon.contrib.estimator.batch_processor\n"
        "import mxnet.gluon.contrib.data.text, mxnet.gluon.contrib.data._constants\n"
        "from mxnet.gluon.contrib.estimator import Estimator, CheckpointHandler, BatchEnd\n"
        "from mxnet.contrib.text.embedding import _TokenEmbedding, GloVe\n"
        "assert mx.contrib.text.vocab.Vocabulary is gluonlite.contrib.text.vocab.Vocabulary\n"
        "assert mx.gluon.contrib.data.text.WikiText2 and mx.gluon.contrib.estimator.Estimator\n"
        "print('ok')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"
