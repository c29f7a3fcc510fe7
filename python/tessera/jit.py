"""@tessera.jit: Python functions compiled to tile IR.

The decorated function's source is parsed with ``ast`` and walked by
CodeGenerator, which calls tessera.language (and through it the C++
KernelBuilder) for every operation, with the position of the Python node as
the source location, so that errors name the kernel's file:line:col.

``kernel[grid](*args, **constexprs)`` binds the arguments, computes the
specialization key (dtypes, constexpr values, ints equal to 1, divisibility by
16 of ints and data pointers), compiles on a cache miss, and runs the kernel
where its arrays live: on a GPU device (tessera arrays on "vulkan", "cuda" or
"hip", PyTorch CUDA tensors) compiled for that device's own target with the
launch's num_warps and num_stages; for host memory on the CPU backend when
this build has one, else (or with TESSERA_INTERPRET=1) on the tile IR
interpreter.
"""

import ast
import builtins
import functools
import hashlib
import inspect
import operator
import os
import sys
import textwrap

from . import _C
from .arrays import GPU_DEVICES, array as _DeviceArray, device_info
from . import language as tl
from .errors import ArgumentError, CompilationError, LaunchError
from .language import _state, _unwrap, block_ptr, constexpr, tensor, tensor_descriptor
from .tensor_descriptor import TensorDescriptor

__all__ = ["jit", "JITFunction", "CompiledKernel", "cdiv", "next_power_of_2", "cpu_available",
           "default_backend"]


def cdiv(x, y):
    """ceil(x / y) for integers."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def cpu_available():
    """Whether this build of tessera can compile kernels for the CPU."""
    return bool(_C.cpu_available())


def _interpret_requested():
    return os.environ.get("TESSERA_INTERPRET", "0").lower() not in ("", "0", "false", "off", "no")


def default_backend():
    """Where kernels run now: "interpreter" (TESSERA_INTERPRET=1, or no CPU
    lowering in this build) or "cpu"."""
    if _interpret_requested() or not cpu_available():
        return "interpreter"
    return "cpu"


_MISSING = object()

# Launch options accepted like Triton's. GPU launches honour num_warps,
# num_stages, and on NVIDIA enable_fp_fusion, maxnreg and Tessera's own `tma`
# (default True: load pipelined host-descriptor blocks and store such blocks
# with TMA on sm_90a, as Triton does; tma=False copies them with cp.async) and
# `warp_specialize` (a producer warpgroup copies such a loop's blocks while
# num_warps warps compute); all part of their cache key. The CPU ignores all of
# them.
_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion",
                   "launch_cooperative_grid", "tma", "warp_specialize")
_DEFAULT_NUM_WARPS = 4
_DEFAULT_NUM_STAGES = 2


# ---------------------------------------------------------------------------
# Source
# ---------------------------------------------------------------------------


class _Source:
    """The parsed source of a function and how to map its nodes to file positions."""

    def __init__(self, fn):
        try:
            lines, first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise CompilationError(
                f"cannot read the source of '{fn.__qualname__}' ({e}); @tessera.jit needs "
                "functions defined in a file", fn.__code__.co_filename, fn.__code__.co_firstlineno, 0)
        self.file = inspect.getsourcefile(fn) or fn.__code__.co_filename
        self.first_line = first_line
        raw = "".join(lines)
        first = lines[0]
        self.indent = len(first) - len(first.lstrip())
        module = ast.parse(textwrap.dedent(raw))
        node = module.body[0]
        if not isinstance(node, ast.FunctionDef):
            raise CompilationError(f"@tessera.jit applies to functions, not {type(node).__name__}",
                                   self.file, first_line, self.indent + 1)
        self.tree = node
        self.constexprs = set()
        for arg in node.args.args + node.args.kwonlyargs:
            if arg.annotation is not None and _is_constexpr_annotation(arg.annotation):
                self.constexprs.add(arg.arg)
        if node.args.vararg or node.args.kwarg:
            raise CompilationError("kernels cannot take *args or **kwargs", *self.loc(node))

    def loc(self, node):
        return (self.file, self.first_line + node.lineno - 1, self.indent + node.col_offset + 1)


def _is_constexpr_annotation(node):
    if isinstance(node, ast.Attribute):
        return node.attr == "constexpr"
    if isinstance(node, ast.Name):
        return node.id == "constexpr"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.split(".")[-1] == "constexpr"
    return False


def _assigned_names(stmts):
    """The names a list of statements assigns, in order of first assignment
    (nested functions and comprehensions excluded)."""
    names = []

    class Visitor(ast.NodeVisitor):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Store) and node.id not in names:
                names.append(node.id)

        def visit_FunctionDef(self, node):
            pass

        visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_FunctionDef
        visit_GeneratorExp = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    for stmt in stmts:
        Visitor().visit(stmt)
    return names


def _contains_return(node):
    """Whether a return statement sits in `node` (nested functions excluded)."""
    class Finder(ast.NodeVisitor):
        found = False

        def visit_Return(self, node):
            Finder.found = True

        def visit_FunctionDef(self, node):
            pass

        visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    Finder().visit(node)
    return Finder.found


def _absorbing(node, rest):
    """`if c: A else: B` followed by `rest`, as `if c: A; rest else: B; rest`,
    marked terminal: scf.if has no early exit, so a return in a branch ends
    its own path, and the statements after the if run on the paths that did
    not return (Triton branches to the function's end instead)."""
    absorbed = ast.If(test=node.test, body=node.body + rest, orelse=node.orelse + rest)
    absorbed.terminal = True
    return ast.copy_location(absorbed, node)


class _Bind(ast.stmt):
    """`target = value` for a value computed while compiling: the loop
    variable of an iteration of a written-out unrolled loop (visit_stmts)."""
    _fields = ("target",)

    def __init__(self, target, value, node):
        super().__init__()
        self.target = target
        self.value = value
        ast.copy_location(self, node)


class _Returned(list):
    """The tensors one path of a returning if returns; `single`: a value, not
    a tuple."""

    def __init__(self, single):
        super().__init__()
        self.single = single


class _Return(Exception):
    def __init__(self, value, node):
        super().__init__()
        self.value = value
        self.node = node


_UNSUPPORTED = {
    "Lambda": "lambda expressions are", "ListComp": "list comprehensions are",
    "SetComp": "set comprehensions are", "DictComp": "dict comprehensions are",
    "GeneratorExp": "generator expressions are", "Dict": "dict displays are",
    "Set": "set displays are", "Await": "await is", "Yield": "yield is", "YieldFrom": "yield is",
    "NamedExpr": "assignment expressions (:=) are", "Starred": "starred expressions are",
    "With": "'with' statements are", "AsyncWith": "'async with' statements are",
    "Try": "'try' statements are", "TryStar": "'try' statements are", "Raise": "'raise' is",
    "FunctionDef": "nested function definitions are",
    "AsyncFunctionDef": "nested function definitions are", "ClassDef": "class definitions are",
    "Import": "import statements are", "ImportFrom": "import statements are",
    "Global": "'global' is", "Nonlocal": "'nonlocal' is", "Delete": "'del' is",
    "Break": "'break' is", "Continue": "'continue' is", "Match": "'match' statements are",
    "AsyncFor": "'async for' is", "MatMult": "the @ operator is",
}

# What to write instead, where there is one.
_INSTEAD = {
    "FunctionDef": "define a @tessera.jit function at module level and call it",
    "MatMult": "use tl.dot",
}

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
}

_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


def _has_tensor(value):
    value = _unwrap(value)
    if isinstance(value, (tensor, tensor_descriptor, block_ptr)):
        return True
    if isinstance(value, (tuple, list)):
        return builtins.any(_has_tensor(v) for v in value)
    return False


