#include "lowering/gpu/distribute/StageCopies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tessera::gpu::pipelining {

namespace {

/// Where a copy puts each run of a load's registers in a stage: the stage
/// index of the run starting at register `first`, the rest of the run after
/// it.
using StageIndexOf = function_ref<Value(OpBuilder &, unsigned first)>;

/// The cp.async copies of a load's runs of `width` registers (4, 8 or 16
/// bytes) into a stage, at `at`; runs not proved aligned and wholly in or
/// out of their mask, or not proved consecutive, check that at run time and
/// copy element by element where it fails. Registers `skip` names are copies of others.
void copyRuns(KernelLowering &k, OpBuilder &builder, Location loc,
              const LoadAccesses &load, unsigned width, unsigned registers,
              const SharedOperand &stage, StageIndexOf at,
              function_ref<bool(unsigned)> skip) {
  int64_t elementBytes = load.element.getIntOrFloatBitWidth() / 8;
  int64_t runBytes = width * elementBytes;
  auto fill = [&](unsigned first) {
    return [&load, first](OpBuilder &, unsigned i) { return load.fillOf(first + i); };
  };
  // Runs the analysis proved aligned and wholly in or out of their mask
  // (sub-runs of a proved run are too) need no run-time check but their
  // endpoints' where those are in question; nor do runs of a descriptor
  // block proved aligned, whose copies take the elements inside the shape
  // and zero-fill the rest.
  bool aligned = load.runs.provedAligned && load.runs.width % width == 0;
  bool proved = (aligned && load.runs.provedWhole()) ||
                (load.rows && load.rows->startAlignment % runBytes == 0);
  Value address = proved || aligned
                      ? Value()
                      : memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, load.base);
  // A copy narrower than the run (a transposing copy of 4-byte elements)
  // and the elements of the fallback below address from the run's endpoints
  // where its addresses allow: one or two offsets per run of memory stay live
  // across the loop, not one per access.
  auto offsetOf = [&](OpBuilder &b, unsigned reg) {
    return accessInRun(b, loc, load.accesses, load.runs, reg).offset;
  };
  for (unsigned first = 0; first < registers; first += width) {
    if (skip(first))
      continue;
    Value runAt = at(builder, first);
    ArrayRef<ElementAccess> run = ArrayRef(load.accesses).slice(first, width);
    Value offset = offsetOf(builder, first);
    // Its token is unused: groups are closed and waited for with
    // cp.async.commit_group / wait_group, across loop iterations.
    auto copyRun = [&](OpBuilder &b, Value srcElements) {
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), stage.buffer, ValueRange{runAt},
          load.base, ValueRange{offset}, b.getIndexAttr(width), srcElements,
          runBytes == 16 ? b.getUnitAttr() : UnitAttr());
    };
    // Copies `width` elements where `in` holds, else zero-fills.
    auto elementsWhere = [&](Value in) -> Value {
      if (!in)
        return Value();
      return arith::SelectOp::create(builder, loc, in, indexConstant(builder, loc, width),
                                     indexConstant(builder, loc, 0));
    };
    auto [inBoundsPrefix, prefixIsAll] =
        load.rows ? leadingElementsInBounds(k, builder, loc, *load.rows, first, width, proved)
                  : std::pair<Value, Value>();
    if (proved) {
      copyRun(builder, load.rows ? inBoundsPrefix : elementsWhere(run.front().condition));
      continue;
    }

    // Aligned, and (under the vector condition) wholly in or out of bounds,
    // or for a descriptor block only aligned.
    Value whole = runAddressesAllowVector(builder, loc, address, elementBytes, load.accesses,
                                          first, width, load.runs);
    Value srcElements = inBoundsPrefix;
    if (aligned) {
      // Only the run's endpoints are left to check.
      srcElements = elementsWhere(run.front().condition);
    } else if (load.rows) {
      whole = arith::AndIOp::create(builder, loc, whole, prefixIsAll);
    } else {
      SmallVector<Value> inBounds, outOfBounds;
      Value one = arith::ConstantIntOp::create(builder, loc, 1, 1);
      for (const ElementAccess &access : run)
        if (access.condition) {
          inBounds.push_back(access.condition);
          outOfBounds.push_back(arith::XOrIOp::create(builder, loc, access.condition, one));
        }
      Value allIn = allOf(builder, loc, inBounds);
      if (allIn)
        whole = arith::AndIOp::create(
            builder, loc, whole,
            arith::OrIOp::create(builder, loc, allIn, allOf(builder, loc, outOfBounds)));
      srcElements = elementsWhere(allIn);
    }
    scf::IfOp::create(
        builder, loc, whole,
        [&](OpBuilder &then, Location loc) {
          copyRun(then, srcElements);
          scf::YieldOp::create(then, loc);
        },
        [&](OpBuilder &orElse, Location loc) {
          SmallVector<ElementAccess> elements(run);
          for (auto [i, access] : llvm::enumerate(elements))
            access.offset = offsetOf(orElse, first + i);
          Registers values = loadElements(orElse, loc, load.base, load.element, elements,
                                          RunAccess{1, RunAddresses::Consecutive, Value()},
                                          fill(first));
          for (auto [i, value] : llvm::enumerate(values))
            memref::StoreOp::create(
                orElse, loc, value, stage.buffer,
                ValueRange{arith::AddIOp::create(orElse, loc, runAt,
                                                 indexConstant(orElse, loc, i))});
          scf::YieldOp::create(orElse, loc);
        });
  }
}

} // namespace

