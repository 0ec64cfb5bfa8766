"""Package discovery and the optional compiled kernels for setuptools; everything else is in pyproject.toml.

Subpackages of ``fileindex`` are found, not listed. The Construct schemas (``specs/construct``) and
the Kaitai-generated readers (``generated/python``, with the readers of the normal path in ``fast/``;
the Thrift-generated classes of Parquet's metadata in ``parquet_thrift/``) stay at the top of the repository
and install as ``fileindex.specs`` and ``fileindex.generated`` (their folders are mapped in pyproject.toml).

``fileindex._kernels`` is compiled at install when a C compiler is present: the loops in ``csrc/``
(plain C, no Python headers) and their Python-API layer in ``csrc/python/``. Without a compiler the
install still succeeds and the numpy path is used (fileindex.kernels).
"""
from glob import glob

from setuptools import Extension, find_packages, setup

KERNELS = Extension("fileindex._kernels", sorted(glob("csrc/*.c")) + sorted(glob("csrc/python/*.c")),
                    include_dirs=["csrc"], depends=sorted(glob("csrc/*.h")) + sorted(glob("csrc/python/*.h")),
                    extra_compile_args=["-O3", "-std=c11"], optional=True)

GENERATED = ["fileindex.generated", "fileindex.generated.fast", "fileindex.generated.parquet_thrift"]

setup(packages=find_packages(include=["fileindex", "fileindex.*"]) + ["fileindex.specs", *GENERATED],
      ext_modules=[KERNELS])