def _is_number(value):
    return isinstance(value, (bool, int, float))


# Values carried through scf regions: a tensor is one region value, a block
# pointer is several (its base, shape, strides and offsets).
def _leaves(value):
    return value._flatten() if isinstance(value, block_ptr) else [value]


def _flat_handles(values):
    return [t.handle for v in values for t in _leaves(v)]


def _loop_bound(value, gen, node):
    """A range bound as a signed integer tensor: the loop compares signed, so
    an unsigned bound is widened to the type that holds its values, and a
    Python number outside int32 is int64 (not the uint32 a literal would be)."""
    if isinstance(value, int) and -2**63 <= value < 2**63 and not -2**31 <= value < 2**31:
        return tl._cast(tl._to_tensor(value), tl.int64)
    value = tl._to_tensor(value)
    if value.dtype is tl.uint64:
        gen.error(node, "range bounds of type uint64 are not supported: the loop counts in signed "
                        "integers; cast them to tl.int64")
    return tl._widen_unsigned(value)


def _rebuild(templates, handles):
    handles = list(handles)
    out = []
    for t in templates:
        n = len(_leaves(t))
        part, handles = handles[:n], handles[n:]
        out.append(t._unflatten(part) if isinstance(t, block_ptr) else tensor(part[0], t.dtype))
    return out


def _same_carried_type(a, b):
    if isinstance(a, block_ptr) or isinstance(b, block_ptr):
        return (isinstance(a, block_ptr) and a._same_layout(b)
                and [t.handle.type for t in _leaves(a)] == [t.handle.type for t in _leaves(b)])
    # Signedness lives in the dtype only: uint32 and int32 are both i32.
    return a.handle.type == b.handle.type and a.dtype == b.dtype


# ---------------------------------------------------------------------------
# Code generation
# ---------------------------------------------------------------------------