ReadBackPlacement::ReadBackPlacement(const LinearLayout &layout, Type element, unsigned threads)
    : threads_(threads) {
  for (const Basis &basis : layout.registers)
    distinctBits_.push_back(llvm::any_of(basis, [](int64_t x) { return x != 0; }));
  slots_ = 1u << llvm::count(distinctBits_, true);
  unsigned perVector = 16 / (element.getIntOrFloatBitWidth() / 8);
  chunk_ = std::max(1u, std::min(slots_, perVector));
}

unsigned ReadBackPlacement::slotOf(unsigned reg) const {
  unsigned slot = 0, next = 0;
  for (auto [bit, distinct] : llvm::enumerate(distinctBits_))
    if (distinct)
      slot |= ((reg >> bit) & 1u) << next++;
  return slot;
}

Value ReadBackPlacement::threadChunk(KernelLowering &k, OpBuilder &builder, Location loc) const {
  Value thread =
      arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), k.thread.threadId());
  return arith::MulIOp::create(builder, loc, thread, indexConstant(builder, loc, chunk_));
}

Value ReadBackPlacement::index(OpBuilder &builder, Location loc, Value start, Value threadChunk,
                               unsigned slot) const {
  int64_t offset = (slot / chunk_) * static_cast<int64_t>(threads_ * chunk_) + slot % chunk_;
  return arith::AddIOp::create(
      builder, loc, start,
      arith::AddIOp::create(builder, loc, threadChunk, indexConstant(builder, loc, offset)));
}

