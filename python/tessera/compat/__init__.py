"""Compatibility layers for code written against other kernel languages.

``tessera.compat.triton``: Triton's Python API over Tessera, so that a kernel
written for Triton runs after changing its import lines.
"""
