"""``python -m gluonlite.tools.diagnose`` (``mxnet.tools.diagnose``): what a bug report
needs about this machine, in the sections of MXNet 1.9's script.

Sections (each ``--<name> 0/1``): ``python``, ``pip``, ``mxnet`` (here: gluonlite, the
MXNet API version it implements, NumPy, CuPy and the GPUs it sees, Pillow, the
runtime features), ``os``, ``hardware`` (``lscpu`` on Linux), ``network`` and
``environment`` (``MXNET_*``, ``OMP_*``, ``KMP_*``, ``CC``, ``CXX``, ``CUDA_*``).

Difference from MXNet's script: the network test is off unless asked for
(``--network 1``); MXNet's is on by default.  When asked, each site gets ``--timeout``
seconds (MXNet's script sets a 10 s socket default whatever ``--timeout`` says).
"""
from __future__ import annotations

import argparse
import os
import platform
import socket
import subprocess
import sys
import time
import warnings
from typing import Optional, Sequence

__all__ = ["URLS", "REGIONAL_URLS", "test_connection", "check_python", "check_pip",
           "check_mxnet", "check_os", "check_hardware", "check_network",
           "check_environment", "parse_args", "main"]

URLS = {
    "MXNet": "https://github.com/apache/mxnet",
    "PYPI": "https://pypi.org/simple/pip/",
    "FashionMNIST": "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/"
                    "dataset/fashion-mnist/train-labels-idx1-ubyte.gz",
    "Conda": "https://repo.anaconda.com/pkgs/",
}

REGIONAL_URLS = {
    "cn": {
        "PYPI(douban)": "https://pypi.douban.com/",
        "Conda(tsinghua)": "https://mirrors.tuna.tsinghua.edu.cn/anaconda/pkgs/free/",
    }
}


def test_connection(name: str, url: str, timeout: float = 10) -> None:
    """Print how long resolving and opening ``url`` took, or why it failed."""
    from urllib.parse import urlparse
    from urllib.request import urlopen

    start = time.time()
    try:
        socket.gethostbyname(urlparse(url).hostname or "")
    except Exception as err:  # noqa: BLE001 - a diagnostic reports every failure
        print("Error resolving DNS for {}: {}, {}".format(name, url, err))
        return
    dns = time.time() - start
    start = time.time()
    try:
        with urlopen(url, timeout=timeout or None):
            pass
    except Exception as err:  # noqa: BLE001
        print("Error open {}: {}, {}, DNS finished in {} sec.".format(name, url, err, dns))
        return
    load = time.time() - start
    print("Timing for {}: {}, DNS: {:.4f} sec, LOAD: {:.4f} sec.".format(name, url, dns, load))


# MXNet's script tests test_connection by that name; pytest must not collect it
test_connection.__test__ = False


def check_python() -> None:
    """Python's version, compiler, build and architecture."""
    print("----------Python Info----------")
    print("Version      :", platform.python_version())
    print("Compiler     :", platform.python_compiler())
    print("Build        :", platform.python_build())
    print("Arch         :", platform.architecture())


def check_pip() -> None:
    """pip's version and location."""
    print("------------Pip Info-----------")
    try:
        import pip
    except ImportError:
        print("No corresponding pip install for current python.")
        return
    print("Version      :", pip.__version__)
    print("Directory    :", os.path.dirname(pip.__file__))


def _version(module_name: str) -> str:
    try:
        module = __import__(module_name)
    except Exception as err:  # noqa: BLE001 - CuPy fails in many ways without a driver
        return "not available ({})".format(type(err).__name__)
    return getattr(module, "__version__", "unknown")


def check_mxnet() -> None:
    """gluonlite's side of MXNet's ``MXNet Info`` section."""
    print("----------MXNet Info-----------")
    import gluonlite
    from gluonlite import context, runtime

    print("Version      :", gluonlite.MXNET_VERSION, "(MXNet API, implemented by gluonlite "
          + gluonlite.__version__ + ")")
    print("Directory    :", os.path.dirname(gluonlite.__file__))
    print("Library      : none (pure Python on NumPy/CuPy)")
    print("NumPy        :", _version("numpy"))
    print("CuPy         :", _version("cupy"))
    print("Pillow       :", _version("PIL"))
    try:
        print("GPUs         :", context.num_gpus())
    except Exception as err:  # noqa: BLE001
        print("GPUs         : unknown ({})".format(err))
    try:
        print("Build features:")
        print("\n".join(str(f) for f in runtime.Features().values()))
    except Exception:  # noqa: BLE001
        print("No runtime build feature info available")


def check_os() -> None:
    """The operating system (``platform``)."""
    print("----------System Info----------")
    print("Platform     :", platform.platform())
    print("system       :", platform.system())
    print("node         :", platform.node())
    print("release      :", platform.release())
    print("version      :", platform.version())


def check_hardware() -> None:
    """The machine and processor (``lscpu``, ``sysctl`` or ``wmic`` output)."""
    print("----------Hardware Info----------")
    print("machine      :", platform.machine())
    print("processor    :", platform.processor())
    commands = {"darwin": ["sysctl", "-n", "machdep.cpu.brand_string"], "linux": ["lscpu"],
                "win32": ["wmic", "cpu", "get", "name"]}
    command = next((c for p, c in commands.items() if sys.platform.startswith(p)), None)
    if command is None:
        return
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as err:
        print("{}: {}".format(command[0], err))
        return
    sys.stdout.write(out)


def check_network(args: argparse.Namespace) -> None:
    """Time DNS and a download from each site (``args.region`` adds regional mirrors)."""
    print("----------Network Test----------")
    urls = dict(URLS)
    if args.timeout > 0:
        print("Setting timeout: {}".format(args.timeout))
    for region in args.region.split(","):
        region = region.strip().lower()
        if not region:
            continue
        if region in REGIONAL_URLS:
            urls.update(REGIONAL_URLS[region])
        else:
            warnings.warn("Region {} do not need specific test, please refer to global "
                          "sites.".format(region))
    for name, url in urls.items():
        test_connection(name, url, args.timeout)


def check_environment() -> None:
    """The environment variables that tune MXNet, OpenMP, the compilers and CUDA."""
    print("----------Environment----------")
    for key, value in os.environ.items():
        if key.startswith(("MXNET_", "OMP_", "KMP_", "CUDA_")) or key in ("CC", "CXX"):
            print('{}="{}"'.format(key, value))


_SECTIONS = ["python", "pip", "mxnet", "os", "hardware", "network", "environment"]


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """The script's options (``sys.argv[1:]`` by default)."""
    parser = argparse.ArgumentParser(
        prog="diagnose", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description="Diagnose script for checking the current system.")
    for section in _SECTIONS:
        parser.add_argument("--" + section, default=0 if section == "network" else 1,
                            type=int, help="Diagnose {}.".format(section))
    parser.add_argument("--region", default="", type=str,
                        help="Additional sites in which region(s) to test. Specify 'cn' for "
                             "example to test mirror sites in China.")
    parser.add_argument("--timeout", default=10, type=int,
                        help="Connection test timeout threshold, 0 to disable.")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Print the sections asked for; returns 0."""
    args = parse_args(argv)
    checks = {"python": check_python, "pip": check_pip, "mxnet": check_mxnet,
              "os": check_os, "hardware": check_hardware,
              "network": lambda: check_network(args), "environment": check_environment}
    for section in _SECTIONS:
        if getattr(args, section):
            checks[section]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
