"""User mistakes: each must raise a CompilationError (never a C++ abort) whose
message is exactly the one expected and which names this file and the line of
the mistake (marked with a `# <- name` comment)."""

import re

import numpy as np
import pytest

import tessera
import tessera.language as tl

with open(__file__) as _f:
    _LINES = _f.read().splitlines()


def line_of(marker):
    """The line number of the line ending in `# <- marker`."""
    hits = [i + 1 for i, text in enumerate(_LINES) if text.rstrip().endswith("# <- " + marker)]
    assert len(hits) == 1, marker
    return hits[0]


def expect_error(launch, message, marker, error=tessera.CompilationError):
    with pytest.raises(error) as info:
        launch()
    e = info.value
    assert e.message == message
    assert e.file == __file__
    assert e.line == line_of(marker)
    # The text names file:line:col, repeats the line and puts a caret under the column.
    first, source, caret = str(e).split("\n")
    assert first == f"{__file__}:{e.line}:{e.col}: error: {message}"
    assert source == _LINES[e.line - 1]
    assert caret == " " * (e.col - 1) + "^"
    return e


X = np.zeros(256, dtype=np.float32)


@tessera.jit
def shape_mismatch(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    y = x + tl.arange(0, 32)  # <- shape
    tl.store(x_ptr + tl.arange(0, 64), y)


def test_shape_mismatch():
    e = expect_error(lambda: shape_mismatch[(1,)](X), "shapes [64] and [32] cannot be broadcast", "shape")
    assert e.col == len("    y = x + ") - 3  # the `x + ...` expression starts at x


@tessera.jit
def integer_out_of_range(out_ptr, n):
    big: tl.constexpr = 0xFFFFFFFFFFFFFF
    x = tl.full((), 32, dtype=tl.int32)
    tl.store(out_ptr, x + big)  # <- range


@tessera.jit
def integer_in_range(out_ptr, n):
    x = tl.full((), 32, dtype=tl.int32)
    tl.store(out_ptr, x ^ 0x7FFFFFFF)
    tl.store(out_ptr + 1, x + (-2**31), mask=n < 2**31 - 1)
    tl.store(out_ptr + 2, 300)  # a stored literal is converted, not checked


def test_integer_operand_out_of_the_tensors_range():
    """As in Triton: a Python integer operand of an int32 tensor outside
    int32's range is an error (it was wrapped to 31 silently); the bounds of
    the range themselves are fine."""
    expect_error(lambda: integer_out_of_range[(1,)](np.zeros(4, np.int32), 4),
                 "integer constant 72057594037927935 is out of range for int32, the type of the "
                 "tensor it is used with; cast one of them", "range")
    out = np.zeros(3, np.int32)
    integer_in_range[(1,)](out, 4)
    np.testing.assert_array_equal(out, [32 ^ 0x7FFFFFFF, 32 - 2**31, 300])


@tessera.jit
def expand_dims_axes(x_ptr, AXES: tl.constexpr):
    t = tl.expand_dims(tl.arange(0, 32), AXES)  # <- axes
    tl.store(x_ptr + tl.arange(0, 32), tl.reshape(t, [32]).to(tl.float32))


def test_expand_dims_axes_out_of_range_or_repeated():
    """As in Triton: an axis outside the result's rank, or one named twice
    (-3 is 0 for a rank-3 result), is an error; they were accepted."""
    expect_error(lambda: expand_dims_axes[(1,)](X, AXES=-3),
                 "expand_dims: axis -3 is out of range for a result of rank 2 (-2 <= axis < 2)",
                 "axes")
    for axes in ((0, 0), (0, -3)):
        expect_error(lambda: expand_dims_axes[(1,)](X, AXES=axes),
                     "expand_dims: duplicate axes [0, 0] (after counting negative ones from the "
                     "end)", "axes")
    out = np.zeros(32, np.float32)
    expand_dims_axes[(1,)](out, AXES=(0, -1))
    np.testing.assert_array_equal(out, np.arange(32))


@tessera.jit
def oversized_tile(x_ptr):
    rows = tl.arange(0, 2048)
    cols = tl.arange(0, 1024)
    tl.store(x_ptr + rows[:, None] * 1024 + cols[None, :], 1.0)  # <- numel


def test_a_tile_over_triton_s_element_limit():
    """Triton refuses tiles of more than 2^20 elements; so does Tessera, at
    the op that makes one (compiling it ran out of memory)."""
    assert tl.MAX_TENSOR_NUMEL == tl.TRITON_MAX_TENSOR_NUMEL == 2**20
    expect_error(lambda: oversized_tile[(1,)](X),
                 "a tile of shape [2048, 1024] holds 2097152 elements, more than the 1048576 a "
                 "tile may hold (Triton's limit too)", "numel")


@tessera.jit
def negative_stages(x_ptr):
    for i in tl.range(0, 4, num_stages=-1):  # <- stages
        tl.store(x_ptr + i, 1.0)


def test_tl_range_num_stages_must_be_a_non_negative_integer():
    expect_error(lambda: negative_stages[(1,)](X),
                 "tl.range's num_stages must be a non-negative integer, got -1", "stages")


@tessera.jit
def unsupported_try(x_ptr):
    try:  # <- try
        tl.store(x_ptr, 1.0)
    except Exception:
        pass


def test_unsupported_statement():
    expect_error(lambda: unsupported_try[(1,)](X),
                 "unsupported construct: 'try' statements are not supported in a @tessera.jit kernel",
                 "try")


@tessera.jit
def unsupported_comprehension(x_ptr):
    offsets = [i for i in range(4)]  # <- listcomp
    tl.store(x_ptr, 1.0)


def test_unsupported_expression():
    expect_error(lambda: unsupported_comprehension[(1,)](X),
                 "unsupported construct: list comprehensions are not supported in a @tessera.jit kernel",
                 "listcomp")


@tessera.jit
def unsupported_break(x_ptr, n):
    for i in range(n):
        break  # <- break


def test_unsupported_break():
    expect_error(lambda: unsupported_break[(1,)](X, 4),
                 "unsupported construct: 'break' is not supported in a @tessera.jit kernel", "break")


@tessera.jit
def unsupported_nested_def(x_ptr):
    def helper(v):  # <- nested def
        return v
    tl.store(x_ptr, helper(1.0))


@tessera.jit
def unsupported_subscript_assignment(x_ptr):
    x = tl.zeros((4,), tl.float32)
    x[0] = 1.0  # <- subscript
    tl.store(x_ptr + tl.arange(0, 4), x)


def test_unsupported_constructs_say_what_to_write_instead():
    expect_error(lambda: unsupported_nested_def[(1,)](X),
                 "unsupported construct: nested function definitions are not supported in a "
                 "@tessera.jit kernel; define a @tessera.jit function at module level and call it",
                 "nested def")
    expect_error(lambda: unsupported_subscript_assignment[(1,)](X),
                 "unsupported construct: assignment to a subscript or attribute is not supported in "
                 "a @tessera.jit kernel; tensors are immutable: use tl.where or tl.store", "subscript")


@tessera.jit
def three_args(x_ptr, n, BLOCK: tl.constexpr):  # <- def
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0, mask=tl.arange(0, BLOCK) < n)


