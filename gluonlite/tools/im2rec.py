"""``python -m gluonlite.tools.im2rec`` (``mxnet.tools.im2rec`` under the alias): make
image lists and pack images into RecordIO files, with MXNet 1.9's command line.

Two steps, as MXNet's tool::

    python -m gluonlite.tools.im2rec --list --recursive data/train images/
    python -m gluonlite.tools.im2rec --resize 256 --quality 90 data/train images/

``--list`` walks ``root`` and writes ``<prefix>.lst`` (``index<TAB>label<TAB>path``;
with ``--recursive`` each sub-folder is a class, numbered in walk order), or
``<prefix>_train.lst`` / ``_val.lst`` / ``_test.lst`` by ``--train-ratio`` and
``--test-ratio``, ``_<chunk>`` per ``--chunks``; shuffled with Python's ``random``
seeded 100, so the lists are MXNet's to the byte.  Without ``--list`` every
``<prefix>*.lst`` in the prefix's folder is packed into ``.rec`` + ``.idx`` beside it:
each record is MXNet's ``IRHeader(flag, label, id=index, id2=0)`` (``--pack-label``
stores every label of a line as a float32 vector) and the image, read as
``cv2.imread(path, --color)``, centre-cropped, resized (shorter side), encoded
(``--encoding``, ``--quality``) or, with ``--pass-through``, the file's bytes.

Differences from MXNet's tool: images are read and encoded with Pillow instead of
OpenCV, so the pixels are the same (a resized pixel may differ by one level) but the
JPEG/PNG bytes are not; files are written under temporary names and renamed when
complete; an image that cannot be read is reported and skipped (MXNet's
single-process path crashes on it); records are always written in list order
(``--num-thread`` > 1 encodes in worker processes).  See ``_im2rec_image`` for reading.
"""
from __future__ import annotations

import argparse
import functools
import os
import random
import sys
import time
import traceback
from typing import Iterator, Optional, Sequence

from .. import recordio
from ..base import write_atomically
from ._im2rec_image import crop_center_square, encode_image, read_image, resize_shorter

__all__ = ["list_image", "write_list", "make_list", "read_list", "image_encode",
           "read_worker", "write_worker", "parse_args", "main"]


def list_image(root: str, recursive: bool, exts: Sequence[str]) -> Iterator[tuple]:
    """``(index, relative path, label)`` of the images under ``root``.

    Without ``recursive`` only the files directly in ``root`` (label 0); with it, every
    folder holding an image is a class, numbered in the order a sorted walk meets
    them, and the ``folder label`` table is printed once the walk ends.
    """
    exts = [e.lower() for e in exts]
    index = 0
    if not recursive:
        for fname in sorted(os.listdir(root)):
            fpath = os.path.join(root, fname)
            if os.path.isfile(fpath) and os.path.splitext(fname)[1].lower() in exts:
                yield (index, os.path.relpath(fpath, root), 0)
                index += 1
        return
    classes: dict = {}
    for path, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()
        for fname in sorted(files):
            fpath = os.path.join(path, fname)
            if os.path.isfile(fpath) and os.path.splitext(fname)[1].lower() in exts:
                label = classes.setdefault(path, len(classes))
                yield (index, os.path.relpath(fpath, root), label)
                index += 1
    for path, label in classes.items():
        print(os.path.relpath(path, root), label)


def write_list(path_out: str, image_list: Sequence) -> None:
    """Write ``(index, path, label, ...)`` items as ``.lst`` lines:
    ``index<TAB>label<TAB>...<TAB>path`` with labels as ``%f``."""
    lines = []
    for item in image_list:
        labels = "".join("%f\t" % label for label in item[2:])
        lines.append("%d\t%s%s\n" % (item[0], labels, item[1]))
    write_atomically(path_out, "".join(lines).encode("utf-8"))


