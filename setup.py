"""Package discovery and the optional compiled kernels for setuptools; everything else is in pyproject.toml.

Subpackages of ``fileindex`` are found, not listed: the Construct schemas (``fileindex/specs``) and the
readers tools/regenerate.py compiles from specs/ (``fileindex/generated``: Kaitai's, with those of the normal path
in ``fast/``, and the Thrift-generated classes of Parquet's metadata in ``parquet_thrift/``) among them.

``fileindex._kernels`` is compiled at install when a C compiler is present: the loops in ``csrc/``
(plain C, no Python headers) and their Python-API layer in ``csrc/python/``. Without a compiler the
install still succeeds and the numpy path is used (fileindex.kernels).
"""
from glob import glob

from setuptools import Extension, find_packages, setup

KERNELS = Extension("fileindex._kernels", sorted(glob("csrc/*.c")) + sorted(glob("csrc/python/*.c")),
                    include_dirs=["csrc"], depends=sorted(glob("csrc/*.h")) + sorted(glob("csrc/python/*.h")),
                    extra_compile_args=["-O3", "-std=c11"], optional=True)

setup(packages=find_packages(include=["fileindex", "fileindex.*"]), ext_modules=[KERNELS])