def test_wrong_arg_count():
    e = expect_error(lambda: three_args[(1,)](X, 4, 16, 5),
                     "kernel 'three_args' takes 3 arguments (x_ptr, n, BLOCK: constexpr) but 4 were given",
                     "def", error=tessera.ArgumentError)
    assert isinstance(e, TypeError)
    expect_error(lambda: three_args[(1,)](X, 4),
                 "kernel 'three_args' is missing 1 argument: 'BLOCK' (parameters: x_ptr, n, BLOCK: constexpr)",
                 "def", error=tessera.ArgumentError)
    expect_error(lambda: three_args[(1,)](X, 4, BLOCK=16, BLOK=3),
                 "kernel 'three_args' got an unexpected keyword argument 'BLOK' (parameters: x_ptr, n, "
                 "BLOCK: constexpr)", "def", error=tessera.ArgumentError)


def test_unsupported_argument_type():
    expect_error(lambda: three_args[(1,)]([1.0, 2.0], 4, BLOCK=16),
                 "kernel 'three_args': argument 'x_ptr' is a list [1.0, 2.0]; pass a NumPy array, a tensor "
                 "with __dlpack__ (e.g. a CPU torch tensor), an int, a float, a bool, or a tuple "
                 "of those",
                 "def", error=tessera.ArgumentError)