def make_list(args: argparse.Namespace) -> None:
    """Write the ``.lst`` file(s) of ``args.root`` under ``args.prefix`` (see the module
    docstring for the names and splits)."""
    image_list = list(list_image(args.root, args.recursive, args.exts))
    if args.shuffle:
        random.seed(100)  # MXNet's tool seeds the global generator: same lists as it
        random.shuffle(image_list)
    chunk_size = (len(image_list) + args.chunks - 1) // args.chunks
    for i in range(args.chunks):
        chunk = image_list[i * chunk_size:(i + 1) * chunk_size]
        name = args.prefix + ("_%d" % i if args.chunks > 1 else "")
        n_train = int(chunk_size * args.train_ratio)
        n_test = int(chunk_size * args.test_ratio)
        if args.train_ratio == 1.0:
            write_list(name + ".lst", chunk)
            continue
        if args.test_ratio:
            write_list(name + "_test.lst", chunk[:n_test])
        if args.train_ratio + args.test_ratio < 1.0:
            write_list(name + "_val.lst", chunk[n_test + n_train:])
        write_list(name + "_train.lst", chunk[n_test:n_test + n_train])


def read_list(path_in: str) -> Iterator[list]:
    """``[index, path, label, ...]`` per line of a ``.lst`` file; a malformed line is
    reported and skipped, as MXNet's tool does."""
    with open(path_in) as fin:
        for line in fin:
            fields = [f.strip() for f in line.strip().split("\t")]
            if len(fields) < 3:
                print("lst should have at least has three parts, but only has %s parts "
                      "for %s" % (len(fields), fields))
                continue
            try:
                item = [int(fields[0]), fields[-1]] + [float(f) for f in fields[1:-1]]
            except ValueError as err:
                print("Parsing lst met error for %s, detail: %s" % (fields, err))
                continue
            yield item


def _header(args, item: Sequence) -> recordio.IRHeader:
    if len(item) > 3 and args.pack_label:
        return recordio.IRHeader(0, list(item[2:]), item[0], 0)
    return recordio.IRHeader(0, item[2], item[0], 0)


def _encode_item(args, item: Sequence) -> Optional[bytes]:
    """The packed record of one list item, or None (reported) when it fails."""
    fullpath = os.path.join(args.root, item[1])
    header = _header(args, item)
    try:
        with open(fullpath, "rb") as fin:
            raw = fin.read()
        if args.pass_through:
            return recordio.pack(header, raw)
        img = read_image(raw, args.color)
        if args.center_crop:
            img = crop_center_square(img)
        if args.resize:
            img = resize_shorter(img, args.resize)
        return recordio.pack(header, encode_image(img, args.encoding, args.quality))
    except Exception as err:  # noqa: BLE001 - any failure skips the image, as MXNet's
        traceback.print_exc()
        print("pack_img error on file: %s" % fullpath, err)
        return None


def image_encode(args, i: int, item: Sequence, q_out) -> None:
    """Put ``(i, packed record or None, item)`` on ``q_out`` (MXNet's worker step)."""
    q_out.put((i, _encode_item(args, item), item))


def read_worker(args, q_in, q_out) -> None:
    """Encode ``(i, item)`` from ``q_in`` until ``None``, results to ``q_out``."""
    while True:
        job = q_in.get()
        if job is None:
            break
        image_encode(args, job[0], job[1], q_out)


class _RecordWriter:
    """``.rec`` + ``.idx`` written under temporary names, renamed by :meth:`commit`."""

    def __init__(self, working_dir: str, lst_name: str):
        stem = os.path.splitext(os.path.basename(lst_name))[0]
        self.rec = os.path.join(working_dir, stem + ".rec")
        self.idx = os.path.join(working_dir, stem + ".idx")
        tag = ".tmp%d" % os.getpid()
        self._tmp = (self.idx + tag, self.rec + tag)
        self.record = recordio.MXIndexedRecordIO(self._tmp[0], self._tmp[1], "w")
        self.count = 0
        self._tic = time.time()

    def add(self, key: int, packed: Optional[bytes]) -> None:
        if packed is not None:
            self.record.write_idx(key, packed)
        if self.count % 1000 == 0:
            toc = time.time()
            print("time:", toc - self._tic, " count:", self.count)
            self._tic = toc
        self.count += 1

    def commit(self) -> None:
        self.record.close()
        os.replace(self._tmp[1], self.rec)
        os.replace(self._tmp[0], self.idx)

    def discard(self) -> None:
        self.record.close()
        for path in self._tmp:
            if os.path.exists(path):
                os.remove(path)


