#ifndef TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD
#define TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesseraNvvmExternDynamicSharedMemory
    : Pass<"tessera-nvvm-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory symbol extern, as PTX requires";
  let description = [{
    `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to an internal,
    zero-sized global in address space 3. The NVPTX backend demotes such a
    global into the kernel as a one-byte static `.shared` variable, so the
    kernel reads the start of static shared memory and overruns the block's
    allocation by up to the alignment. Dynamic shared memory is the PTX
    declaration `.extern .shared .align A .b8 name[]`, which LLVM emits for
    an external global without initializer: this pass gives every zero-sized
    global of address space 3 that linkage, and an alignment of 1024 bytes,
    which the swizzled operands of wgmma (and TMA) assume of their buffers.

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // becomes
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    ```
  }];
}

def TesseraNvvmTensorMapParams
    : Pass<"tessera-nvvm-tensor-map-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass TMA tensor maps by value, as 128-byte grid-constant parameters";
  let description = [{
    A kernel whose last arguments are tensor maps (listed in its
    `tessera.tensor_maps` attribute, lowering/gpu/distribute/TensorMaps.h)
    gets each of them as a `.param .align 64 .b8 [128]` parameter whose
    address the TMA copies take: `llvm.byval` of 128 bytes, aligned to 64,
    and `nvvm.grid_constant`, which lets the kernel take the parameter's
    address (`cvta.param`) without copying it to local memory. Runs after
    `convert-gpu-to-nvvm`, which drops `llvm.byval` from gpu.func arguments.

    ```mlir
    llvm.func @k(%a: !llvm.ptr<1>, %map: !llvm.ptr) attributes {tessera.tensor_maps = [{base = 0 : i64, ...} ]}
    // becomes
    llvm.func @k(%a: !llvm.ptr<1>, %map: !llvm.ptr {llvm.align = 64 : i64,
        llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {...}
    ```
  }];
}