class CodeGenerator(ast.NodeVisitor):
    """Walks one function's body, building IR through tessera.language."""

    def __init__(self, builder, src, scope, jit_fn, used_globals, depth=0):
        self.builder = builder
        self.src = src
        self.scope = scope
        self.jit_fn = jit_fn
        self.globals = jit_fn.fn.__globals__
        self.closure = {}
        code = jit_fn.fn.__code__
        if jit_fn.fn.__closure__:
            for name, cell in zip(code.co_freevars, jit_fn.fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass
        self.used_globals = used_globals
        self.depth = depth
        self.dynamic_depth = 0  # inside scf.if / scf.for / scf.while bodies
        self.loop_depth = 0  # inside loop bodies, unrolled ones included

    # -- locations and errors ------------------------------------------------
    def loc(self, node):
        return self.src.loc(node)

    def error(self, node, message):
        raise CompilationError(message, *self.loc(node))

    def unsupported(self, node, what=None, instead=None):
        kind = type(node).__name__
        what = what or _UNSUPPORTED.get(kind, f"'{kind}' nodes are")
        instead = instead or _INSTEAD.get(kind)
        self.error(node, f"unsupported construct: {what} not supported in a @tessera.jit kernel"
                   f"{'; ' + instead if instead else ''}")

    def visit(self, node):
        previous = _state.loc
        if hasattr(node, "lineno"):
            _state.loc = self.loc(node)
        try:
            return super().visit(node)
        except (CompilationError, _Return):
            raise
        except RecursionError:
            raise
        except Exception as e:  # a Python error inside a builtin: point at this node
            if not hasattr(node, "lineno"):
                raise
            message = str(e) if isinstance(e, (TypeError, ValueError)) else f"{type(e).__name__}: {e}"
            raise CompilationError(message, *self.loc(node)) from e
        finally:
            _state.loc = previous

    def generic_visit(self, node):
        self.unsupported(node)

    def visit_stmts(self, stmts):
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.If) and _contains_return(stmt):
                self.visit(_absorbing(stmt, stmts[i + 1:]))
                return
            if isinstance(stmt, ast.For) and _contains_return(stmt):
                iterable = self.loop_iterable(stmt)
                values = self.unrolled_values(stmt, iterable)
                if values is not None:
                    # Written out, so that a return in a dynamic if of one
                    # iteration absorbs the later ones and what follows the
                    # loop (_absorbing), as Triton's unrolling allows.
                    body = [s for v in values for s in [_Bind(stmt.target, v, stmt)] + stmt.body]
                    self.visit_stmts(body + stmts[i + 1:])
                    return
                self.dynamic_for(stmt, iterable)  # which refuses the return, as Triton
                continue
            self.visit(stmt)

    def visit__Bind(self, node):
        self.assign(node.target, node.value)

    # -- statements ------------------------------------------------------------
    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Assign(self, node):
        value = tl._local(_unwrap(self.visit(node.value)))
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        value = _unwrap(self.visit(node.value))
        if not _is_constexpr_annotation(node.annotation):
            value = tl._local(value)
        self.assign(node.target, value)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            self.unsupported(node.target, "assignment to a subscript or attribute is",
                             "tensors are immutable")
        current = self.lookup(node.target.id, node.target)
        rhs = self.visit(node.value)
        _state.loc = self.loc(node)
        self.assign(node.target, self.binary(node.op, current, rhs, node))

    def assign(self, target, value):
        value = _unwrap(value)
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, tensor):
                self.error(target, "cannot unpack a tensor; unpack a tuple of values")
            if not isinstance(value, (tuple, list)):
                self.error(target, f"cannot unpack {tl._describe(value)}")
            if len(value) != len(target.elts):
                self.error(target, f"cannot unpack {len(value)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.assign(t, v)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            self.unsupported(target, "assignment to a subscript or attribute is",
                             "tensors are immutable: use tl.where or tl.store")
        else:
            self.unsupported(target)

    def visit_Return(self, node):
        value = self.visit(node.value) if node.value is not None else None
        if self.dynamic_depth and self.loop_depth:
            self.unsupported(node, "'return' inside a dynamic if, for or while (one whose condition "
                                   "or bounds are tensors) within a loop is",
                             "as in Triton, return from a dynamic branch outside loops only")
        raise _Return(value, node)

    def visit_Assert(self, node):
        test = _unwrap(self.visit(node.test))
        msg = _unwrap(self.visit(node.msg)) if node.msg is not None else ""
        _state.loc = self.loc(node)
        if isinstance(test, tensor):
            tl.device_assert(test, str(msg))
        elif not test:
            self.error(node, "assertion failed" + (f": {msg}" if msg else ""))

    # -- if ------------------------------------------------------------------
    def visit_If(self, node):
        cond = _unwrap(self.visit(node.test))
        if not isinstance(cond, tensor):
            self.visit_stmts(node.body if cond else node.orelse)
            return
        _state.loc = self.loc(node)
        if not cond.shape and cond.dtype is not tl.int1:
            cond = tl._to_bool(cond)
        if getattr(node, "terminal", False):
            self.returning_if(cond, node)
        then_names = _assigned_names(node.body)
        else_names = _assigned_names(node.orelse)
        names = []
        for n in then_names + else_names:
            if n in names:
                continue
            if n in self.scope or (n in then_names and n in else_names):
                names.append(n)
        then_values = {}

        def branch(stmts, is_else):
            saved = dict(self.scope)
            self.dynamic_depth += 1
            try:
                self.visit_stmts(stmts)
            finally:
                self.dynamic_depth -= 1
            _state.loc = self.loc(node)
            out = []
            for n in names:
                value = self.scope.get(n, _MISSING)
                before = saved.get(n, _MISSING)
                peer = then_values.get(n) if is_else else (before if isinstance(before, tensor) else None)
                out.append(self.carried(n, value, peer, node, "if"))
                if is_else and not _same_carried_type(then_values[n], out[-1]):
                    self.error(node, f"variable '{n}' is {then_values[n]!r} after the then branch but "
                                     f"{out[-1]!r} after the else branch; both branches must give it "
                                     "the same type and shape")
                if not is_else:
                    then_values[n] = out[-1]
            self.scope = saved
            return _flat_handles(out)

        has_else = bool(node.orelse) or bool(names)
        results = self.builder.if_then_else(
            cond.handle, lambda: branch(node.body, False),
            (lambda: branch(node.orelse, True)) if has_else else None, self.loc(node))
        for n, v in zip(names, _rebuild([then_values[n] for n in names], results)):
            self.scope[n] = v

    def returning_if(self, cond, node):
        """A dynamic if that absorbed the rest of the function (_absorbing):
        each branch ends in a return, or at the end of the function (None),
        and the if's results are what the function returns."""
        paths = []  # per branch: None (returns nothing) or its returned tensors

        def branch(stmts):
            saved = dict(self.scope)
            self.dynamic_depth += 1
            try:
                self.visit_stmts(stmts)
                value, where = None, node
            except _Return as r:
                value, where = _unwrap(r.value), r.node
            finally:
                self.dynamic_depth -= 1
                self.scope = saved
            if self.loop_depth:
                self.unsupported(where, "'return' inside a dynamic if within a loop is",
                                 "as in Triton, return from a dynamic branch outside loops only")
            _state.loc = self.loc(where)
            paths.append(self.returned_values(value, paths[0] if paths else _MISSING, where))
            return _flat_handles(paths[-1] or [])

        results = self.builder.if_then_else(cond.handle, lambda: branch(node.body),
                                            lambda: branch(node.orelse), self.loc(node))
        if paths[0] is None:
            raise _Return(None, node)
        values = _rebuild(paths[0], results)
        raise _Return(values[0] if paths[0].single else tuple(values), node)

    def returned_values(self, value, first, node):
        """What one path of a returning if returns: None, or its values as
        tensors, numbers typed like those of `first` (the other path's)."""
        if first is not _MISSING and (value is None) != (first is None):
            self.error(node, "one path of this function returns a value and another returns "
                             "nothing")
        if value is None:
            return None
        items = list(value) if isinstance(value, tuple) else [value]
        if first is not _MISSING and len(first) != len(items):
            self.error(node, f"this path returns {len(items)} values, another {len(first)}")
        out = _Returned(single=not isinstance(value, tuple))
        for i, item in enumerate(items):
            peer = None if first is _MISSING else first[i]
            if isinstance(item, block_ptr):
                self.error(node, "a block pointer cannot be returned from a dynamic branch")
            t = self.carried(f"return value #{i}", item, peer, node, "if")
            if peer is not None and not _same_carried_type(peer, t):
                self.error(node, f"this path returns {t!r}, another {peer!r}; every path must "
                                 "return the same types and shapes")
            out.append(t)
        return out

    def carried(self, name, value, peer, node, what):
        """`value` of a variable at the end of a region, as a tensor typed like
        `peer` when it is a Python number."""
        value = _unwrap(value)
        if value is _MISSING:
            self.error(node, f"variable '{name}' is not defined on every path through this {what}")
        if isinstance(value, (tensor, block_ptr)):
            return value
        if isinstance(peer, block_ptr):
            peer = None
        if _is_number(value):
            t = tl._to_tensor(value, peer)
            if peer is not None and t.handle.type != peer.handle.type:
                t = tl._cast(t, peer.dtype)
                if peer.shape:
                    t = tl.broadcast_to(t, peer.shape)
            return t
        self.error(node, f"variable '{name}' holds {tl._describe(value)} and is assigned inside a "
                         f"dynamic {what}; only tensors, numbers and block pointers can change there")

    # -- loops -----------------------------------------------------------------
    def loop_carried(self, body, exclude, node, what):
        names = []
        for n in _assigned_names(body):
            if n in exclude or n not in self.scope:
                continue
            value = _unwrap(self.scope[n])
            if not isinstance(value, (tensor, block_ptr)) and not _is_number(value):
                self.error(node, f"variable '{n}' holds {tl._describe(value)} and is assigned inside a "
                                 f"{what}; only tensors, numbers and block pointers can change in a loop")
            names.append(n)
        inits = [v if isinstance(v, block_ptr) else tl._to_tensor(v)
                 for v in (_unwrap(self.scope[n]) for n in names)]
        return names, inits

    def end_of_body(self, names, inits, node):
        out = []
        for n, init in zip(names, inits):
            peer = None if isinstance(init, block_ptr) else init
            value = self.carried(n, self.scope.get(n, _MISSING), peer, node, "loop")
            if not _same_carried_type(init, value):
                self.error(node, f"loop-carried variable '{n}' is {init!r} before the loop but "
                                 f"{value!r} at the end of its body; a loop must keep each "
                                 "variable's type and shape")
            out.append(value)
        return _flat_handles(out)

    def loop_iterable(self, node):
        if node.orelse:
            self.unsupported(node, "'for ... else' is")
        iterable = _unwrap(self.visit(node.iter))
        _state.loc = self.loc(node)
        return iterable

    def unrolled_values(self, node, iterable):
        """The loop variable's values of a loop unrolled while compiling
        (tl.static_range, a Python range, tuple or list); None for a loop
        that stays one."""
        if isinstance(iterable, tl.static_range):
            bounds = [_unwrap(iterable.start), _unwrap(iterable.end), _unwrap(iterable.step)]
            for b in bounds:
                if isinstance(b, tensor) or not isinstance(b, int):
                    self.error(node.iter, f"tl.static_range bounds must be compile-time integers, "
                                          f"got {tl._describe(b)}")
            return builtins.range(*bounds)
        return iterable if isinstance(iterable, (tuple, list, builtins.range)) else None

    def visit_For(self, node):
        iterable = self.loop_iterable(node)
        values = self.unrolled_values(node, iterable)
        if values is None:
            self.dynamic_for(node, iterable)
            return
        self.loop_depth += 1
        try:
            for value in values:
                self.assign(node.target, value)
                self.visit_stmts(node.body)
        finally:
            self.loop_depth -= 1

    def dynamic_for(self, node, iterable):
        if not isinstance(iterable, tl.range):
            self.error(node.iter, "for loops iterate over range(...), tl.range(...) or "
                                  f"tl.static_range(...), not {tl._describe(iterable)}")
        if not isinstance(node.target, ast.Name):
            self.unsupported(node.target, "a loop variable other than a plain name is")
        lo, hi, step = (_unwrap(v) for v in (iterable.start, iterable.end, iterable.step))
        if isinstance(step, int) and step == 0:
            self.error(node.iter, "range step must not be zero")
        # As Triton: a constant negative step counts up from the end instead,
        # the loop variable taken as start + end - counter.
        descending = isinstance(step, int) and step < 0
        if descending:
            lo, hi, step = hi, lo, -step
        for v in (lo, hi, step):
            if isinstance(v, float) or (isinstance(v, tensor) and not v.dtype.is_int()):
                self.error(node.iter, f"range bounds must be integers, got {tl._describe(v)}")
        lo, hi, step = (_loop_bound(v, self, node.iter) for v in (lo, hi, step))
        target = node.target.id
        names, inits = self.loop_carried(node.body, {target}, node, "for loop")

        def body(iv, args):
            saved = dict(self.scope)
            self.scope[target] = tl._binary("add", tl._binary("sub", hi, tensor(iv)), lo) \
                if descending else tensor(iv)
            for n, v in zip(names, _rebuild(inits, args)):
                self.scope[n] = v
            self.dynamic_depth += 1
            self.loop_depth += 1
            try:
                self.visit_stmts(node.body)
            finally:
                self.dynamic_depth -= 1
                self.loop_depth -= 1
            _state.loc = self.loc(node)
            out = self.end_of_body(names, inits, node)
            self.scope = saved
            return out

        results = self.builder.for_loop(lo.handle, hi.handle, step.handle, _flat_handles(inits),
                                        body, self.loc(node), iterable.flatten,
                                        iterable.warp_specialize, iterable.num_stages)
        for n, v in zip(names, _rebuild(inits, results)):
            self.scope[n] = v

    def visit_While(self, node):
        if node.orelse:
            self.unsupported(node, "'while ... else' is")
        names, inits = self.loop_carried(node.body, set(), node, "while loop")

        def bind(args):
            saved = dict(self.scope)
            for n, v in zip(names, _rebuild(inits, args)):
                self.scope[n] = v
            return saved

        def cond(args):
            saved = bind(args)
            value = _unwrap(self.visit(node.test))
            _state.loc = self.loc(node.test)
            if isinstance(value, tensor) and value.shape:
                self.error(node.test, f"a while condition must be a scalar, got {value!r}")
            value = tl._to_bool(value)
            self.scope = saved
            return value.handle

        def body(args):
            saved = bind(args)
            self.dynamic_depth += 1
            self.loop_depth += 1
            try:
                self.visit_stmts(node.body)
            finally:
                self.dynamic_depth -= 1
                self.loop_depth -= 1
            _state.loc = self.loc(node)
            out = self.end_of_body(names, inits, node)
            self.scope = saved
            return out

        results = self.builder.while_loop(_flat_handles(inits), cond, body, self.loc(node))
        for n, v in zip(names, _rebuild(inits, results)):
            self.scope[n] = v

    # -- expressions -------------------------------------------------------------
    def visit_Constant(self, node):
        return node.value

    def lookup(self, name, node):
        value = self.scope.get(name, _MISSING)
        if value is not _MISSING:
            return value
        for table, is_global in ((self.closure, True), (self.globals, True),
                                 (vars(builtins), False)):
            value = table.get(name, _MISSING)
            if value is _MISSING:
                continue
            if is_global:
                self.note_global(name, value, node)
            return _unwrap(value)
        self.error(node, f"name '{name}' is not defined")

    def note_global(self, name, value, node):
        raw = _unwrap(value)
        if isinstance(raw, (bool, int, float, str, type(None))) or isinstance(raw, tl.dtype):
            self.used_globals[(id(self.globals), name)] = (self.globals, name, value)
        elif isinstance(raw, (tuple, list)):
            self.used_globals[(id(self.globals), name)] = (self.globals, name, tuple(raw))

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def visit_Attribute(self, node):
        value = _unwrap(self.visit(node.value))
        try:
            return _unwrap(getattr(value, node.attr))
        except AttributeError:
            if isinstance(value, tensor):
                self.error(node, f"tensor has no attribute '{node.attr}'")
            name = getattr(value, "__name__", type(value).__name__)
            self.error(node, f"'{name}' has no attribute '{node.attr}'")

    def visit_Tuple(self, node):
        return tuple(self.visit_elements(node.elts))

    def visit_List(self, node):
        return list(self.visit_elements(node.elts))

    def visit_elements(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                value = _unwrap(self.visit(e.value))
                if not isinstance(value, (tuple, list)):
                    self.error(e, f"cannot unpack {tl._describe(value)}")
                out.extend(value)
            else:
                out.append(self.visit(e))
        return out

    def visit_Slice(self, node):
        parts = [None if p is None else _unwrap(self.visit(p)) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def visit_Subscript(self, node):
        value = _unwrap(self.visit(node.value))
        index = self.visit(node.slice)
        _state.loc = self.loc(node)
        if isinstance(value, tensor):
            return value[index]
        if isinstance(index, tensor):
            self.error(node, f"cannot index {tl._describe(value)} with a tensor")
        return _unwrap(value[_unwrap(index)])

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                value = _unwrap(self.visit(v.value))
                if isinstance(value, tensor):
                    self.error(v, "f-strings can only hold compile-time values; pass tensors to "
                                  "tl.device_print")
                spec = self.visit(v.format_spec) if v.format_spec is not None else ""
                if v.conversion == ord("r"):
                    value = repr(value)
                elif v.conversion == ord("s"):
                    value = str(value)
                parts.append(format(value, spec))
        return "".join(parts)

    def binary(self, op, lhs, rhs, node):
        lhs, rhs = _unwrap(lhs), _unwrap(rhs)
        fn = _BINARY.get(type(op))
        if fn is None:
            self.unsupported(node, _UNSUPPORTED.get(type(op).__name__))
        if isinstance(op, ast.Pow) and (isinstance(lhs, tensor) or isinstance(rhs, tensor)):
            self.error(node, "the ** operator is not supported on tensors; use tl.exp2, tl.exp or "
                             "multiplication")
        for v in (lhs, rhs):
            if v is None or isinstance(v, (str, tl.dtype, tuple, list, tensor_descriptor)) or callable(v):
                if isinstance(lhs, tensor) or isinstance(rhs, tensor):
                    symbol = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
                              ast.FloorDiv: "//", ast.Mod: "%", ast.LShift: "<<", ast.RShift: ">>",
                              ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&"}.get(type(op), "?")
                    self.error(node, f"unsupported operand types for {symbol}: "
                                     f"{tl._describe(lhs)} and {tl._describe(rhs)}")
        return fn(lhs, rhs)

    def visit_BinOp(self, node):
        lhs = self.visit(node.left)
        rhs = self.visit(node.right)
        return self.binary(node.op, lhs, rhs, node)

    def visit_UnaryOp(self, node):
        value = _unwrap(self.visit(node.operand))
        if isinstance(node.op, ast.Not):
            if isinstance(value, tensor):
                return value.logical_not()
            return not value
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        if isinstance(node.op, ast.Invert):
            return ~value
        self.unsupported(node)

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        values = []
        for operand in node.values:
            value = _unwrap(self.visit(operand))
            if not isinstance(value, tensor):
                # Python's short circuit for compile-time operands.
                if is_and and not value:
                    return value if not values else False
                if not is_and and value:
                    return value if not values else True
                continue
            values.append(value)
        if not values:
            return _unwrap(self.visit(node.values[-1])) if node.values else None
        _state.loc = self.loc(node)
        result = tl._to_bool(values[0])
        for v in values[1:]:
            result = result.logical_and(v) if is_and else result.logical_or(v)
        return result

    def visit_Compare(self, node):
        left = _unwrap(self.visit(node.left))
        result = None
        for op, comparator in zip(node.ops, node.comparators):
            right = _unwrap(self.visit(comparator))
            _state.loc = self.loc(node)
            if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) and (
                    isinstance(left, tensor) and isinstance(right, tensor)):
                self.error(node, "'is' and 'in' compare compile-time values, not tensors")
            value = _COMPARE[type(op)](left, right)
            if result is None:
                result = value
            elif isinstance(result, tensor) or isinstance(value, tensor):
                result = tl._to_bool(result).logical_and(value)
            else:
                result = result and value
            left = right
        return result

    def visit_IfExp(self, node):
        cond = _unwrap(self.visit(node.test))
        if not isinstance(cond, tensor):
            return self.visit(node.body) if cond else self.visit(node.orelse)
        then_value = self.visit(node.body)
        else_value = self.visit(node.orelse)
        _state.loc = self.loc(node)
        return tl.where(cond, then_value, else_value)

    # -- calls -------------------------------------------------------------------
    def visit_Call(self, node):
        fn = _unwrap(self.visit(node.func))
        args = self.visit_elements(node.args)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                extra = _unwrap(self.visit(kw.value))
                if not isinstance(extra, dict):
                    self.error(kw.value, f"cannot unpack {tl._describe(extra)} as keyword arguments")
                kwargs.update(extra)
            else:
                kwargs[kw.arg] = self.visit(kw.value)
        _state.loc = self.loc(node)
        return self.call(fn, args, kwargs, node)

    def call(self, fn, args, kwargs, node):
        if isinstance(fn, JITFunction):
            return self.inline(fn, args, kwargs, node)
        if fn is tl.reduce or fn is tl.associative_scan:
            return self.combining(fn, args, kwargs, node)
        if fn is builtins.range:
            if kwargs:
                self.error(node, "range() takes no keyword arguments")
            if not 1 <= len(args) <= 3:
                self.error(node, f"range expected 1 to 3 arguments, got {len(args)}")
            return tl.range(*args)
        if fn is builtins.min or fn is builtins.max:
            values = args[0] if len(args) == 1 and isinstance(_unwrap(args[0]), (tuple, list)) else args
            if builtins.any(isinstance(_unwrap(v), tensor) for v in values):
                combine = tl.minimum if fn is builtins.min else tl.maximum
                return functools.reduce(combine, values)
            return fn(*[_unwrap(a) for a in args], **kwargs)
        if fn is builtins.print:
            values = list(args)
            prefix = ""
            if values and isinstance(_unwrap(values[0]), str):
                prefix = _unwrap(values.pop(0))
            if builtins.any(isinstance(_unwrap(v), tensor) for v in values):
                return tl.device_print(prefix + " ", *values)
            return tl.static_print(*([prefix] if prefix else []), *values)
        if fn is builtins.abs and args and isinstance(_unwrap(args[0]), tensor):
            return tl.abs(args[0])
        if fn is builtins.isinstance:
            return fn(*[_unwrap(a) for a in args])
        if fn is builtins.len and len(args) == 1 and isinstance(_unwrap(args[0]), (tuple, list)):
            return len(_unwrap(args[0]))  # a tuple of tensors (a tuple argument) has a length
        if getattr(fn, "_tessera_builtin", False) or isinstance(fn, type) and fn in (
                tl.range, tl.static_range, tl.constexpr):
            return fn(*args, **kwargs)
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, (tensor, tensor_descriptor)):
            return fn(*args, **kwargs)
        if isinstance(fn, tl.dtype):
            self.error(node, f"{fn!r} is not callable; convert with x.to({fn!r})")
        if not callable(fn):
            self.error(node, f"{tl._describe(fn)} is not callable")
        if _has_tensor(list(args) + list(kwargs.values())):
            name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
            self.error(node, f"'{name}' is not a @tessera.jit function, so it cannot take tensors; "
                             "decorate it with @tessera.jit to call it from a kernel")
        # A plain Python function of compile-time values: evaluated now.
        return _unwrap(fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()}))

    def combining(self, fn, args, kwargs, node):
        """tl.reduce / tl.associative_scan, whose combine function (a @jit
        function) is inlined into the op's region."""
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            self.error(node, f"{fn.__name__}(): {e}")
        combine_fn = _unwrap(bound.arguments.get("combine_fn"))
        if isinstance(combine_fn, JITFunction):
            bound.arguments["combine_fn"] = lambda *values: self.inline(combine_fn, values, {}, node)
        elif callable(combine_fn):
            self.error(node, f"{fn.__name__}: the combine function must be a @tessera.jit "
                             f"function, got {tl._describe(combine_fn)}")
        return fn(*bound.args, **bound.kwargs)

    def inline(self, fn, args, kwargs, node):
        if self.depth > 64:
            self.error(node, f"calls to '{fn.__name__}' nest too deeply (recursion is not supported)")
        src = fn.source()
        try:
            bound = fn.signature.bind(*args, **kwargs)
        except TypeError as e:
            self.error(node, f"{fn.__name__}(): {e}")
        bound.apply_defaults()
        scope = {}
        for name, value in bound.arguments.items():
            value = _unwrap(value)
            if name in src.constexprs and isinstance(value, tensor):
                self.error(node, f"argument '{name}' of '{fn.__name__}' is a tl.constexpr, but got "
                                 f"{value!r}")
            scope[name] = value
        gen = CodeGenerator(self.builder, src, scope, fn, self.used_globals, self.depth + 1)
        try:
            gen.visit_stmts(src.tree.body)
        except _Return as r:
            return _unwrap(r.value)
        return None


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------

