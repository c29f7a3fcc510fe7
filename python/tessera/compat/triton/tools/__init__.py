"""``triton.tools``: the parts kernels import (``tensor_descriptor``)."""
