"""``mx.kvstore`` / ``mx.kv``: the single-process key-value store."""
from .kvstore import KVStoreBase, KVStore, create

__all__ = ["KVStoreBase", "KVStore", "create"]
