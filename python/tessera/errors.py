"""The exceptions Tessera raises for mistakes in a user's kernel or launch."""

import linecache

__all__ = ["CompilationError", "LaunchError", "ArgumentError"]


class CompilationError(Exception):
    """A mistake in a kernel, found while compiling it.

    ``str(error)`` reads like a compiler diagnostic::

        kernels.py:12:15: error: cannot broadcast [128] to [64]
            y = tl.load(y_ptr + offsets[:64])
                      ^

    Attributes: ``message`` (without the location), ``file``, ``line``,
    ``col`` (1-based; 0 when unknown) and ``source_line`` (the text of that
    line, or None).
    """

    def __init__(self, message, file="<unknown>", line=0, col=0):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.source_line = linecache.getline(file, line).rstrip("\n") if file and line else ""
        super().__init__(self._format())

    @property
    def location(self):
        return f"{self.file}:{self.line}:{self.col}"

    def _format(self):
        text = f"{self.location}: error: {self.message}"
        if self.source_line:
            # Keep the line's own indentation so the caret lines up.
            text += "\n" + self.source_line
            if self.col > 0:
                prefix = "".join(c if c == "\t" else " " for c in self.source_line[: self.col - 1])
                text += "\n" + prefix + "^"
        return text

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line, self.col))


class ArgumentError(CompilationError, TypeError):
    """A launch whose arguments do not fit the kernel's parameters; it names
    the kernel's definition."""


class LaunchError(RuntimeError):
    """A kernel that failed while running (an out-of-bounds access found by
    the interpreter, a failed device assertion, a backend error)."""
