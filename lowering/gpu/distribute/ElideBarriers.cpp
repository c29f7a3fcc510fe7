// tile-gpu-elide-barriers: the barrier that ends a user of shared memory
// (SharedMemory::endUser) goes where no shared-memory access after it
// overlaps one before it, one of the two a write. Triton's membar analysis
// inserts barriers by the same rule; the distribution ends every user with
// one, and this pass takes out those that order nothing: the last user's
// before the kernel's end, and those between users of different bytes.
//
// The bytes of an access: a view of dynamic shared memory at a constant
// offset covers its own, a workgroup attribution all of its own, anything
// else that may touch shared memory (asm without kAsmTouchesNoSharedMemory,
// pointers that may be shared, ops that declare no effects) all of it. The
// accesses before a barrier are those on the paths back to the barriers
// before it, the accesses after it those up to the barriers after it: a
// loop's body runs again after its end and before its start, a branch goes
// on after its `scf.if`. A barrier nested in an op that the walk passes
// stops nothing (it may not run), so the sets only grow. Barriers are
// decided one after the other on the IR as it is then, so an access that
// lost one barrier is checked again at the next.
#include "lowering/gpu/DistributedFormAttrs.h"
#include "lowering/gpu/distribute/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"

#include <limits>

namespace tessera::gpu {
#define GEN_PASS_DEF_TILEGPUELIDEBARRIERS
#include "lowering/gpu/distribute/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;

namespace tessera::gpu {
namespace {

/// The shared-memory bytes an access may touch.
struct Footprint {
  enum class Region { Everything, DynamicMemory, Attribution };
  Region region = Region::Everything;
  Value attribution;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();

  bool overlaps(const Footprint &other) const {
    if (region == Region::Everything || other.region == Region::Everything)
      return true;
    return region == other.region && attribution == other.attribution && begin < other.end &&
           other.begin < end;
  }
};

struct Access {
  Footprint bytes;
  bool writes = true;
};

/// Whether LLVM address space `number` may be shared memory: not global,
/// constant or private memory by NVVM's and AMDGPU's numbers (0 is generic).
bool mayBeShared(int64_t number) { return !llvm::is_contained({1, 4, 5}, number); }

/// Whether memory of `space` may be shared memory: not the default (global)
/// space, nor global or private memory by name or number.
bool mayBeShared(Attribute space) {
  if (!space)
    return false;
  if (auto gpuSpace = dyn_cast<mlir::gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == mlir::gpu::AddressSpace::Workgroup;
  if (auto number = dyn_cast<IntegerAttr>(space))
    return mayBeShared(number.getInt());
  return true;
}

Footprint footprintOf(Value memref) {
  Footprint bytes;
  if (auto view = memref.getDefiningOp<memref::ViewOp>()) {
    MemRefType type = view.getType();
    std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
    if (view.getSource().getDefiningOp<mlir::gpu::DynamicSharedMemoryOp>() && shift &&
        type.hasStaticShape() && type.getElementType().isIntOrFloat()) {
      bytes.region = Footprint::Region::DynamicMemory;
      bytes.begin = *shift;
      bytes.end = *shift + type.getNumElements() *
                               int64_t(llvm::divideCeil(type.getElementTypeBitWidth(), 8));
      return bytes;
    }
  }
  if (auto view = memref.getDefiningOp<ViewLikeOpInterface>()) {
    // Some part of the source: all of it.
    Footprint source = footprintOf(view.getViewSource());
    return {source.region, source.attribution};
  }
  if (memref.getDefiningOp<mlir::gpu::DynamicSharedMemoryOp>()) {
    bytes.region = Footprint::Region::DynamicMemory;
    return bytes;
  }
  if (auto argument = dyn_cast<BlockArgument>(memref))
    if (auto func = dyn_cast<mlir::gpu::GPUFuncOp>(argument.getOwner()->getParentOp()))
      if (llvm::is_contained(func.getWorkgroupAttributions(), argument)) {
        bytes.region = Footprint::Region::Attribution;
        bytes.attribution = argument;
      }
  return bytes;
}

/// Whether `call` is of an intrinsic that LLVM declares to touch no memory
/// that a program may reach (math such as llvm.nvvm.div.full).
bool touchesNoMemory(LLVM::CallIntrinsicOp call, llvm::LLVMContext &context) {
  llvm::Intrinsic::ID id = llvm::Intrinsic::lookupIntrinsicID(call.getIntrin());
  if (id == llvm::Intrinsic::not_intrinsic)
    return false;
  llvm::MemoryEffects effects = llvm::Intrinsic::getFnAttributes(context, id).getMemoryEffects();
  return effects.onlyAccessesInaccessibleMem();
}

/// The shared-memory accesses of ops.
class SharedAccesses {
public:
  explicit SharedAccesses(Operation *root) {
    llvm::LLVMContext context;
    root->walk([&](LLVM::CallIntrinsicOp call) {
      if (touchesNoMemory(call, context))
        memoryFreeCalls_.insert(call);
    });
  }

  /// Those of `op` and of the ops nested in it.
  void collect(Operation *op, SmallVectorImpl<Access> &accesses) const {
    if (isa<mlir::gpu::BarrierOp>(op) || op->hasAttr(kAsmTouchesNoSharedMemory) ||
        memoryFreeCalls_.contains(op))
      return;
    bool recursive = op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
    if (recursive)
      for (Region &region : op->getRegions())
        for (Operation &nested : region.getOps())
          collect(&nested, accesses);
    auto effecting = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effecting) {
      if (!recursive)
        accesses.push_back({});
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    effecting.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      bool writes = isa<MemoryEffects::Write>(effect.getEffect());
      if (!writes && !isa<MemoryEffects::Read>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value) {
        accesses.push_back({Footprint(), writes});
        continue;
      }
      if (auto type = dyn_cast<MemRefType>(value.getType())) {
        if (mayBeShared(type.getMemorySpace()))
          accesses.push_back({footprintOf(value), writes});
        continue;
      }
      if (auto pointer = dyn_cast<LLVM::LLVMPointerType>(value.getType()))
        if (!mayBeShared(pointer.getAddressSpace()))
          continue;
      accesses.push_back({Footprint(), writes});
    }
  }

private:
  llvm::DenseSet<Operation *> memoryFreeCalls_;
};

bool isLoop(Operation *op) { return isa<scf::ForOp, scf::ForallOp, scf::ParallelOp>(op); }
bool isBranch(Operation *op) {
  return isa<scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp>(op);
}

/// The accesses on the paths from a barrier to the barriers that may run
/// next (forward) or may have run last (backward).
class AccessesBetweenBarriers {
public:
  AccessesBetweenBarriers(const SharedAccesses &shared, bool forward)
      : shared_(shared), forward_(forward) {}