_NUMPY_KINDS = {("f", 2): tl.float16, ("f", 4): tl.float32, ("f", 8): tl.float64,
                ("i", 1): tl.int8, ("i", 2): tl.int16, ("i", 4): tl.int32, ("i", 8): tl.int64,
                ("u", 1): tl.uint8, ("u", 2): tl.uint16, ("u", 4): tl.uint32, ("u", 8): tl.uint64,
                ("b", 1): tl.int1}
# DLPack type codes: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool, 10 float8_e4m3fn,
# 12 float8_e5m2 (DLPack 1.1; PyTorch's float8 tensors).
_DLPACK_KINDS = {(0, 8): tl.int8, (0, 16): tl.int16, (0, 32): tl.int32, (0, 64): tl.int64,
                 (1, 8): tl.uint8, (1, 16): tl.uint16, (1, 32): tl.uint32, (1, 64): tl.uint64,
                 (2, 16): tl.float16, (2, 32): tl.float32, (2, 64): tl.float64,
                 (4, 16): tl.bfloat16, (6, 8): tl.int1, (10, 8): tl.float8e4nv,
                 (12, 8): tl.float8e5}


class _ArrayArg:
    __slots__ = ("address", "nbytes", "dtype", "keepalive", "device", "buffer", "stream")

    def __init__(self, address, nbytes, dtype, keepalive, device="cpu", buffer=None, stream=0):
        self.address = address
        self.nbytes = nbytes
        self.dtype = dtype
        self.keepalive = keepalive
        self.device = device  # "cpu" (host memory), "cuda:0", "vulkan:0", ...
        self.buffer = buffer  # the _C.DeviceBuffer of a tessera array on a GPU
        self.stream = stream  # PyTorch's current CUDA stream for its tensors; 0: none


