// Loads, stores, atomics, tensor descriptors and device-side debugging.
#ifndef TESSERA_LANG_MEMORY_H
#define TESSERA_LANG_MEMORY_H

#include "lang/Ops.h"

namespace tessera::lang {

using frontend::AtomicKind;
using frontend::MemoryHints;
using tile::CacheModifier;
using tile::EvictionPolicy;
using tile::MemScope;
using tile::MemSemantic;
using tile::PaddingOption;

/// A pointer handle: a scalar pointer or a tile of pointers.
template <class P>
concept PointerHandle = IsPtr<P>::value || (IsTile<P>::value && IsPtr<ElementOf<P>>::value);

/// The element type P points to.
template <PointerHandle P> using PointeeOf = typename ElementOf<P>::pointee_type;

/// What loading through P gives: Ptr<T> -> Scalar<T>, Tile<Ptr<T>> -> Tile<T>.
template <PointerHandle P>
using Loaded = HandleOf<PointeeOf<P>, IsTile<P>::value>;

/// Reads what `ptrs` point to. Lanes where `mask` is false read nothing and
/// give `other`; the mask broadcasts to the shape of `ptrs`.
template <PointerHandle P>
Loaded<P> load(const P &ptrs, const OptionalValue &mask = {}, const OptionalValue &other = {},
               const MemoryHints &hints = {}, SrcLoc loc = SrcLoc::current()) {
  mlir::Value ptr = ptrs.value();
  return Loaded<P>(detail::builder(loc).load(ptr, mask.get({}, loc),
                                             other.get(detail::pointeeOf(ptr), loc), hints,
                                             detail::here(loc)));
}

/// Writes `value` (converted to the pointee type, broadcast to the shape of
/// `ptrs`) where `mask` holds.
template <PointerHandle P, Operand V>
void store(const P &ptrs, const V &value, const OptionalValue &mask = {},
           const MemoryHints &hints = {}, SrcLoc loc = SrcLoc::current()) {
  mlir::Value ptr = ptrs.value();
  detail::builder(loc).store(ptr, detail::valueAs<PointeeOf<P>>(value, loc), mask.get({}, loc),
                             hints, detail::here(loc));
}

// Atomic read-modify-writes; each returns the old values.
#define TESSERA_ATOMIC(NAME, KIND)                                                          \
  template <PointerHandle P, Operand V>                                                     \
  Loaded<P> NAME(const P &ptrs, const V &value, const OptionalValue &mask = {},             \
                 MemSemantic sem = MemSemantic::AcqRel, MemScope scope = MemScope::GPU,     \
                 SrcLoc loc = SrcLoc::current()) {                                          \
    mlir::Value ptr = ptrs.value();                                                         \
    return Loaded<P>(detail::builder(loc).atomic(                                           \
        frontend::AtomicKind::KIND, ptr, detail::valueAs<PointeeOf<P>>(value, loc),         \
        mask.get({}, loc), sem, scope, detail::here(loc), detail::signednessOf<PointeeOf<P>>())); \
  }
TESSERA_ATOMIC(atomic_add, Add)
TESSERA_ATOMIC(atomic_max, Max)
TESSERA_ATOMIC(atomic_min, Min)
TESSERA_ATOMIC(atomic_and, And)
TESSERA_ATOMIC(atomic_or, Or)
TESSERA_ATOMIC(atomic_xor, Xor)
TESSERA_ATOMIC(atomic_xchg, Xchg)
#undef TESSERA_ATOMIC

/// Where memory holds `cmp`, writes `value`; returns the old values.
template <PointerHandle P, Operand C, Operand V>
Loaded<P> atomic_cas(const P &ptrs, const C &cmp, const V &value,
                     MemSemantic sem = MemSemantic::AcqRel, MemScope scope = MemScope::GPU,
                     SrcLoc loc = SrcLoc::current()) {
  return Loaded<P>(detail::builder(loc).atomicCas(
      ptrs.value(), detail::valueAs<PointeeOf<P>>(cmp, loc),
      detail::valueAs<PointeeOf<P>>(value, loc), sem, scope, detail::here(loc)));
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

namespace detail {
inline std::vector<mlir::Value> values(const std::vector<IntArg> &args, const SrcLoc &loc) {
  std::vector<mlir::Value> result;
  for (const IntArg &arg : args)
    result.push_back(arg.get(loc));
  return result;
}
} // namespace detail

/// A strided tensor in global memory, read and written one block at a time.
template <Element T> class TensorDescriptor : public Handle {
public:
  explicit TensorDescriptor(mlir::Value value) : Handle(value) {}

  std::vector<int64_t> block_shape() const {
    auto type = llvm::cast<tile::TensorDescType>(value_.getType());
    return {type.getBlockType().getShape().begin(), type.getBlockType().getShape().end()};
  }

  /// The block at element `offsets`; out-of-bounds elements read as the
  /// descriptor's padding (zero, or NaN with PaddingOption::NaN).
  Tile<T> load(const std::vector<IntArg> &offsets, SrcLoc loc = SrcLoc::current()) const {
    return Tile<T>(detail::builder(loc).descriptorLoad(value_, detail::values(offsets, loc),
                                                       detail::here(loc)));
  }

  /// Writes `block` at element `offsets`; out-of-bounds elements are dropped.
  template <Operand V>
  void store(const std::vector<IntArg> &offsets, const V &block,
             SrcLoc loc = SrcLoc::current()) const {
    detail::builder(loc).descriptorStore(value_, detail::values(offsets, loc),
                                         detail::valueAs<T>(block, loc), detail::here(loc));
  }

  /// Atomically combines `block` into the in-bounds elements of the block at
  /// `offsets` (relaxed, as Triton's TMA reductions).
  template <Operand V>
  void atomic(AtomicKind kind, const std::vector<IntArg> &offsets, const V &block,
              SrcLoc loc = SrcLoc::current()) const {
    detail::builder(loc).descriptorAtomic(kind, value_, detail::values(offsets, loc),
                                          detail::valueAs<T>(block, loc), detail::here(loc),
                                          detail::signednessOf<T>());
  }
  template <Operand V>
  void atomic_add(const std::vector<IntArg> &offsets, const V &block,
                  SrcLoc loc = SrcLoc::current()) const {
    atomic(AtomicKind::Add, offsets, block, loc);
  }

  /// Of a 2-D descriptor whose block is one row: rows `rows` from `column`
  /// on, [rows, block columns], the padding outside the shape.
  Tile<T> gather(const Tile<int32_t> &rows, const IntArg &column,
                 SrcLoc loc = SrcLoc::current()) const {
    return Tile<T>(detail::builder(loc).descriptorGather(value_, rows.value(), column.get(loc),
                                                         detail::here(loc)));
  }
  /// Writes row i of `block` to row rows[i] from `column` on, where inside.
  template <Operand V>
  void scatter(const V &block, const Tile<int32_t> &rows, const IntArg &column,
               SrcLoc loc = SrcLoc::current()) const {
    detail::builder(loc).descriptorScatter(value_, detail::valueAs<T>(block, loc), rows.value(),
                                           column.get(loc), detail::here(loc));
  }
};

template <Element T>
TensorDescriptor<T> make_tensor_descriptor(const Ptr<T> &base, const std::vector<IntArg> &shape,
                                           const std::vector<IntArg> &strides,
                                           const std::vector<int64_t> &block_shape,
                                           PaddingOption padding = PaddingOption::Zero,
                                           SrcLoc loc = SrcLoc::current()) {
  return TensorDescriptor<T>(detail::builder(loc).makeTensorDescriptor(
      base.value(), detail::values(shape, loc), detail::values(strides, loc), block_shape, padding,
      detail::here(loc)));
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

/// Prints `prefix` and the values from every program.
inline void device_print(const std::string &prefix, const std::vector<OptionalValue> &values,
                         bool hex = false, SrcLoc loc = SrcLoc::current()) {
  std::vector<mlir::Value> traced;
  llvm::SmallVector<bool> isUnsigned;
  for (const OptionalValue &value : values) {
    traced.push_back(value.get({}, loc));
    isUnsigned.push_back(value.isUnsigned());
  }
  detail::builder(loc).print(prefix, traced, hex, detail::here(loc), isUnsigned);
}

/// Stops the kernel with `message` where `cond` is false.
template <Operand C>
  requires std::is_same_v<ElementOf<C>, bool>
void device_assert(const C &cond, const std::string &message, SrcLoc loc = SrcLoc::current()) {
  detail::builder(loc).assertTrue(detail::toValue(cond, {}, loc), message, detail::here(loc));
}

/// Promises that the boolean scalar `cond` holds: `assume(pid_n >= 0)` lets
/// the compiler prove `(pid_n * BN + arange(0, BN)) % N` contiguous without
/// a run-time check. A false assumption is undefined behaviour.
inline void assume(const Bool &cond, SrcLoc loc = SrcLoc::current()) {
  detail::builder(loc).assume(cond.value(), detail::here(loc));
}

/// Promises that the first value of every aligned group along the last
/// dimension of `x` (a whole row, or the runs max_contiguous names) is a
/// multiple of `value`; Triton's tl.multiple_of. A false promise is
/// undefined behaviour.
template <Element T>
Tile<T> multiple_of(const Tile<T> &x, int64_t value, SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).hint(x.value(), value, {}, {}, detail::here(loc)));
}
/// Promises aligned runs of `value` consecutive values along the last dimension.
template <Element T>
Tile<T> max_contiguous(const Tile<T> &x, int64_t value, SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).hint(x.value(), {}, value, {}, detail::here(loc)));
}
/// Promises aligned runs of `value` equal values along the last dimension.
template <Element T>
Tile<T> max_constancy(const Tile<T> &x, int64_t value, SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).hint(x.value(), {}, {}, value, detail::here(loc)));
}

/// Waits until every thread of the program arrives, with the global and
/// shared memory accesses each made before visible to all after it.
inline void debug_barrier(SrcLoc loc = SrcLoc::current()) {
  detail::builder(loc).debugBarrier(detail::here(loc));
}

} // namespace tessera::lang

#endif // TESSERA_LANG_MEMORY_H
