"""Package discovery for setuptools; everything else is in pyproject.toml.

Subpackages of ``fileindex`` are found, not listed. The Construct schemas (``specs/construct``) and
the Kaitai-generated readers (``generated/python``, with the readers of the normal path in ``fast/``)
stay at the top of the repository and install as ``fileindex.specs`` and ``fileindex.generated``
(their folders are mapped in pyproject.toml).
"""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["fileindex", "fileindex.*"]) + ["fileindex.specs", "fileindex.generated", "fileindex.generated.fast"])