# DLPack device types -> Tessera device names.
_DLPACK_DEVICES = {1: "cpu", 3: "cpu", 2: "cuda", 10: "hip", 7: "vulkan", 13: "cuda"}


def _extent(shape, strides, itemsize):
    """Bytes from the first element to the end of the last one."""
    if builtins.any(d == 0 for d in shape):
        return 0
    if builtins.any(s < 0 for s in strides):
        return None
    return builtins.sum((d - 1) * s for d, s in zip(shape, strides)) + itemsize


def _dlpack_device_name(device, device_id):
    name = _DLPACK_DEVICES.get(device, f"DLPack device type {device}")
    return name if name == "cpu" else f"{name}:{device_id}"


def array_device(value):
    """Where an array argument lives, named as launches name devices ("cpu",
    "cuda:0", "vulkan:0", ...); None for a value that is not an array."""
    if isinstance(value, _DeviceArray):
        return value.device if value._data is not None else f"{value.device_type}:{value.device_index}"
    if hasattr(value, "__dlpack_device__"):
        return _dlpack_device_name(*value.__dlpack_device__())
    if isinstance(getattr(value, "__array_interface__", None), dict):
        return "cpu"
    return None


def _array_arg(value, describe):
    if isinstance(value, _DeviceArray):
        dtype = value._float8 or _NUMPY_KINDS[(value._dtype.kind, value.itemsize)]
        if value._data is None:
            return _ArrayArg(value._buffer.address, value.nbytes, dtype, value, array_device(value),
                             buffer=value._buffer)
        data = value._data
        return _ArrayArg(data.ctypes.data, data.nbytes, dtype, value, array_device(value))
    ai = getattr(value, "__array_interface__", None)
    if isinstance(ai, dict):
        typestr = ai["typestr"]
        kind, itemsize = typestr[1], int(typestr[2:])
        dtype = _NUMPY_KINDS.get((kind, itemsize))
        if dtype is None:
            raise TypeError(f"{describe}: arrays of dtype '{typestr}' cannot be passed to a kernel")
        shape = tuple(ai["shape"])
        strides = ai.get("strides")
        if strides is None:
            strides, step = [], itemsize
            for d in reversed(shape):
                strides.insert(0, step)
                step *= d
        if ai.get("offset", 0):
            raise TypeError(f"{describe}: arrays with an offset in __array_interface__ are not supported")
        nbytes = _extent(shape, strides, itemsize)
        if nbytes is None:
            raise TypeError(f"{describe}: arrays with negative strides are not supported; pass a copy")
        return _ArrayArg(ai["data"][0], nbytes, dtype, value)
    if hasattr(value, "__dlpack__"):
        capsule = value.__dlpack__()
        address, shape, strides, (code, bits, lanes), (device, device_id) = _C.dlpack_info(capsule)
        if hasattr(value, "__dlpack_device__"):
            device, device_id = value.__dlpack_device__()
        device_name = _dlpack_device_name(device, device_id)
        dtype = _DLPACK_KINDS.get((code, bits)) if lanes == 1 else None
        if dtype is None:
            raise TypeError(f"{describe}: tensors of DLPack type (code {code}, {bits} bits, {lanes} "
                            "lanes) cannot be passed to a kernel")
        itemsize = bits // 8
        nbytes = _extent(shape, [s * itemsize for s in strides], itemsize)
        if nbytes is None:
            raise TypeError(f"{describe}: tensors with negative strides are not supported")
        stream = _torch_stream(value) if device == 2 else 0
        return _ArrayArg(address, nbytes, dtype, (value, capsule), device_name, stream=stream)
    return None