@tessera.jit
def load_from(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))  # <- float pointer
    tl.store(out_ptr + tl.arange(0, 16), x)


def test_float_used_as_pointer():
    expect_error(lambda: load_from[(1,)](1.5, X),
                 "load needs a pointer or a tile of pointers, got tensor<16xf32>", "float pointer")


@tessera.jit
def undefined_name(x_ptr):
    tl.store(x_ptr, offset)  # <- undefined


def test_undefined_name():
    expect_error(lambda: undefined_name[(1,)](X), "name 'offset' is not defined", "undefined")


@tessera.jit
def runtime_arange(x_ptr, n):
    offs = tl.arange(0, n)  # <- arange runtime
    tl.store(x_ptr + offs, 0.0)


def test_arange_needs_constexpr():
    expect_error(lambda: runtime_arange[(1,)](X, 7),
                 "arange end must be a compile-time integer (a literal or a tl.constexpr), got "
                 "tensor<tl.int32>", "arange runtime")


@tessera.jit
def arange_not_pow2(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)  # <- pow2
    tl.store(x_ptr + offs, 0.0)


def test_arange_power_of_two():
    expect_error(lambda: arange_not_pow2[(1,)](X, BLOCK=100),
                 "arange length must be a power of two, got 100", "pow2")


@tessera.jit
def carried_type_change(x_ptr, n):
    acc = 0
    for i in range(n):  # <- carried
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)


def test_loop_carried_type_change():
    expect_error(lambda: carried_type_change[(1,)](X, 4),
                 "loop-carried variable 'acc' is tensor<tl.int32> before the loop but tensor<tl.float32> "
                 "at the end of its body; a loop must keep each variable's type and shape", "carried")


@tessera.jit
def tile_condition(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    if x > 0:  # <- tile if
        x = x * 2
    tl.store(x_ptr + tl.arange(0, 16), x)


def test_if_on_a_tile():
    expect_error(lambda: tile_condition[(1,)](X),
                 "if needs a scalar boolean condition, got tensor<16xi1>; choose between tiles with where()",
                 "tile if")


def plain_python_helper(x):
    return x * 2


@tessera.jit
def calls_python(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, plain_python_helper(x))  # <- not jit


def test_calling_non_jit_function():
    expect_error(lambda: calls_python[(1,)](X),
                 "'plain_python_helper' is not a @tessera.jit function, so it cannot take tensors; "
                 "decorate it with @tessera.jit to call it from a kernel", "not jit")


@tessera.jit
def static_check(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 16, "BLOCK must be at least 16")  # <- static_assert
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)


def test_static_assert():
    static_check[(1,)](X, BLOCK=16)
    expect_error(lambda: static_check[(1,)](X, BLOCK=8),
                 "static_assert failed: BLOCK must be at least 16", "static_assert")


@tessera.jit
def assumes_a_tile(x_ptr):
    r = tl.arange(0, 16)
    tl.assume(r >= 0)  # <- assume tile
    tl.store(x_ptr + r, 0.0)


def test_assume_needs_a_scalar():
    expect_error(lambda: assumes_a_tile[(1,)](X),
                 "assume needs a boolean scalar condition, got tensor<tl.int1[16]>", "assume tile")


