"""Placeholder during bring-up; replaced by the MXNet binary format reader/writer."""
def save(fname, data):
    raise RuntimeError("not yet")
def load(fname):
    raise RuntimeError("not yet")
def load_frombuffer(buf):
    raise RuntimeError("not yet")