def _integer_divisibility(value):
    """The divisibility an integer argument is specialized on: 16 as in
    Triton, and 8, where Triton promises nothing: a row of K = 1000 2-byte
    elements is 16-byte aligned, and with 8 known the GPU lowering proves it
    and moves the row 16 bytes at a time."""
    return 16 if value % 16 == 0 else 8 if value % 8 == 0 else 0


def _torch_stream(value):
    """PyTorch's current CUDA stream on a CUDA tensor's device (0 for other
    objects): launches on PyTorch tensors are ordered with PyTorch's work."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(value, torch.Tensor):
        return 0
    return torch.cuda.current_stream(value.device).cuda_stream


def _freeze(value):
    value = _unwrap(value)
    if isinstance(value, list):
        return ("list",) + tuple(_freeze(v) for v in value)
    if isinstance(value, tuple):
        return ("tuple",) + tuple(_freeze(v) for v in value)
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"constexpr value {value!r} is not hashable")
    return (type(value).__name__, value)


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


class CompiledKernel:
    """One specialization of a kernel: its tile module and, on the CPU or a
    GPU device, its code. ``backend``: "interpreter", "cpu", "vulkan", "cuda"
    or "hip"; ``asm``: "tile" and, on a GPU, the device code ("spirv"/"spv",
    "ptx"/"cubin", "amdgcn"/"hsaco")."""

    def __init__(self, name, module, backend, arg_plan, used_globals):
        self.name = name
        self.module = module
        self.backend = backend
        self.arg_plan = arg_plan  # per parameter: None (not passed) or its kind
        self.used_globals = used_globals
        self.cpu_kernel = None
        self.device_kernel = None
        self.asm = {"tile": str(module)}

    def globals_unchanged(self):
        for table, name, value in self.used_globals.values():
            current = table.get(name, _MISSING)
            if isinstance(value, tuple) and isinstance(current, (list, tuple)):
                current = tuple(current)
            if current is not value and current != value:
                return False
        return True

    def launch(self, grid, args, stream=0):
        if self.device_kernel is not None:
            _C.device_launch(self.device_kernel, list(grid) + [1] * (3 - len(grid)), args, stream)
        elif self.backend == "cpu":
            _C.launch_cpu(self.cpu_kernel, grid, args)
        else:
            self.module.run_interpreter(self.name, args, grid)


class JITFunction:
    """A @tessera.jit function: ``fn[grid](*args, **constexprs)`` launches it;
    inside another kernel, calling it inlines it."""

    def __init__(self, fn, do_not_specialize=None):
        self.fn = fn
        functools.update_wrapper(self, fn)
        self.signature = inspect.signature(fn)
        self.params = list(self.signature.parameters.values())
        self.arg_names = [p.name for p in self.params]
        self.do_not_specialize = set()
        for item in do_not_specialize or ():
            self.do_not_specialize.add(self.arg_names[item] if isinstance(item, int) else item)
        self._src = None
        self.cache = {}

    def source(self):
        if self._src is None:
            self._src = _Source(self.fn)
        return self._src

    @property
    def constexprs(self):
        return self.source().constexprs

    def source_digest(self):
        """SHA-256 of what the kernel is made of: its code and, by the names it
        uses, that of the @jit functions it calls and the global constants it
        reads, recursively (comments and layout left out): what a tuning
        record depends on besides its key."""
        parts = []
        self._digest_parts(parts, set())
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def _digest_parts(self, parts, seen):
        if id(self) in seen:
            return
        seen.add(id(self))
        tree = self.source().tree
        parts.append(f"{self.fn.__qualname__}: {ast.dump(tree)}")
        scope = dict(self.fn.__globals__)
        for name, cell in zip(self.fn.__code__.co_freevars, self.fn.__closure__ or ()):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # a free variable not bound yet
                pass
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in scope:
                name, value = node.id, scope[node.id]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    isinstance(scope.get(node.value.id), type(sys)):
                name = f"{node.value.id}.{node.attr}"
                value = getattr(scope[node.value.id], node.attr, None)
            else:
                continue
            while not isinstance(value, JITFunction) and hasattr(value, "fn") and \
                    hasattr(value, "arg_names"):
                value = value.fn  # under @autotune / @heuristics
            value = _unwrap(value)
            if isinstance(value, JITFunction):
                value._digest_parts(parts, seen)
            elif isinstance(value, (bool, int, float, str, tuple, tl.dtype)):
                parts.append(f"{name} = {value!r}")

    def __repr__(self):
        return f"JITFunction({self.fn.__module__}:{self.fn.__qualname__})"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"'{self.__name__}' is a @tessera.jit kernel: launch it with "
                           f"{self.__name__}[grid](...), or call it from inside another kernel")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    # -- binding -----------------------------------------------------------------
    def _argument_error(self, message):
        src = self.source()
        raise ArgumentError(message, *src.loc(src.tree))

    def _describe_params(self):
        src = self.source()
        return ", ".join(n + (": constexpr" if n in src.constexprs else "") for n in self.arg_names)

    def bind(self, args, kwargs):
        """The value of every parameter, by name."""
        n = len(self.arg_names)
        if len(args) > n:
            self._argument_error(f"kernel '{self.__name__}' takes {n} argument{'s' * (n != 1)} "
                                 f"({self._describe_params()}) but {len(args)} were given")
        values = dict(zip(self.arg_names, args))
        for name, value in kwargs.items():
            if name not in self.arg_names:
                self._argument_error(f"kernel '{self.__name__}' got an unexpected keyword argument "
                                     f"'{name}' (parameters: {self._describe_params()})")
            if name in values:
                self._argument_error(f"kernel '{self.__name__}' got multiple values for argument "
                                     f"'{name}'")
            values[name] = value
        missing = []
        for p in self.params:
            if p.name not in values:
                if p.default is inspect.Parameter.empty:
                    missing.append(p.name)
                else:
                    values[p.name] = p.default
        if missing:
            names = ", ".join(f"'{m}'" for m in missing)
            self._argument_error(f"kernel '{self.__name__}' is missing {len(missing)} argument"
                                 f"{'s' * (len(missing) != 1)}: {names} (parameters: "
                                 f"{self._describe_params()})")
        return values

    def specialize(self, values):
        """(key, per-parameter plan, launch arguments, keepalive, device, stream):
        the device ("cpu", "vulkan:0", "cuda:1", ...) the array arguments live
        on and, for PyTorch CUDA tensors, PyTorch's current stream."""
        src = self.source()
        key, plan, launch_args, keep = [], [], [], []
        devices = {}  # device -> the first argument on it
        streams = []
        for name in self.arg_names:
            value = values[name]
            if name in src.constexprs:
                try:
                    key.append(("c", _freeze(value)))
                except TypeError as e:
                    self._argument_error(f"kernel '{self.__name__}': argument '{name}': {e}")
                plan.append(None)
                continue
            entry, part = self._specialize_value(name, _unwrap(value),
                                                 name not in self.do_not_specialize, launch_args,
                                                 keep, devices, streams)
            key.append(entry)
            plan.append(part)
        device = self._check_devices(devices)
        return tuple(key), plan, launch_args, keep, device, next(iter(streams), 0)

    def _specialize_value(self, name, value, specialize, launch_args, keep, devices, streams):
        """The key and plan entries of the argument `value` (of `name`); its
        launch arguments and what they keep alive are appended to those
        lists, the device of an array noted in `devices` and PyTorch's CUDA
        stream in `streams`. A tuple's entries hold those of its items (a
        tl.constexpr item is a compile-time constant, as in Triton)."""
        if value is None:
            return ("none",), ("none",)
        if isinstance(value, bool):
            launch_args.append(("int", int(value)))
            return ("i1",), ("i1", 0, False)
        if isinstance(value, int) or (hasattr(value, "__index__") and not hasattr(value, "__len__")
                                      and type(value).__name__.startswith(("int", "uint"))):
            value = int(value)
            if not -2**63 <= value < 2**64:
                self._argument_error(f"kernel '{self.__name__}': argument '{name}' = {value} does "
                                     "not fit in 64 bits")
            # As Triton: int32, else int64, else (from 2**63) uint64.
            ty = "i32" if -2**31 <= value < 2**31 else "i64" if value < 2**63 else "u64"
            one = specialize and value == 1
            div = _integer_divisibility(value) if specialize else 0
            launch_args.append(("int", value - 2**64 if value >= 2**63 else value))
            return (ty, one, div), (ty, div, one)
        if isinstance(value, float) or type(value).__name__.startswith("float"):
            launch_args.append(("float", float(value)))
            return ("fp32",), ("f32", 0, False)
        if type(value) is tuple:
            entries = []
            for i, item in enumerate(value):
                if isinstance(item, constexpr):
                    try:
                        entries.append((("c", _freeze(item.value)), ("const", item.value)))
                    except TypeError as e:
                        self._argument_error(f"kernel '{self.__name__}': argument '{name}[{i}]': "
                                             f"{e}")
                else:
                    entries.append(self._specialize_value(f"{name}[{i}]", item, specialize,
                                                          launch_args, keep, devices, streams))
            return (("tuple",) + tuple(k for k, _ in entries),
                    ("tuple", tuple(p for _, p in entries)))
        if isinstance(value, TensorDescriptor):
            array, entry = self._descriptor_arg(name, value, specialize)
            launch_args.append(("buf", array.buffer) if array.buffer is not None
                               else ("ptr", array.address, array.nbytes))
            launch_args.extend(("int", v) for v in value.shape + value.strides[:-1])
            key = entry[:1] + (entry[1].name,) + entry[2:]
        else:
            try:
                array = _array_arg(value, f"kernel '{self.__name__}': argument '{name}'")
            except TypeError as e:
                self._argument_error(str(e))
            if array is None:
                self._argument_error(
                    f"kernel '{self.__name__}': argument '{name}' is {tl._describe(value)}; "
                    "pass a NumPy array, a tensor with __dlpack__ (e.g. a CPU torch tensor), an "
                    "int, a float, a bool, or a tuple of those")
            # A Vulkan buffer is bound at offset 0 (address 0 here): aligned.
            div = 16 if specialize and array.address % 16 == 0 else 0
            key, entry = ("*", array.dtype.name, div), ("ptr", div, array.dtype)
            launch_args.append(("buf", array.buffer) if array.buffer is not None
                               else ("ptr", array.address, array.nbytes))
        devices.setdefault(array.device, name)
        keep.append(array.keepalive)
        if array.stream:
            streams.append(array.stream)
        return key, entry

    def _descriptor_arg(self, name, desc, specialize):
        """The base array of host descriptor `desc` (argument `name`), checked
        against the descriptor, and the descriptor's key and plan entry:
        ("desc", element dtype, block shape, padding, per shape entry its
        divisibility, per outer stride its divisibility)."""
        where = f"kernel '{self.__name__}': argument '{name}' (a TensorDescriptor)"
        try:
            desc.validate()
            array = _array_arg(desc.base, f"{where}: its base")
        except (TypeError, ValueError) as e:
            self._argument_error(f"{where}: {e}")
        if array is None:
            self._argument_error(f"{where}: its base is {tl._describe(desc.base)}; pass a NumPy "
                                 "array or a tensor with __dlpack__")
        if array.dtype.primitive_bitwidth // 8 != desc.itemsize:
            self._argument_error(f"{where}: its base's elements are {desc.itemsize} bytes, which "
                                 f"Tessera does not read as {array.dtype!r}")
        if array.address % 16:
            self._argument_error(f"{where}: the base must be 16-byte aligned, its address is "
                                 f"{array.address:#x}")
        if desc.extent_bytes() > array.nbytes:
            self._argument_error(f"{where}: shape {desc.shape} with strides {desc.strides} reaches "
                                 f"{desc.extent_bytes()} bytes past the base, which holds "
                                 f"{array.nbytes}")
        if builtins.any(d >= 2**31 for d in desc.shape):
            self._argument_error(f"{where}: shape {desc.shape} does not fit in int32")
        divisibility = _integer_divisibility if specialize else (lambda v: 0)
        entry = ("desc", array.dtype, tuple(desc.block_shape), desc.padding,
                 tuple(divisibility(d) for d in desc.shape),
                 tuple(divisibility(s) for s in desc.strides[:-1]))
        return array, entry

    def _check_devices(self, devices):
        """The device a kernel runs on: the one all its array arguments live
        on ("cpu" when it takes none), a device Tessera can open."""
        if len(devices) > 1:
            where = ", ".join(f"'{name}' is on {device}" for device, name in devices.items())
            self._argument_error(f"kernel '{self.__name__}': array arguments live on different devices "
                                 f"({where}); copy them to one device")
        if not devices:
            return "cpu"
        (device, name), = devices.items()
        kind = device.split(":")[0]
        if kind not in ("cpu",) + GPU_DEVICES:
            self._argument_error(f"kernel '{self.__name__}': argument '{name}' is on {device}, "
                                 "which Tessera cannot run kernels on")
        if kind != "cpu":
            device_info(device)  # DeviceError "no CUDA device: ..." when it cannot be opened
        return device

    # -- compiling -------------------------------------------------------------
    def compile_for(self, values, plan, backend, device=None, num_warps=_DEFAULT_NUM_WARPS,
                    num_stages=_DEFAULT_NUM_STAGES, fp_fusion=True, maxnreg=0, tma=True,
                    warp_specialize=False):
        """The CompiledKernel of one specialization for ``backend``; for a GPU
        backend, compiled for ``device`` ("cuda:1") with ``num_warps`` warps,
        ``a * b + c`` fused where ``fp_fusion``, at most ``maxnreg``
        registers per thread (0: no cap), host-descriptor blocks loaded and
        stored by TMA where ``tma`` on NVIDIA, and their pipelined loop given
        a producer warpgroup of its own where ``warp_specialize`` too."""
        src = self.source()
        builder = _C.Builder()
        previous = (_state.builder, _state.loc)
        _state.builder, _state.loc = builder, src.loc(src.tree)
        try:
            kernel_args = []
            for p in plan:
                if p is not None:
                    _kernel_arguments(p, builder, kernel_args)
            handles = builder.begin_kernel(self.__name__, kernel_args, src.loc(src.tree))
            scope = {}
            it = iter(handles)
            for name, p in zip(self.arg_names, plan):
                scope[name] = _unwrap(values[name]) if p is None else _parameter(p, it)
            used_globals = {}
            gen = CodeGenerator(builder, src, scope, self, used_globals)
            try:
                gen.visit_stmts(src.tree.body)
            except _Return as r:
                if r.value is not None:
                    raise CompilationError("a kernel cannot return a value; store results through "
                                           "pointers", *src.loc(r.node))
            last = src.tree.body[-1]
            end = (src.file, src.first_line + (getattr(last, "end_lineno", None) or last.lineno) - 1,
                   src.indent + 1)
            module = builder.finish(end)
        finally:
            _state.builder, _state.loc = previous
        compiled = CompiledKernel(self.__name__, module, backend, plan, used_globals)
        if backend == "cpu":
            compiled.cpu_kernel = _C.compile_cpu(module, self.__name__)
        elif backend in GPU_DEVICES:
            kind, _, index = device.partition(":")
            compiled.device_kernel = _C.device_compile(module, self.__name__, kind, int(index or 0),
                                                       num_warps, num_stages, fp_fusion, maxnreg,
                                                       tma, warp_specialize)
            compiled.asm.update(compiled.device_kernel.asm)
        return compiled

    def _lookup(self, args, kwargs, options):
        """(compiled kernel, argument values, launch arguments, keepalive,
        stream) for a launch with these arguments and launch options."""
        values = self.bind(args, kwargs)
        key, plan, launch_args, keep, device, stream = self.specialize(values)
        kind = device.split(":")[0]
        if kind in GPU_DEVICES:
            backend = kind
            num_warps = int(options.get("num_warps") or _DEFAULT_NUM_WARPS)
            num_stages = int(options.get("num_stages") or _DEFAULT_NUM_STAGES)
            fp_fusion = bool(options.get("enable_fp_fusion", True))
            maxnreg = int(options.get("maxnreg") or 0)
            tma = bool(options.get("tma", True))
            warp_specialize = bool(options.get("warp_specialize", False))
            full_key = (device, num_warps, num_stages, fp_fusion, maxnreg, tma, warp_specialize,
                        key)
        else:
            backend = default_backend()
            num_warps, num_stages = _DEFAULT_NUM_WARPS, _DEFAULT_NUM_STAGES
            fp_fusion, maxnreg, tma, warp_specialize = True, 0, False, False
            full_key = (backend, key)
        compiled = self.cache.get(full_key)
        if compiled is None or not compiled.globals_unchanged():
            compiled = self.compile_for(values, plan, backend, device, num_warps, num_stages,
                                        fp_fusion, maxnreg, tma, warp_specialize)
            self.cache[full_key] = compiled
        return compiled, values, launch_args, keep, stream

    def _launch_options(self, kwargs):
        """Takes the launch options out of ``kwargs`` (those that are not
        parameters of the kernel) and returns them."""
        return {option: kwargs.pop(option) for option in _LAUNCH_OPTIONS
                if option in kwargs and option not in self.arg_names}

    def warmup(self, *args, grid=None, **kwargs):
        """Compiles the specialization for these arguments (and launch
        options such as num_warps) without running it."""
        options = self._launch_options(kwargs)
        compiled, _, _, _, _ = self._lookup(args, kwargs, options)
        return compiled

    def ir(self, *args, **kwargs):
        """The tile IR of the specialization for these arguments, as text."""
        return self.warmup(*args, **kwargs).asm["tile"]

    def run(self, *args, grid, **kwargs):
        options = self._launch_options(kwargs)
        compiled, values, launch_args, keep, stream = self._lookup(args, kwargs, options)
        if callable(grid):
            grid = grid(dict(values))
        grid = _normalize_grid(grid, self.__name__)
        compiled.launch(grid, launch_args, stream)
        del keep
        return compiled


