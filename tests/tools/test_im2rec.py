"""``gluonlite.tools.im2rec``: MXNet's im2rec command line on Pillow and ``mx.recordio``;
lists, packing options, round trips through ``ImageRecordDataset`` and
``ImageRecordIter``, the command line in a subprocess, atomic writes."""
import os
import subprocess
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.tools import im2rec

from ._im2rec_util import make_tree, read_lst_lines, read_records, record_keys, save_image

pytest.importorskip("PIL")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "images"
    images = make_tree(str(root))
    return tmp_path, str(root), images


def _main(*argv):
    assert im2rec.main([str(a) for a in argv]) == 0


# -- lists ------------------------------------------------------------------------------
def test_recursive_list_labels_folders_in_walk_order(tree, capsys):
    tmp, root, _ = tree
    _main("--list", "--recursive", "--no-shuffle", tmp / "data", root)
    lines = read_lst_lines(str(tmp / "data.lst"))
    assert lines == [["0", "0.000000", "x.png"], ["1", "1.000000", "cls_a/a0.png"],
                     ["2", "1.000000", "cls_a/a1.png"], ["3", "2.000000", "cls_b/b0.jpg"],
                     ["4", "2.000000", "cls_b/b1.JPG"]]
    # the class table MXNet's tool prints after the walk
    assert capsys.readouterr().out.split("\n")[:3] == [". 0", "cls_a 1", "cls_b 2"]


def test_flat_list_and_extensions(tree):
    tmp, root, _ = tree
    _main("--list", tmp / "flat", root)
    assert read_lst_lines(str(tmp / "flat.lst")) == [["0", "0.000000", "x.png"]]
    _main("--list", "--recursive", "--no-shuffle", tmp / "jpg", root, "--exts", ".jpg")
    assert [line[2] for line in read_lst_lines(str(tmp / "jpg.lst"))] == [
        "cls_b/b0.jpg", "cls_b/b1.JPG"]


def test_shuffle_is_seeded_like_mxnets_tool(tree):
    tmp, root, _ = tree
    _main("--list", "--recursive", tmp / "a", root)
    _main("--list", "--recursive", tmp / "b", root)
    a, b = read_lst_lines(str(tmp / "a.lst")), read_lst_lines(str(tmp / "b.lst"))
    assert a == b and sorted(a) != a and sorted(a, key=lambda x: int(x[0])) == sorted(a)


def test_split_and_chunk_file_names(tree):
    tmp, root, _ = tree
    _main("--list", "--recursive", "--no-shuffle", "--train-ratio", "0.6", "--test-ratio",
          "0.2", tmp / "s", root)
    # chunk size 5: 1 test, 3 train, the rest validation
    assert [len(read_lst_lines(str(tmp / f"s_{part}.lst"))) for part in
            ("test", "train", "val")] == [1, 3, 1]
    _main("--list", "--recursive", "--chunks", "2", tmp / "c", root)
    assert sorted(p for p in os.listdir(tmp) if p.startswith("c_")) == ["c_0.lst", "c_1.lst"]
    assert not [p for p in os.listdir(tmp) if ".tmp" in p]


def test_read_list_skips_malformed_lines(tmp_path, capsys):
    path = tmp_path / "x.lst"
    path.write_text("0\t1.5\t2\ta.jpg\nbroken line\nx\t1\tb.jpg\n3\t4.000000\tc.png\n")
    assert list(im2rec.read_list(str(path))) == [[0, "a.jpg", 1.5, 2.0], [3, "c.png", 4.0]]
    out = capsys.readouterr().out
    assert "three parts" in out and "Parsing lst met error" in out


# -- packing ----------------------------------------------------------------------------
def test_pack_png_round_trips_pixels_labels_and_ids(tree):
    tmp, root, images = tree
    _main("--list", "--recursive", tmp / "data", root)
    _main("--encoding", ".png", tmp / "data", root)
    lst = {int(line[0]): (float(line[1]), line[2])
           for line in read_lst_lines(str(tmp / "data.lst"))}
    records = read_records(str(tmp / "data"))
    assert record_keys(str(tmp / "data")) == [int(line[0]) for line in
                                               read_lst_lines(str(tmp / "data.lst"))]
    for key, (header, payload) in records.items():
        label, rel = lst[key]
        assert (header.flag, header.label, header.id, header.id2) == (0, label, key, 0)
        assert payload[:8] == b"\x89PNG\r\n\x1a\n"
        if images[rel] is not None:
            decoded = mx.image.imdecode(payload).asnumpy()
            np.testing.assert_array_equal(decoded, images[rel])
    dataset = mx.gluon.data.vision.ImageRecordDataset(str(tmp / "data.rec"))
    assert len(dataset) == 5
    for i in range(len(dataset)):
        img, label = dataset[i]
        key = record_keys(str(tmp / "data"))[i]
        assert label == lst[key][0] and img.shape[2] == 3


