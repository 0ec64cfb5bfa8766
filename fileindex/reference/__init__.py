"""Checking and explaining against Java: the conformance harness (``conformance``), the vectors'
JSON conventions (``vector_format``), and annotated bytes of a file (``explain``). May import anything
below the pipeline.
"""