def _kernel_arguments(plan, builder, out):
    """The kernel arguments (type, divisibility, equal to 1) of one plan entry."""
    kind = plan[0]
    if kind == "tuple":
        for item in plan[1]:
            _kernel_arguments(item, builder, out)
    elif kind == "ptr":
        out.append((tl.pointer_type(plan[2]).ir_type(builder), plan[1], False))
    elif kind == "desc":
        out.append((tl.pointer_type(plan[1]).ir_type(builder), 16, False))
        out.extend((builder.type("i32"), div, False) for div in plan[4])
        # Every TensorDescriptor's outer strides are multiples of 16 bytes
        # (TensorDescriptor.validate).
        in_16_bytes = 16 // max(1, plan[1].primitive_bitwidth // 8)
        out.extend((builder.type("i64"), max(div, in_16_bytes), False) for div in plan[5])
    elif kind not in ("none", "const"):  # an integer equal to 1 is marked tile.equal_to_1
        out.append((tl._BY_NAME[kind].ir_type(builder), plan[1], bool(plan[2])))


def _parameter(plan, handles):
    """The value a kernel sees for one plan entry, from its kernel arguments."""
    kind = plan[0]
    if kind == "tuple":
        return tuple(_parameter(item, handles) for item in plan[1])
    if kind == "none":
        return None
    if kind == "const":
        return plan[1]
    if kind == "desc":
        return _descriptor_parameter(plan, handles)
    handle = next(handles)
    if kind == "ptr":
        return tensor(handle, tl.pointer_type(plan[2]))
    if plan[2]:  # an integer equal to 1: a compile-time constant
        return 1
    return tensor(handle, tl._BY_NAME[kind])


