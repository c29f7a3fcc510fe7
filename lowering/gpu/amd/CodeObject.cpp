#include "lowering/gpu/amd/CodeObject.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace tessera::gpu::amd {

namespace {

llvm::Error malformed(const llvm::Twine &why) {
  return llvm::createStringError("malformed AMDGPU code object: " + why);
}

std::optional<int64_t> integerOf(const llvm::msgpack::DocNode &node) {
  if (node.isEmpty())
    return std::nullopt;
  if (node.getKind() == llvm::msgpack::Type::Int)
    return node.getInt();
  if (node.getKind() == llvm::msgpack::Type::UInt)
    return static_cast<int64_t>(node.getUInt());
  return std::nullopt;
}

/// The value of `key` in `map`, or an empty node.
llvm::msgpack::DocNode lookup(llvm::msgpack::DocNode &map, llvm::StringRef key) {
  if (!map.isMap())
    return {};
  llvm::msgpack::MapDocNode entries = map.getMap();
  auto it = entries.find(key);
  return it == entries.end() ? llvm::msgpack::DocNode() : it->second;
}

std::string stringOf(llvm::msgpack::DocNode node) {
  return node.isString() ? node.getString().str() : std::string();
}

int intOr(llvm::msgpack::DocNode node, int fallback = -1) {
  std::optional<int64_t> value = integerOf(node);
  return value ? static_cast<int>(*value) : fallback;
}

KernelMetadata readKernel(llvm::msgpack::DocNode &entry) {
  KernelMetadata kernel;
  kernel.name = stringOf(lookup(entry, ".name"));
  kernel.symbol = stringOf(lookup(entry, ".symbol"));
  kernel.vgprCount = intOr(lookup(entry, ".vgpr_count"));
  kernel.agprCount = intOr(lookup(entry, ".agpr_count"));
  kernel.sgprCount = intOr(lookup(entry, ".sgpr_count"));
  kernel.vgprSpillCount = intOr(lookup(entry, ".vgpr_spill_count"));
  kernel.sgprSpillCount = intOr(lookup(entry, ".sgpr_spill_count"));
  kernel.groupSegmentBytes = integerOf(lookup(entry, ".group_segment_fixed_size")).value_or(-1);
  kernel.privateSegmentBytes =
      integerOf(lookup(entry, ".private_segment_fixed_size")).value_or(-1);
  kernel.kernargSegmentBytes = integerOf(lookup(entry, ".kernarg_segment_size")).value_or(-1);
  kernel.wavefrontSize = intOr(lookup(entry, ".wavefront_size"));
  kernel.maxFlatWorkgroupSize = intOr(lookup(entry, ".max_flat_workgroup_size"));
  llvm::msgpack::DocNode args = lookup(entry, ".args");
  if (args.isArray()) {
    for (llvm::msgpack::DocNode &arg : args.getArray()) {
      std::string kind = stringOf(lookup(arg, ".value_kind"));
      if (llvm::StringRef(kind).starts_with("hidden_"))
        continue;
      kernel.arguments.push_back({kind,
                                  uint64_t(integerOf(lookup(arg, ".offset")).value_or(0)),
                                  uint64_t(integerOf(lookup(arg, ".size")).value_or(0))});
    }
  }
  return kernel;
}

llvm::Error readMetadataNote(llvm::ArrayRef<uint8_t> desc, CodeObject &object) {
  llvm::msgpack::Document document;
  if (!document.readFromBlob(llvm::StringRef(reinterpret_cast<const char *>(desc.data()),
                                             desc.size()),
                             /*Multi=*/false))
    return malformed("the NT_AMDGPU_METADATA note is not MessagePack");
  llvm::raw_string_ostream yaml(object.metadataYaml);
  document.toYAML(yaml);

  llvm::msgpack::DocNode &root = document.getRoot();
  object.targetId = stringOf(lookup(root, "amdhsa.target"));
  llvm::msgpack::DocNode version = lookup(root, "amdhsa.version");
  if (version.isArray() && version.getArray().size() == 2)
    object.metadataVersion =
        intOr(version.getArray()[0], 0) * 100 + intOr(version.getArray()[1], 0);
  llvm::msgpack::DocNode kernels = lookup(root, "amdhsa.kernels");
  if (!kernels.isArray())
    return malformed("its metadata has no amdhsa.kernels list");
  for (llvm::msgpack::DocNode &entry : kernels.getArray())
    object.kernels.push_back(readKernel(entry));
  return llvm::Error::success();
}

} // namespace

ResourceUsage KernelMetadata::resourceUsage() const {
  ResourceUsage usage;
  usage.registers = vgprCount;
  usage.scalarRegisters = sgprCount;
  usage.sharedMemoryBytes = static_cast<int>(groupSegmentBytes);
  usage.stackFrameBytes = static_cast<int>(privateSegmentBytes);
  if (vgprSpillCount >= 0) {
    usage.spillStoreBytes = vgprSpillCount * 4;
    usage.spillLoadBytes = vgprSpillCount * 4;
  }
  return usage;
}

const KernelMetadata *CodeObject::findKernel(llvm::StringRef name) const {
  for (const KernelMetadata &kernel : kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

llvm::Expected<CodeObject> readCodeObject(llvm::ArrayRef<uint8_t> elf) {
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(elf.data()), elf.size()), "code object");
  auto file = llvm::object::ELF64LEObjectFile::create(buffer);
  if (!file)
    return malformed(llvm::toString(file.takeError()));
  if (file->getArch() != llvm::Triple::amdgcn)
    return malformed("not an AMDGPU (amdgcn) ELF file");

  CodeObject object;
  if (std::optional<llvm::StringRef> cpu = file->tryGetCPUName())
    object.chip = cpu->str();

  for (const llvm::object::ELFSymbolRef &symbol : file->symbols()) {
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!name || !flags) {
      llvm::consumeError(name.takeError());
      llvm::consumeError(flags.takeError());
      return malformed("unreadable symbol table");
    }
    if (name->empty())
      continue;
    if (*flags & llvm::object::SymbolRef::SF_Undefined)
      object.undefinedSymbols.push_back(name->str());
    else
      object.definedSymbols.push_back(name->str());
  }

  const llvm::object::ELF64LEFile &elfFile = file->getELFFile();
  // ELFABIVERSION_AMDGPU_HSA_V4 is 2, and so on.
  object.codeObjectVersion = elfFile.getHeader().e_ident[llvm::ELF::EI_ABIVERSION] + 2;
  auto sections = elfFile.sections();
  if (!sections)
    return malformed(llvm::toString(sections.takeError()));
  bool foundMetadata = false;
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error noteError = llvm::Error::success();
    for (const auto &note : elfFile.notes(section, noteError)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      if (llvm::Error error = readMetadataNote(note.getDesc(section.sh_addralign), object))
        return std::move(error);
      foundMetadata = true;
    }
    if (noteError)
      return malformed(llvm::toString(std::move(noteError)));
  }
  if (!foundMetadata)
    return malformed("no NT_AMDGPU_METADATA note");
  return object;
}

} // namespace tessera::gpu::amd