void copyToStage(KernelLowering &k, OpBuilder &builder, Location loc,
                 const LoadAccesses &load, const DotPlan &plan, DotOperand slot,
                 const OperandSource &source, const SharedOperand &stage, bool async,
                 RunPlaces &runPlaces) {
  const LinearLayout &layout = source.layout;
  // cp.async copies runs that are contiguous in memory too: runs along the
  // source's rows.
  SharedRuns shared = plan.sharedRuns(slot, source);
  unsigned width = shared.stride == 1 ? std::min(load.runs.width, shared.width) : 1;
  int64_t runBytes = width * load.element.getIntOrFloatBitWidth() / 8;
  if (!async || (runBytes != 4 && runBytes != 8 && runBytes != 16)) {
    Registers regs = loadElements(builder, loc, load.base, load.element, load.accesses,
                                  load.runs,
                                  [&](OpBuilder &, unsigned i) { return load.fillOf(i); });
    storeOperandToShared(k, builder, loc, plan, slot, source, regs, stage);
    return;
  }
  auto places = runPlaces.find(width);
  if (places == runPlaces.end()) {
    SmallVector<SharedRunPlace> found =
        plan.sharedRunPlaces(builder.getContext(), slot, source, SharedRuns{width, 1});
    places = runPlaces.try_emplace(width, std::move(found)).first;
  }
  SharedRunIndices indices(k, plan, slot, source, SharedRuns{width, 1}, stage.start,
                           places->second);
  copyRuns(
      k, builder, loc, load, width, layout.numRegisters(), stage,
      [&](OpBuilder &b, unsigned first) { return indices.at(b, loc, first); },
      [&](unsigned first) { return layout.isDuplicateRegister(first); });
}

void copyToReadBackStage(KernelLowering &k, OpBuilder &builder, Location loc,
                         const LoadAccesses &load, const LinearLayout &layout,
                         const SharedOperand &stage, unsigned threads, bool async) {
  ReadBackPlacement placement(layout, load.element, threads);
  Value threadChunk = placement.threadChunk(k, builder, loc);
  auto at = [&](OpBuilder &b, unsigned reg) {
    return placement.index(b, loc, stage.start, threadChunk, placement.slotOf(reg));
  };
  auto repeats = [&](unsigned reg) { return layout.isDuplicateRegister(reg); };
  unsigned width = std::min(load.runs.width, placement.chunk());
  int64_t runBytes = width * load.element.getIntOrFloatBitWidth() / 8;
  if (!async || (runBytes != 4 && runBytes != 8 && runBytes != 16)) {
    Registers regs = loadElements(builder, loc, load.base, load.element, load.accesses,
                                  load.runs,
                                  [&](OpBuilder &, unsigned i) { return load.fillOf(i); });
    for (auto [reg, value] : llvm::enumerate(regs))
      if (!repeats(reg))
        memref::StoreOp::create(builder, loc, value, stage.buffer, ValueRange{at(builder, reg)});
    return;
  }
  copyRuns(k, builder, loc, load, width, layout.numRegisters(), stage, at, repeats);
}

Registers readBackFromStage(KernelLowering &k, OpBuilder &builder, Location loc,
                            const LinearLayout &layout, Type element,
                            const SharedOperand &stage, unsigned threads) {
  ReadBackPlacement placement(layout, element, threads);
  Value threadChunk = placement.threadChunk(k, builder, loc);
  unsigned chunk = placement.chunk();
  SmallVector<Value> slots;
  if (chunk == 1 || !k.target.hasVectorAccesses()) {
    for (unsigned slot = 0; slot < placement.slots(); ++slot)
      slots.push_back(memref::LoadOp::create(
          builder, loc, stage.buffer,
          ValueRange{placement.index(builder, loc, stage.start, threadChunk, slot)}));
  } else {
    // Chunks start at multiples of their size, the ring at 16 bytes.
    auto type = VectorType::get({chunk}, element);
    llvm::MaybeAlign alignment(chunk * element.getIntOrFloatBitWidth() / 8);
    for (unsigned first = 0; first < placement.slots(); first += chunk) {
      Value at = placement.index(builder, loc, stage.start, threadChunk, first);
      Value values = vector::LoadOp::create(builder, loc, type, stage.buffer, ValueRange{at},
                                            /*nontemporal=*/false, alignment);
      for (unsigned i = 0; i < chunk; ++i)
        slots.push_back(vector::ExtractOp::create(builder, loc, values, i));
    }
  }
  Registers regs;
  for (unsigned reg = 0; reg < layout.numRegisters(); ++reg)
    regs.push_back(slots[placement.slotOf(reg)]);
  return regs;
}

} // namespace tessera::gpu::pipelining