def write_worker(q_out, fname: str, working_dir: str) -> None:
    """Write ``(i, packed, item)`` from ``q_out`` in order of ``i`` until ``None`` into
    the ``.rec``/``.idx`` named after the list ``fname`` in ``working_dir``."""
    writer = _RecordWriter(working_dir, fname)
    pending: dict = {}
    try:
        more = True
        while more:
            job = q_out.get()
            if job is None:
                more = False
            else:
                pending[job[0]] = job[1:]
            while writer.count in pending:
                packed, item = pending.pop(writer.count)
                writer.add(item[0], packed)
    except BaseException:
        writer.discard()
        raise
    writer.commit()


def _pack_list(args, lst: str, working_dir: str) -> None:
    items = list(read_list(lst))
    writer = _RecordWriter(working_dir, lst)
    encode = functools.partial(_encode_item, args)
    try:
        if args.num_thread > 1:
            import multiprocessing
            with multiprocessing.Pool(args.num_thread) as pool:
                for item, packed in zip(items, pool.imap(encode, items, chunksize=16)):
                    writer.add(item[0], packed)
        else:
            for item in items:
                writer.add(item[0], encode(item))
    except BaseException:
        writer.discard()
        raise
    writer.commit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="im2rec", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description="Create an image list or make a record database by reading from an "
                    "image list")
    parser.add_argument("prefix", help="prefix of input/output lst and rec files.")
    parser.add_argument("root", help="path to folder containing images.")
    lists = parser.add_argument_group("Options for creating image lists")
    lists.add_argument("--list", action="store_true",
                       help="create image list(s) <prefix>.lst by traversing root; otherwise "
                            "read <prefix>*.lst and create <prefix>.rec")
    lists.add_argument("--exts", nargs="+", default=[".jpeg", ".jpg", ".png"],
                       help="list of acceptable image extensions.")
    lists.add_argument("--chunks", type=int, default=1, help="number of chunks.")
    lists.add_argument("--train-ratio", type=float, default=1.0,
                       help="Ratio of images to use for training.")
    lists.add_argument("--test-ratio", type=float, default=0,
                       help="Ratio of images to use for testing.")
    lists.add_argument("--recursive", action="store_true",
                       help="walk sub-folders, one label per folder; otherwise only images "
                            "in root, label 0.")
    lists.add_argument("--no-shuffle", dest="shuffle", action="store_false",
                       help="keep the walk order in <prefix>.lst")
    recs = parser.add_argument_group("Options for creating database")
    recs.add_argument("--pass-through", action="store_true",
                      help="whether to skip transformation and save image as is")
    recs.add_argument("--resize", type=int, default=0,
                      help="resize the shorter edge of image to the newsize, original images "
                           "will be packed by default.")
    recs.add_argument("--center-crop", action="store_true",
                      help="specify whether to crop the center image to make it rectangular.")
    recs.add_argument("--quality", type=int, default=95,
                      help="JPEG quality for encoding, 1-100; or PNG compression for "
                           "encoding, 1-9")
    recs.add_argument("--num-thread", type=int, default=1,
                      help="number of processes encoding images (records stay in list "
                           "order).")
    recs.add_argument("--color", type=int, default=1, choices=[-1, 0, 1],
                      help="1: colour, transparency dropped; 0: greyscale; -1: as stored, "
                           "alpha included.")
    recs.add_argument("--encoding", type=str, default=".jpg", choices=[".jpg", ".png"],
                      help="specify the encoding of the images.")
    recs.add_argument("--pack-label", action="store_true",
                      help="Whether to also pack multi dimensional label in the record file")
    return parser


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """The tool's arguments (``sys.argv[1:]`` by default), with ``prefix`` and ``root``
    made absolute."""
    args = _parser().parse_args(argv)
    args.prefix = os.path.abspath(args.prefix)
    args.root = os.path.abspath(args.root)
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the tool; returns the exit status (0, or 1 when no list file matched)."""
    args = parse_args(argv)
    if args.list:
        make_list(args)
        return 0
    working_dir = args.prefix if os.path.isdir(args.prefix) else os.path.dirname(args.prefix)
    lists = sorted(os.path.join(working_dir, f) for f in os.listdir(working_dir))
    lists = [f for f in lists if os.path.isfile(f) and f.startswith(args.prefix)
             and f.endswith(".lst")]
    for lst in lists:
        print("Creating .rec file from", lst, "in", working_dir)
        _pack_list(args, lst, working_dir)
    if not lists:
        print("Did not find and list file with prefix %s" % args.prefix)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