def TesseraNvgpuFloat8LdMatrix
    : Pass<"tessera-nvgpu-float8-ldmatrix", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower nvgpu.ldmatrix of fp8 elements to nvvm.ldmatrix";
  let description = [{
    `convert-nvgpu-to-nvvm` (LLVM 22) lowers an `nvgpu.ldmatrix` whose
    elements are fp8 into an insertion of `vector<4xf8E4M3FN>` words into an
    array of `vector<4xi8>`, which does not verify. ldmatrix moves 32-bit
    words whatever they hold, so this pass, run before it, lowers such a load
    itself: `nvvm.ldmatrix` (b16 matrices, never transposed for 8-bit data) at the
    buffer's address plus the element offset, each returned word bitcast to
    the result's row of fp8 elements. Only 1-D buffers (the distribution's
    shared buffers) are taken; another fp8 `nvgpu.ldmatrix` is an error.

    ```mlir
    %m = nvgpu.ldmatrix %buf[%i] {numTiles = 4 : i32, transpose = false}
        : memref<4096xf8E4M3FN, #gpu.address_space<workgroup>> -> vector<4x4xf8E4M3FN>
    // becomes
    %base = memref.extract_aligned_pointer_as_index %buf : ... -> index
    %ptr = llvm.inttoptr (%base + %i) : i64 to !llvm.ptr<3>
    %words = nvvm.ldmatrix %ptr {num = 4 : i32, layout = #nvvm.mma_layout<row>, ...}
        : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
    // word j: vector.bitcast (vector<1xi32>) -> vector<4xf8E4M3FN>, row j of %m
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TesseraNvvmFloat8Conversions
    : Pass<"tessera-nvvm-float8-conversions", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Convert to and from fp8 with the cvt instructions of sm_89 and later";
  let description = [{
    LLVM has no fp8 types, so `arith.extf` from and `arith.truncf` to
    `f8E4M3FN` and `f8E5M2` have no lowering to LLVM. On a module whose NVVM
    target is sm_89 or later this pass rewrites each (scalar) conversion into
    the pair conversions of PTX: from fp8, `cvt.rn.f16x2.e4m3x2` (or
    `.e5m2x2`) of two bytes, widened with `arith.extf` where f32 or f64 is
    asked; to fp8, `cvt.rn.satfinite.e4m3x2.f32` of two values (as f32: f16
    and bf16 widen exactly, f64 rounds once to f32 first). Each conversion
    is paired with the next of the same direction and fp8 type in its block
    whose operand is already available (a tile's registers, converted in
    order); one left without a partner converts its value twice. As in
    Triton, values beyond the type's range saturate to its largest finite
    value. Conversions between fp8 and integers (`arith.sitofp` to fp8,
    which canonicalization makes of `truncf(sitofp)`, `arith.fptosi` from
    it, and the unsigned forms) go through f32. On an older target a
    conversion is an error at its place.

    ```mlir
    %y = arith.truncf %x : f32 to f8E4M3FN
    %z = arith.truncf %w : f32 to f8E4M3FN
    // becomes
    %p = nvvm.convert.f32x2.to.f8x2 %w, %x {rnd = #nvvm.fp_rnd_mode<rn>,
        sat = #nvvm.sat_mode<satfinite>} : i16 (f8E4M3FN)
    %bytes = llvm.bitcast %p : i16 to vector<2xi8>
    %y = arith.bitcast (vector.extract %bytes[0]) : i8 to f8E4M3FN
    %z = arith.bitcast (vector.extract %bytes[1]) : i8 to f8E4M3FN
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

def TesseraNvvmByteToFloat : Pass<"tessera-nvvm-byte-to-float"> {
  let summary = "Convert 8-bit integers to f16, bf16 and f32 with byte permutes, not I2F";
  let description = [{
    `arith.sitofp` and `arith.uitofp` of an i8 become `I2F` in SASS, which
    issues at a quarter of the rate of ordinary arithmetic: a weight-only
    quantized GEMM, which widens its int8 B in the K loop (`tl.dot(a,
    b.to(tl.float16))`), spends as long converting as its tensor cores do
    multiplying. This pass rewrites each scalar conversion of an i8 to f16,
    bf16 or f32 into a `prmt` that places the byte in the significand of a
    float whose exponent makes it count units (0x64XX is the f16 1024 + XX,
    0x4B0000XX the f32 2^23 + XX) and one subtraction of that bias. A signed
    byte is first offset by 128 (its sign bit flipped, one `xor` for the
    four bytes of a word), the bias is 128 more. The results are exact.
    f16 conversions go in neighbouring pairs, as the fp8 ones do: one
    `prmt` and one `sub.f16x2` for two values. bf16 ones are made as f32
    and packed two at a time by a `prmt` of their high halves (exact: an
    8-bit integer needs no more of bf16's 8 significand bits); with
    `bf16-subtraction` (sm_90 and later), signed ones two at a time as the
    difference of two masks of bf16 0x43XX: 128 + the low 7 bits, less 128
    or, where the sign bit is set, 256. A byte
    extracted from a vector (a tile's registers, loaded 4 to 16 at a time)
    is permuted straight out of its 32-bit lane. The pass runs on any op
    (the NVIDIA pipeline runs it on each `gpu.module`), so that a test can
    run its output on the host with a model of `prmt`.

    ```mlir
    %x = vector.extract %bytes[0] : i8 from vector<4xi8>
    %y = vector.extract %bytes[1] : i8 from vector<4xi8>
    %a = arith.sitofp %x : i8 to f16
    %b = arith.sitofp %y : i8 to f16
    // becomes
    %word = vector.extract (vector.bitcast %bytes : vector<4xi8> to vector<1xi32>)[0]
    %offset = arith.xori %word, 0x80808080
    %pair = nvvm.prmt #nvvm.permute_mode<default> %offset, 0x64646464, 0x4140
    %values = arith.subf (llvm.bitcast %pair : i32 to vector<2xf16>), dense<1152.0>
    // %a, %b: vector.extract %values[0], [1]
    ```
  }];
  let options = [
    Option<"bf16Subtraction", "bf16-subtraction", "bool", /*default=*/"false",
           "Signed bytes to bf16 by sub.bf16x2, which sm_90 and later have">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif // TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD
