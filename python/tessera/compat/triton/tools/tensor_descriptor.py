"""``triton.tools.tensor_descriptor``: Tessera's host TensorDescriptor
(tessera/tensor_descriptor.py), under Triton's import path."""

from tessera.tensor_descriptor import TensorDescriptor

__all__ = ["TensorDescriptor"]
