"""Import every operator module of the package so that each registers itself."""
import importlib
import pkgutil

from . import __path__ as _ops_path

_SKIP = {"_all", "registry", "attrs", "common", "special"}
# modules that name operators defined elsewhere (aliases): after every definition
_LAST = ("numpy_aliases",)

for _info in sorted(pkgutil.iter_modules(_ops_path), key=lambda m: m.name):
    if _info.name not in _SKIP and _info.name not in _LAST:
        importlib.import_module(f"{__package__}.{_info.name}")
for _name in _LAST:
    importlib.import_module(f"{__package__}.{_name}")