  /// Those from `op` on, not counting it.
  void from(Operation *op) {
    if (!throughBlock(next(op)))
      return;
    if (!op->getParentRegion()->hasOneBlock()) {
      // Unstructured control flow (not what the distribution makes): the
      // paths leave the block, to anything.
      accesses_.push_back({});
      return;
    }
    Operation *parent = op->getParentOp();
    if (isa<mlir::gpu::GPUFuncOp>(parent))
      return;
    if (isLoop(parent)) {
      // Another iteration, or none.
      Block &body = parent->getRegion(0).front();
      throughBlock(forward_ ? &body.front() : &body.back());
    } else if (!isBranch(parent)) {
      // scf.while and anything unknown: any of it may run again.
      shared_.collect(parent, accesses_);
    }
    from(parent);
  }

  const SmallVector<Access> &get() const { return accesses_; }

private:
  Operation *next(Operation *op) const { return forward_ ? op->getNextNode() : op->getPrevNode(); }

  /// The ops from `op` to a barrier of its block; whether the block's end
  /// (its start, backward) came first.
  bool throughBlock(Operation *op) {
    for (; op; op = next(op)) {
      if (isa<mlir::gpu::BarrierOp>(op))
        return false;
      shared_.collect(op, accesses_);
    }
    return true;
  }

  const SharedAccesses &shared_;
  bool forward_;
  SmallVector<Access> accesses_;
};

bool conflict(ArrayRef<Access> before, ArrayRef<Access> after) {
  for (const Access &earlier : before)
    for (const Access &later : after)
      if ((earlier.writes || later.writes) && earlier.bytes.overlaps(later.bytes))
        return true;
  return false;
}

struct ElideBarriers : impl::TileGpuElideBarriersBase<ElideBarriers> {
  void runOnOperation() override {
    SmallVector<mlir::gpu::BarrierOp> barriers;
    SmallVector<Operation *> markedAsm;
    getOperation().walk([&](Operation *op) {
      if (op->hasAttr(kAsmTouchesNoSharedMemory))
        markedAsm.push_back(op);
      auto barrier = dyn_cast<mlir::gpu::BarrierOp>(op);
      if (barrier && barrier->hasAttr(kBarrierEndsSharedMemoryUser))
        barriers.push_back(barrier);
    });
    if (!barriers.empty())
      elide(barriers);
    for (Operation *assembly : markedAsm)
      assembly->removeAttr(kAsmTouchesNoSharedMemory);
  }

  void elide(ArrayRef<mlir::gpu::BarrierOp> barriers) {
    SharedAccesses shared(getOperation());
    for (mlir::gpu::BarrierOp barrier : barriers) {
      AccessesBetweenBarriers after(shared, /*forward=*/true);
      after.from(barrier);
      AccessesBetweenBarriers before(shared, /*forward=*/false);
      if (!after.get().empty())
        before.from(barrier);
      if (conflict(before.get(), after.get()))
        barrier->removeAttr(kBarrierEndsSharedMemoryUser);
      else
        barrier.erase();
    }
  }
};

} // namespace
} // namespace tessera::gpu
