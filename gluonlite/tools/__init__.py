"""``mx.tools`` (``mxnet.tools.*`` under ``install_mxnet_alias()``): MXNet 1.9's
command-line tools that make sense without MXNet's C++ library.

- :mod:`~gluonlite.tools.im2rec`: image lists (``.lst``) and RecordIO packing
  (``.rec`` + ``.idx``), MXNet's command line, on Pillow;
- :mod:`~gluonlite.tools.parse_log`: the per-epoch table of a training log;
- :mod:`~gluonlite.tools.diagnose`: platform, Python and package information.

Run them as ``python -m gluonlite.tools.im2rec ...`` (or ``python -m
mxnet.tools.im2rec`` where ``mxnet`` is the alias), or call their ``main(argv)``.

Not here, and why:

- ``launch`` starts distributed jobs through dmlc-core's tracker (ssh, mpi, sge,
  yarn, local) for MXNet's parameter-server kvstores (``dist_sync``, ``dist_async``,
  ...); gluonlite's kvstore is single-process (``local``/``device``) and there is no
  server or tracker to start.
- ``kill-mxnet.py`` kills remote processes of such jobs (and its name is not
  importable in MXNet either).
- ``bandwidth.measure`` benchmarks MXNet's multi-GPU ``device`` kvstore (its P2P
  reduction trees, gradient compression) on networks from MXNet's source tree
  (``example/image-classification/symbols``, not shipped in its wheel); gluonlite's
  kvstore sums on the first value's device with plain copies, so the figure would
  not measure what the tool's ``GB/sec per gpu`` claims.
- ``caffe_converter`` needs Caffe's protobuf definitions compiled (``caffe_pb2``) or
  pycaffe, and converts Caffe layers MXNet 1.x had operators for; it is not
  reimplemented.
"""
__all__ = ["im2rec", "parse_log", "diagnose"]