@tessera.jit
def returns_value(x_ptr):
    return tl.load(x_ptr)  # <- return


def test_kernel_returns_value():
    expect_error(lambda: returns_value[(1,)](X),
                 "a kernel cannot return a value; store results through pointers", "return")


@tessera.jit
def bad_dot(x_ptr):
    r = tl.arange(0, 16)
    a = tl.load(x_ptr + r[:, None] * 16 + r[None, :])             # [16, 16]
    b = tl.load(x_ptr + tl.arange(0, 32)[:, None] * 16 + r[None, :])  # [32, 16]
    c = tl.dot(a, b)  # <- dot
    tl.store(x_ptr + r[:, None] * 16 + r[None, :], c)


def test_dot_shape_mismatch():
    expect_error(lambda: bad_dot[(1,)](X),
                 "dot: K of a [16, 16] is 16 but K of b [32, 16] is 32", "dot")


@tessera.jit
def helper_with_mistake(x):
    return x + tl.arange(0, 8)  # <- in helper


@tessera.jit
def calls_helper(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), helper_with_mistake(x))


def test_error_inside_inlined_function():
    expect_error(lambda: calls_helper[(1,)](X), "shapes [16] and [8] cannot be broadcast", "in helper")


@tessera.jit
def store_shape(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.zeros([32], dtype=tl.float32))  # <- store shape


def test_store_shape_mismatch():
    expect_error(lambda: store_shape[(1,)](X),
                 "value of shape [32] does not match pointer tile [16]", "store shape")


@tessera.jit
def bad_attribute(x_ptr):
    tl.stor(x_ptr, 1.0)  # <- attribute


def test_unknown_tl_function():
    expect_error(lambda: bad_attribute[(1,)](X),
                 "'tessera.language' has no attribute 'stor'", "attribute")


@tessera.jit
def return_in_loop(x_ptr, n):
    for i in range(n):
        if i > 3:
            return  # <- early return
        tl.store(x_ptr + i, 1.0)


def test_return_in_a_dynamic_branch_within_a_loop():
    expect_error(lambda: return_in_loop[(1,)](X, 5),
                 "unsupported construct: 'return' inside a dynamic if, for or while (one whose "
                 "condition or bounds are tensors) within a loop is not supported in a "
                 "@tessera.jit kernel; as in Triton, return from a dynamic branch outside loops "
                 "only", "early return")


@tessera.jit
def returns_or_not(x):
    if tl.sum(x, 0) > 0:
        return x
    return  # <- returns nothing


@tessera.jit
def uses_returns_or_not(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(x_ptr + tl.arange(0, 4), returns_or_not(x))


def test_paths_that_return_a_value_and_nothing():
    expect_error(lambda: uses_returns_or_not[(1,)](X),
                 "one path of this function returns a value and another returns nothing",
                 "returns nothing")


@tessera.jit
def out_of_bounds(x_ptr):
    tl.store(x_ptr + tl.arange(0, 64), 1.0)  # <- oob


def test_out_of_bounds_on_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    small = np.zeros(10, dtype=np.float32)
    with pytest.raises(tessera.LaunchError) as info:
        out_of_bounds[(1,)](small)
    text = str(info.value)
    assert f"{__file__}:{line_of('oob')}:" in text
    assert re.search(r"out-of-bounds store", text), text


def test_calling_a_kernel_directly():
    with pytest.raises(RuntimeError, match=r"launch it with out_of_bounds\[grid\]"):
        out_of_bounds(X)


def test_builder_errors_are_python_exceptions():
    # The extension itself (without jit) raises CompilationError, not a C++ abort.
    b = tessera._C.Builder()
    loc = ("kernel.py", 3, 7)
    b.begin_kernel("k", [(b.type("i32"), 16, False)], loc)
    with pytest.raises(tessera.CompilationError) as info:
        b.arange(0, 3, loc)
    assert (info.value.file, info.value.line, info.value.col) == loc
    assert info.value.message == "arange length must be a power of two, got 3"