def test_pack_jpeg_center_crop_resize_feeds_image_record_iter(tree):
    tmp, root, _ = tree
    _main("--list", "--recursive", tmp / "data", root)
    _main("--center-crop", "--resize", "6", "--quality", "90", tmp / "data", root)
    records = read_records(str(tmp / "data"))
    for _, payload in records.values():
        assert payload[:2] == b"\xff\xd8"
        assert mx.image.imdecode(payload).shape == (6, 6, 3)
    it = mx.io.ImageRecordIter(path_imgrec=str(tmp / "data.rec"), data_shape=(3, 6, 6),
                               batch_size=5)
    batch = next(iter(it))
    assert batch.data[0].shape == (5, 3, 6, 6)
    labels = sorted(batch.label[0].asnumpy().tolist())
    assert labels == [0.0, 1.0, 1.0, 2.0, 2.0]


def test_resize_keeps_aspect_with_integer_division(tmp_path):
    root = tmp_path / "img"
    save_image(str(root / "tall.png"), np.zeros((13, 7, 3), np.uint8))
    save_image(str(root / "wide.png"), np.zeros((7, 12, 3), np.uint8))
    _main("--list", "--no-shuffle", tmp_path / "r", root)
    _main("--resize", "5", "--encoding", ".png", tmp_path / "r", root)
    shapes = [mx.image.imdecode(p).shape for _, p in read_records(str(tmp_path / "r")).values()]
    assert shapes == [(13 * 5 // 7, 5, 3), (5, 12 * 5 // 7, 3)]


def test_color_modes(tmp_path):
    root = tmp_path / "img"
    rgba = np.random.default_rng(1).integers(0, 256, (5, 6, 4), dtype=np.uint8)
    save_image(str(root / "a.png"), rgba)
    _main("--list", tmp_path / "c", root)
    _main("--color", "-1", "--encoding", ".png", tmp_path / "c", root)
    (_, payload), = read_records(str(tmp_path / "c")).values()
    _, img = mx.recordio.unpack_img(mx.recordio.pack(mx.recordio.IRHeader(0, 0, 0, 0),
                                                     payload), -1)
    np.testing.assert_array_equal(img, rgba[:, :, [2, 1, 0, 3]])  # OpenCV's BGRA
    _main("--color", "0", "--encoding", ".png", tmp_path / "c", root)
    (_, payload), = read_records(str(tmp_path / "c")).values()
    assert mx.image.imdecode(payload, flag=0).shape == (5, 6, 1)
    from PIL import Image
    import io
    assert Image.open(io.BytesIO(payload)).mode == "L"
    _main("--color", "-1", tmp_path / "c", root)  # JPEG drops alpha, as OpenCV's encoder
    (_, payload), = read_records(str(tmp_path / "c")).values()
    assert Image.open(io.BytesIO(payload)).mode == "RGB"


def test_pass_through_and_pack_label(tree):
    tmp, root, _ = tree
    lst = tmp / "multi.lst"
    lst.write_text("7\t1.000000\t2.500000\t-3.000000\tcls_a/a0.png\n"
                   "9\t4.000000\t5.000000\t6.000000\tcls_b/b0.jpg\n")
    _main("--pass-through", "--pack-label", tmp / "multi", root)
    records = read_records(str(tmp / "multi"))
    assert list(records) == [7, 9]
    header, payload = records[7]
    assert header.flag == 3 and header.id == 7 and header.id2 == 0
    np.testing.assert_array_equal(header.label, np.array([1, 2.5, -3], np.float32))
    with open(os.path.join(root, "cls_a", "a0.png"), "rb") as f:
        assert payload == f.read()
    _main("--pass-through", tmp / "multi", root)  # without --pack-label: the first label
    header, _ = read_records(str(tmp / "multi"))[9]
    assert (header.flag, header.label) == (0, 4.0)


def test_every_list_of_the_prefix_is_packed(tree, capsys):
    tmp, root, _ = tree
    _main("--list", "--recursive", "--train-ratio", "0.6", tmp / "d", root)
    _main(tmp / "d", root)
    names = sorted(p for p in os.listdir(tmp) if p.endswith((".rec", ".idx")))
    assert names == ["d_train.idx", "d_train.rec", "d_val.idx", "d_val.rec"]
    assert capsys.readouterr().out.count("Creating .rec file from") == 2


def test_no_list_found(tmp_path, capsys):
    assert im2rec.main([str(tmp_path / "nothing"), str(tmp_path)]) == 1
    assert "Did not find and list file" in capsys.readouterr().out


def test_unreadable_image_is_reported_and_skipped(tree, capsys):
    tmp, root, _ = tree
    with open(os.path.join(root, "cls_a", "a1.png"), "wb") as f:
        f.write(b"not a png")
    (tmp / "l.lst").write_text("0\t0\tcls_a/a0.png\n1\t0\tcls_a/a1.png\n2\t0\tmissing.png\n"
                               "3\t0\tx.png\n")
    _main(tmp / "l", root)
    assert list(read_records(str(tmp / "l"))) == [0, 3]
    out = capsys.readouterr().out
    assert out.count("pack_img error on file") == 2


def test_worker_processes_give_the_same_file(tree):
    tmp, root, _ = tree
    _main("--list", "--recursive", tmp / "one", root)
    os.link(tmp / "one.lst", tmp / "two.lst")
    _main("--encoding", ".png", tmp / "one", root)
    _main("--encoding", ".png", "--num-thread", "2", tmp / "two", root)
    for ext in (".rec", ".idx"):
        assert (tmp / f"one{ext}").read_bytes() == (tmp / f"two{ext}").read_bytes()


def test_interrupted_pack_leaves_old_files_and_no_temporaries(tree, monkeypatch):
    tmp, root, _ = tree
    _main("--list", "--recursive", tmp / "data", root)
    _main("--encoding", ".png", tmp / "data", root)
    before = (tmp / "data.rec").read_bytes(), (tmp / "data.idx").read_bytes()

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(im2rec, "encode_image", boom)
    with pytest.raises(KeyboardInterrupt):
        im2rec.main([str(tmp / "data"), root])
    assert ((tmp / "data.rec").read_bytes(), (tmp / "data.idx").read_bytes()) == before
    assert not [p for p in os.listdir(tmp) if ".tmp" in p]


def test_mxnet_style_queue_workers(tree):
    import queue
    tmp, root, _ = tree
    args = im2rec.parse_args(["--encoding", ".png", str(tmp / "q"), root])
    items = [[5, "x.png", 1.0], [2, "cls_a/a0.png", 0.0]]
    q_in, q_out = queue.Queue(), queue.Queue()
    for i, item in enumerate(items):
        q_in.put((i, item))
    q_in.put(None)
    im2rec.read_worker(args, q_in, q_out)
    jobs = [q_out.get() for _ in items]
    for job in reversed(jobs):  # out of order: the writer restores list order
        q_out.put(job)
    q_out.put(None)
    im2rec.write_worker(q_out, str(tmp / "q.lst"), str(tmp))
    assert record_keys(str(tmp / "q")) == [5, 2]


# -- command line -----------------------------------------------------------------------
def _run(*args, module="gluonlite.tools.im2rec"):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", module] + [str(a) for a in args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_command_line(tree):
    tmp, root, _ = tree
    res = _run("--list", "--recursive", tmp / "cli", root)
    assert res.returncode == 0, res.stderr
    res = _run("--resize", "4", "--num-thread", "2", tmp / "cli", root)
    assert res.returncode == 0, res.stderr
    assert "Creating .rec file from" in res.stdout
    assert len(read_records(str(tmp / "cli"))) == 5
    res = _run("--help")
    assert res.returncode == 0 and "--pack-label" in res.stdout and "--center-crop" in res.stdout
    res = _run("--color", "2", tmp / "cli", root)
    assert res.returncode == 2 and "invalid choice" in res.stderr


def test_command_line_under_the_mxnet_alias(tree):
    tmp, root, _ = tree
    code = ("import sys, gluonlite; gluonlite.install_mxnet_alias(); "
            "from mxnet.tools import im2rec; sys.exit(im2rec.main())")
    env = dict(os.environ, PYTHONPATH=REPO)
    res = subprocess.run([sys.executable, "-c", code, "--list", str(tmp / "al"), root],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert read_lst_lines(str(tmp / "al.lst")) == [["0", "0.000000", "x.png"]]