def _descriptor_parameter(plan, handles):
    """The tl.tensor_descriptor a host TensorDescriptor parameter of `plan`
    becomes, built from its next kernel arguments in `handles`: base, shape,
    outer strides (the innermost is the constant 1)."""
    _, element, block_shape, padding, shape_divs, stride_divs = plan
    base = tensor(next(handles), tl.pointer_type(element))
    shape = [tensor(next(handles)) for _ in shape_divs]
    strides = [tensor(next(handles)) for _ in stride_divs] + [1]
    return tl.make_tensor_descriptor(base, shape, strides, list(block_shape), padding)


def _normalize_grid(grid, name):
    if isinstance(grid, (int,)) or hasattr(grid, "__index__"):
        grid = (grid,)
    try:
        dims = [int(_unwrap(d)) for d in grid]
    except TypeError:
        raise TypeError(f"kernel '{name}': the grid must be a tuple of 1 to 3 integers or a callable "
                        f"returning one, got {grid!r}")
    if not 1 <= len(dims) <= 3:
        raise TypeError(f"kernel '{name}': the grid must have 1 to 3 dimensions, got {len(dims)}")
    return dims


def jit(fn=None, *, do_not_specialize=None, debug=None, noinline=None, repr=None,
        launch_metadata=None):
    """Decorator: compiles a Python function to a tile kernel (see the module doc)."""
    def wrap(f):
        return JITFunction(f, do_not_specialize=do_not_specialize)
    if fn is not None:
        return wrap(fn)
    return wrap
