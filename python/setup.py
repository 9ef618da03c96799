"""Builds and installs the gpufeed Python package (python/ of the gpufeed tree).

    pip install --no-build-isolation ./python      # from the tree's top

The _gpufeed extension is C over gpufeed's public headers, built for the
limited API of CPython 3.11 (one abi3 build serves 3.11 and later).  It
links the static library, build/libgpufeed.a (made here with `make lib` when
missing; GPUFEED_BUILD names another build directory, GPUFEED_SRC another
tree), with its symbols kept
private to the extension, so the installed package needs no libgpufeed.so;
jansson, liburing and zlib come from the system (Debian: libjansson4,
liburing2, zlib1g).  GPUFEED_LINK=shared links the installed libgpufeed.so
instead (found with pkg-config gpufeed), for a distribution package.
`make python` builds the extension in place against build/libgpufeed.so.
"""
import os
import re
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
# The tree this python/ belongs to (GPUFEED_SRC: a copy of python/ built elsewhere).
TOP = os.path.abspath(os.environ.get("GPUFEED_SRC") or os.path.dirname(HERE))
LIMITED_API = "0x030B0000"  # CPython 3.11


def version():
    with open(os.path.join(TOP, "Makefile"), encoding="utf-8") as f:
        m = re.search(r"^VERSION\s*:=\s*(\S+)", f.read(), re.M)
    if not m:
        sys.exit("setup.py: no VERSION in %s/Makefile" % TOP)
    return m.group(1)


def pkg_config(*args):
    return subprocess.run(["pkg-config", *args, "gpufeed"], check=True, capture_output=True,
                          text=True).stdout.split()


class BuildExt(build_ext):
    """Makes the static library first when this tree has not built it."""

    def run(self):
        if os.environ.get("GPUFEED_LINK", "static") == "static":
            lib = os.path.join(BUILD, "libgpufeed.a")
            if not os.path.exists(lib):
                subprocess.run(["make", "-C", TOP, "-s", "BUILD=" + BUILD, lib], check=True)
        super().run()


if not os.path.exists(os.path.join(TOP, "include", "gpufeed", "loader.h")):
    sys.exit("setup.py: %s is not a gpufeed source tree (include/gpufeed/loader.h missing); "
             "install from the tree: pip install --no-build-isolation ./python" % TOP)

BUILD = os.path.abspath(os.environ.get("GPUFEED_BUILD", os.path.join(TOP, "build")))
sources = sorted(os.path.join("src", f) for f in os.listdir(os.path.join(HERE, "src")) if f.endswith(".c"))
ext_args = dict(include_dirs=[os.path.join(TOP, "include")],
                define_macros=[("Py_LIMITED_API", LIMITED_API), ("_GNU_SOURCE", None)],
                extra_compile_args=["-std=c11", "-fvisibility=hidden"], py_limited_api=True)
if os.environ.get("GPUFEED_LINK", "static") == "shared":
    ext_args["include_dirs"] = [p[2:] for p in pkg_config("--cflags-only-I")] + ext_args["include_dirs"]
    ext_args["extra_link_args"] = pkg_config("--libs")
else:
    # --exclude-libs: the library's symbols stay inside the extension, so a
    # libgpufeed.so loaded beside it (ctypes) cannot interpose on them.
    ext_args["extra_objects"] = [os.path.join(BUILD, "libgpufeed.a")]
    ext_args["libraries"] = ["jansson", "uring", "z", "dl", "pthread", "m"]
    ext_args["extra_link_args"] = ["-Wl,--exclude-libs,ALL"]

setup(
    name="gpufeed",
    version=version(),
    description="Keep GPUs fed: gpufeed's loader, datasets and machine model from Python",
    python_requires=">=3.11",
    packages=["gpufeed"],
    package_data={"gpufeed": ["py.typed", "__init__.pyi"]},
    ext_modules=[Extension("gpufeed._gpufeed", sources, **ext_args)],
    cmdclass={"build_ext": BuildExt},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
    zip_safe=False,
)
