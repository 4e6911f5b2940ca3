"""Constants of ``gluon.contrib.data`` (MXNet 1.9)."""

EOS_TOKEN = "<eos>"
