#include "runtime/interpreter/Memory.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace tessera::interp {

int32_t Memory::addBuffer(void *data, uint64_t bytes, unsigned argument) {
  buffers.push_back({static_cast<uint8_t *>(data), bytes, argument});
  return static_cast<int32_t>(buffers.size() - 1);
}

Element Memory::pointerTo(int32_t id) const {
  Element pointer;
  pointer.buffer = id;
  return pointer;
}

Element Memory::pointerFromAddress(uint64_t address) const {
  Element pointer;
  pointer.bits = address;
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    auto base = reinterpret_cast<uint64_t>(buffer.data);
    if (address >= base && address <= base + buffer.bytes) {
      pointer.buffer = static_cast<int32_t>(id);
      pointer.bits = address - base;
      break;
    }
  }
  return pointer;
}

uint64_t Memory::addressOf(const Element &pointer) const {
  if (pointer.buffer == Element::kNoBuffer)
    return pointer.bits;
  return reinterpret_cast<uint64_t>(buffers[pointer.buffer].data) + pointer.bits;
}

static const char *accessName(AccessKind kind) {
  switch (kind) {
  case AccessKind::Load:
    return "load";
  case AccessKind::Store:
    return "store";
  case AccessKind::Atomic:
    return "atomic";
  }
  llvm_unreachable("unknown access kind");
}

llvm::Expected<uint8_t *> Memory::locate(const Element &pointer, unsigned bytes, AccessKind kind,
                                         int64_t lane) const {
  const char *verb = kind == AccessKind::Store ? "writes" : "reads";
  if (pointer.buffer == Element::kNoBuffer)
    return llvm::createStringError(llvm::formatv(
        "out-of-bounds {0}: lane {1} {2} address {3} outside every buffer argument",
        accessName(kind), lane, verb, llvm::format_hex(pointer.bits, 18)));
  const Buffer &buffer = buffers[pointer.buffer];
  int64_t offset = pointer.offset();
  if (offset < 0 || static_cast<uint64_t>(offset) + bytes > buffer.bytes)
    return llvm::createStringError(llvm::formatv(
        "out-of-bounds {0}: lane {1} {2} byte offset {3} of argument #{4} ({5} bytes)",
        accessName(kind), lane, verb, offset, buffer.argument, buffer.bytes));
  return buffer.data + offset;
}

llvm::Expected<Element> Memory::load(const Element &pointer, mlir::Type type, AccessKind kind,
                                     int64_t lane) const {
  unsigned bytes = storageBytes(type);
  llvm::Expected<uint8_t *> address = locate(pointer, bytes, kind, lane);
  if (!address)
    return address.takeError();
  // Little-endian hosts only, as are all of Tessera's targets.
  uint64_t bits = 0;
  std::memcpy(&bits, *address, bytes);
  return fromBits(bits, type);
}

llvm::Error Memory::store(const Element &pointer, mlir::Type type, const Element &value,
                          AccessKind kind, int64_t lane) const {
  unsigned bytes = storageBytes(type);
  llvm::Expected<uint8_t *> address = locate(pointer, bytes, kind, lane);
  if (!address)
    return address.takeError();
  uint64_t bits = toBits(value, type);
  std::memcpy(*address, &bits, bytes);
  return llvm::Error::success();
}

} // namespace tessera::interp
