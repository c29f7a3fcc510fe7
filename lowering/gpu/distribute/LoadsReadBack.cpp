#include "lowering/gpu/distribute/LoadsReadBack.h"

#include "lowering/gpu/distribute/SharedMemory.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace tessera::gpu {

bool readsLoadsBack(const GpuTarget &target, ReadBackLoads mode) {
  return mode == ReadBackLoads::Always ||
         (mode == ReadBackLoads::WithCpAsync && target.hasCpAsync());
}

bool isPositiveZero(Value value) {
  if (auto splat = value.getDefiningOp<tile::SplatOp>())
    value = splat.getSrc();
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  if (auto elements = dyn_cast<SplatElementsAttr>(attr))
    attr = elements.getSplatValue<Attribute>();
  if (auto floatAttr = dyn_cast<FloatAttr>(attr))
    return floatAttr.getValue().isPosZero();
  if (auto intAttr = dyn_cast<IntegerAttr>(attr))
    return intAttr.getValue().isZero();
  return false;
}

bool fillsWithZero(Operation *load) {
  if (auto pointerLoad = dyn_cast<tile::LoadOp>(load))
    return !pointerLoad.getOther() || isPositiveZero(pointerLoad.getOther());
  auto make = cast<tile::DescriptorLoadOp>(load).getDesc().getDefiningOp<tile::MakeTensorDescOp>();
  return make && make.getPadding() == tile::PaddingOption::Zero;
}

bool canReadBack(tile::LoadOp load) {
  if (load.getIsVolatile() || !fillsWithZero(load) || load->use_empty())
    return false;
  auto type = dyn_cast<RankedTensorType>(load.getResult().getType());
  return type && type.getRank() != 0 && type.getElementType().isIntOrFloat() &&
         sharedElementType(type.getElementType()) == type.getElementType();
}

Value pointerArgument(Value pointer) {
  Value found;
  SmallVector<Value> worklist{pointer};
  llvm::DenseSet<Value> seen;
  auto followLoop = [&](scf::ForOp loop, unsigned index) {
    worklist.push_back(loop.getInitArgs()[index]);
    worklist.push_back(loop.getBody()->getTerminator()->getOperand(index));
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<tile::FuncOp>(owner)) {
        if (found && found != value)
          return {};
        found = value;
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(owner);
      if (!loop || arg == loop.getInductionVar())
        return {};
      followLoop(loop, arg.getArgNumber() - 1);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (isa<tile::AddPtrOp, tile::SplatOp, tile::BroadcastOp, tile::ExpandDimsOp, tile::ReshapeOp,
            tile::TransOp>(def)) {
      worklist.push_back(def->getOperand(0));
    } else if (auto select = dyn_cast<arith::SelectOp>(def)) {
      worklist.push_back(select.getTrueValue());
      worklist.push_back(select.getFalseValue());
    } else if (auto branch = dyn_cast<scf::IfOp>(def)) {
      unsigned index = cast<OpResult>(value).getResultNumber();
      worklist.push_back(branch.thenYield().getOperand(index));
      worklist.push_back(branch.elseYield().getOperand(index));
    } else if (auto loop = dyn_cast<scf::ForOp>(def)) {
      followLoop(loop, cast<OpResult>(value).getResultNumber());
    } else {
      return {};
    }
  }
  return found;
}

std::optional<llvm::SmallPtrSet<Value, 2>> writtenArguments(Block *body) {
  llvm::SmallPtrSet<Value, 2> written;
  WalkResult walked = body->walk([&](Operation *op) {
    Value pointer;
    if (auto store = dyn_cast<tile::StoreOp>(op))
      pointer = store.getPtr();
    else if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op))
      pointer = atomic.getPtr();
    else if (auto atomic = dyn_cast<tile::AtomicCASOp>(op))
      pointer = atomic.getPtr();
    else if (isa<tile::PrintOp, tile::AssertOp, tile::AssumeOp>(op) || op->getNumRegions() ||
             isMemoryEffectFree(op))
      return WalkResult::advance();
    else if (auto effects = dyn_cast<MemoryEffectOpInterface>(op);
             effects && !effects.hasEffect<MemoryEffects::Write>())
      return WalkResult::advance();
    Value argument = pointer ? pointerArgument(pointer) : Value();
    if (!argument)
      return WalkResult::interrupt();
    written.insert(argument);
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return std::nullopt;
  return written;
}

SmallVector<tile::LoadOp> loadsReadBack(Block *body) {
  SmallVector<tile::LoadOp> loads;
  std::optional<llvm::SmallPtrSet<Value, 2>> written = writtenArguments(body);
  if (!written)
    return loads;
  for (auto load : body->getOps<tile::LoadOp>()) {
    Value read = pointerArgument(load.getPtr());
    if (canReadBack(load) && read && !written->contains(read))
      loads.push_back(load);
  }
  return loads;
}

} // namespace tessera::gpu
