// The buffers a kernel may touch, and bounds-checked access to them through
// interpreter pointers.
#ifndef TESSERA_RUNTIME_INTERPRETER_MEMORY_H
#define TESSERA_RUNTIME_INTERPRETER_MEMORY_H

#include "runtime/interpreter/Value.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tessera::interp {

enum class AccessKind { Load, Store, Atomic };

/// The memory of one launch: the buffers passed as kernel arguments. Pointers
/// name their buffer, so every access is checked against the buffer the
/// pointer was derived from, not merely against any mapped memory.
class Memory {
public:
  /// Registers the buffer of kernel argument `argument`; returns its id.
  int32_t addBuffer(void *data, uint64_t bytes, unsigned argument);

  /// A pointer to the start of buffer `id`.
  Element pointerTo(int32_t id) const;
  /// The pointer for a raw address: into the buffer that holds it (or ends
  /// at it), or a pointer to no buffer that every access refuses.
  Element pointerFromAddress(uint64_t address) const;
  uint64_t addressOf(const Element &pointer) const;

  /// Where `bytes` bytes at `pointer` live. An access that leaves the buffer
  /// is an error that names the lane, the offset and the argument, e.g.
  /// "out-of-bounds load: lane 37 reads byte offset 4096 of argument #0 (4096 bytes)".
  llvm::Expected<uint8_t *> locate(const Element &pointer, unsigned bytes, AccessKind kind,
                                   int64_t lane) const;

  llvm::Expected<Element> load(const Element &pointer, mlir::Type type, AccessKind kind,
                               int64_t lane) const;
  llvm::Error store(const Element &pointer, mlir::Type type, const Element &value,
                    AccessKind kind, int64_t lane) const;

private:
  struct Buffer {
    uint8_t *data;
    uint64_t bytes;
    unsigned argument;
  };
  std::vector<Buffer> buffers;
};

} // namespace tessera::interp

#endif // TESSERA_RUNTIME_INTERPRETER_MEMORY_H
