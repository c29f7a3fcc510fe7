#include "lowering/gpu/distribute/TensorMapStores.h"

#include "lowering/gpu/InlinePtx.h"
#include "lowering/gpu/distribute/ConstantTerms.h"
#include "lowering/gpu/distribute/ElementAccess.h"
#include "lowering/gpu/distribute/MatrixStores.h"
#include "lowering/gpu/distribute/TensorMaps.h"
#include "lowering/gpu/tensorcore/Wgmma.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

constexpr int64_t kChunkBytes = 16;
/// Panels of `swizzleBytes` lines start on the swizzle's repeat of 8 lines.
constexpr int64_t kLinesPerRepeat = 8;

/// Elements of the shared buffer a TMA store writes `piecePanels` of
/// `panels`' panels into at a time.
int64_t pieceElements(const SwizzledPanels &panels, int64_t piecePanels) {
  return piecePanels * panels.panelBytes() / panels.elementBytes;
}

/// Bytes that buffer starts on: the swizzle's repeat.
int64_t pieceAlignment(const SwizzledPanels &panels) {
  return kLinesPerRepeat * panels.swizzleBytes;
}

/// Whether every thread holds the same panels of a block in `layout` in a
/// register (its lane and warp bases move less than a panel along a row):
/// then a register's panel is a constant.
bool panelsPerRegister(const LinearLayout &layout, const SwizzledPanels &panels) {
  auto withinAPanel = [&](const Basis &basis) { return basis[1] < panels.panelElements(); };
  return llvm::all_of(layout.lanes, withinAPanel) && llvm::all_of(layout.warps, withinAPanel);
}

/// Writes this thread's registers of a block in `layout` that fall in
/// panels [firstPanel, firstPanel + piece.panels) into the panels at
/// `buffer` (`piece`: those panels alone): with stmatrix where the layout
/// holds its fragments, else one vector store per run of the layout (within
/// a 16-byte chunk, which the swizzle keeps together). A register's panel is
/// known at compile time where the piece is the whole block or
/// panelsPerRegister holds; else each store is predicated on its column.
void writePanels(KernelLowering &k, OpBuilder &builder, Location loc, Value buffer,
                 const LinearLayout &layout, ValueRange registers,
                 const SwizzledPanels &piece, int64_t firstPanel) {
  int64_t firstColumn = firstPanel * piece.panelElements();
  int64_t pieceColumns = piece.panels * piece.panelElements();
  bool knownPanels = layout.shape[1] == pieceColumns || panelsPerRegister(layout, piece);
  auto inPiece = [&](const LinearLayout &placed, unsigned reg) {
    int64_t column = placed.registerOffset(reg)[1];
    return !knownPanels || (column >= firstColumn && column < firstColumn + pieceColumns);
  };
  auto indexOf = [&](const LinearLayout &placed, unsigned reg, Value column) {
    Value index = swizzledPanelIndex(builder, loc, piece,
                                     k.thread.coordinate(builder, loc, placed, reg, 0), column);
    return arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), index);
  };
  // The column in the piece's panels.
  auto columnOf = [&](const LinearLayout &placed, unsigned reg) {
    Value column = k.thread.coordinate(builder, loc, placed, reg, 1);
    if (firstColumn == 0)
      return column;
    return Value(arith::SubIOp::create(builder, loc, column,
                                       i32Constant(builder, loc, firstColumn)));
  };
  std::optional<MatrixStores> matrixStores;
  if (k.target.hasStMatrix() && piece.elementBytes == 2)
    matrixStores = planMatrixStores(layout);
  if (matrixStores && knownPanels && panelsPerRegister(matrixStores->rowStarts, piece)) {
    const LinearLayout &rowStarts = matrixStores->rowStarts;
    storeTileWithMatrixStores(
        builder, loc, buffer, *matrixStores, registers,
        [&](OpBuilder &, Location, unsigned instruction) {
          return indexOf(rowStarts, instruction, columnOf(rowStarts, instruction));
        },
        [&](unsigned instruction) { return inPiece(rowStarts, instruction); });
    return;
  }
  Type element = registers.front().getType();
  unsigned width = std::min<unsigned>(vectorAccessWidth(k.target, layout, element),
                                      kChunkBytes / piece.elementBytes);
  for (unsigned reg = 0; reg < layout.numRegisters(); reg += width) {
    if (layout.isDuplicateRegister(reg) || !inPiece(layout, reg))
      continue;
    Value column = columnOf(layout, reg);
    OpBuilder::InsertionGuard guard(builder);
    if (!knownPanels) {
      // A run lies in one panel: its 16-byte chunk does. Unsigned, a column
      // left of the piece is past it too.
      Value inThisPiece = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, column,
                                                i32Constant(builder, loc, pieceColumns));
      auto branch = scf::IfOp::create(builder, loc, inThisPiece, /*withElseRegion=*/false);
      builder.setInsertionPointToStart(branch.thenBlock());
    }
    Value index = indexOf(layout, reg, column);
    if (width == 1) {
      memref::StoreOp::create(builder, loc, registers[reg], buffer, index);
      continue;
    }
    Value run = vector::FromElementsOp::create(builder, loc, VectorType::get({width}, element),
                                               registers.slice(reg, width));
    vector::StoreOp::create(builder, loc, run, buffer, index);
  }
}

/// The block `store` writes: a conversion's source where the store is the
/// conversion's only user (convertsForTensorStore leaves such a conversion
/// unlowered; where it was lowered, its source holds the same elements).
Value storedBlock(tile::DescriptorStoreOp store) {
  Value block = store.getValue();
  if (auto convert = block.getDefiningOp<ConvertLayoutOp>(); convert && convert->hasOneUse())
    return convert.getSrc();
  return block;
}

/// Whether an op other than `store` and TMA stores (which wait for the
/// copies before theirs) may access memory through `argument` of the kernel
/// (following the values made from it: pointers, descriptors, loop-carried
/// and branch results), or the kernel has ops whose accesses are unknown
/// (inline assembly, library calls with effects).
bool othersMayAccess(KernelLowering &k, tile::DescriptorStoreOp store, BlockArgument argument) {
  llvm::DenseSet<Value> derived;
  SmallVector<Value> worklist;
  auto add = [&](Value value) {
    if (derived.insert(value).second)
      worklist.push_back(value);
  };
  add(argument);
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      auto otherStore = dyn_cast<tile::DescriptorStoreOp>(user);
      // A store TMA can write waits for earlier copies' writes itself,
      // lowered element-wise for want of shared memory too (lowerStore).
      if (user == store || (otherStore && tensorStorePanels(k, otherStore)))
        continue;
      if (isa<tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp,
              tile::DescriptorLoadOp, tile::DescriptorStoreOp, scf::WhileOp>(user))
        return true;
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (OpResult result = loop.getTiedLoopResult(&use)) {
          add(result);
          add(loop.getTiedLoopRegionIterArg(&use));
        }
        continue;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        Operation *parent = yield->getParentOp();
        add(parent->getResult(use.getOperandNumber()));
        if (auto loop = dyn_cast<scf::ForOp>(parent))
          add(loop.getRegionIterArg(use.getOperandNumber()));
        continue;
      }
      for (Value result : user->getResults())
        add(result);
    }
  }
  WalkResult unknown = argument.getOwner()->getParentOp()->walk([](Operation *op) {
    bool effects = isa<tile::InlineAsmElementwiseOp, tile::ExternElementwiseOp>(op) &&
                   !isMemoryEffectFree(op);
    return effects ? WalkResult::interrupt() : WalkResult::advance();
  });
  return unknown.wasInterrupted();
}

/// Whether the copies' writes must be waited for before the kernel goes on:
/// where something after them may read or write what they write (through
/// the same kernel argument; arguments are taken not to overlap, as for
/// Triton's descriptors). Where nothing but the kernel's return follows,
/// its end makes them visible.
bool laterAccessesNeedWrites(KernelLowering &k, tile::DescriptorStoreOp store,
                             const TensorDescriptor &desc) {
  bool endsTheKernel =
      isa<tile::ReturnOp>(store->getNextNode()) && isa<tile::FuncOp>(store->getParentOp());
  if (endsTheKernel)
    return false;
  auto kernel = store->getParentOfType<tile::FuncOp>();
  return othersMayAccess(k, store, kernel.getArgument(desc.hostArguments->base));
}

/// Whether `a` and `b` are the same value, or computed alike by ops without
/// effects from such values (the offsets the front end spells out again for
/// each store), `depth` ops deep.
bool computedAlike(Value a, Value b, unsigned depth = 4) {
  if (a == b)
    return true;
  auto resultA = dyn_cast<OpResult>(a), resultB = dyn_cast<OpResult>(b);
  if (!depth || !resultA || !resultB || resultA.getResultNumber() != resultB.getResultNumber())
    return false;
  Operation *opA = resultA.getOwner(), *opB = resultB.getOwner();
  if (!isMemoryEffectFree(opA) || opA->getNumRegions() != 0)
    return false;
  return OperationEquivalence::isEquivalentTo(
      opA, opB,
      [&](Value x, Value y) { return success(computedAlike(x, y, depth - 1)); },
      [](Value, Value) {}, OperationEquivalence::IgnoreLocations);
}

/// b - a where both are one value plus constants (arith.addi), else nullopt.
std::optional<int64_t> constantDifference(Value a, Value b) {
  auto split = [](Value value) -> std::pair<Value, int64_t> {
    auto [variable, term] = splitConstantTerm(value);
    return {variable, term ? term->getSExtValue() : 0};
  };
  auto [baseA, constantA] = split(a);
  auto [baseB, constantB] = split(b);
  if (!computedAlike(baseA, baseB))
    return std::nullopt;
  return constantB - constantA;
}

/// Whether two stores through one descriptor write blocks that lie apart:
/// their offsets differ by at least the block's extent along some dimension
/// (the halves of a tile's epilogue, Triton's EPILOGUE_SUBTILE).
bool blocksApart(tile::DescriptorStoreOp earlier, tile::DescriptorStoreOp later) {
  if (earlier.getDesc() != later.getDesc())
    return false;
  ArrayRef<int64_t> block = later.getDesc().getType().getBlockType().getShape();
  for (auto [dim, offsets] : llvm::enumerate(llvm::zip(earlier.getOffsets(), later.getOffsets()))) {
    std::optional<int64_t> difference =
        constantDifference(std::get<0>(offsets), std::get<1>(offsets));
    if (difference && std::abs(*difference) >= block[dim])
      return true;
  }
  return false;
}

/// The TMA store right before `store` in its block (nothing but ops without
/// descriptor stores between them) and the bulk groups it committed, the
/// most recent of this thread's when `store` begins.
std::optional<std::pair<tile::DescriptorStoreOp, int64_t>>
tensorStoreJustBefore(KernelLowering &k, tile::DescriptorStoreOp store) {
  for (Operation *op = store->getPrevNode(); op; op = op->getPrevNode()) {
    auto earlier = dyn_cast<tile::DescriptorStoreOp>(op);
    if (earlier) {
      auto groups = k.tensorStoreGroups.find(earlier);
      if (groups == k.tensorStoreGroups.end())
        return std::nullopt;
      return std::pair(earlier, groups->second);
    }
    bool storesWithin =
        op->walk([](tile::DescriptorStoreOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (storesWithin)
      return std::nullopt;
  }
  return std::nullopt;
}

} // namespace

std::optional<SwizzledPanels> tensorStorePanels(KernelLowering &k,
                                                tile::DescriptorStoreOp store) {
  if (!k.tensorMaps)
    return std::nullopt;
  auto blockType = store.getDesc().getType().getBlockType();
  unsigned bits = blockType.getElementTypeBitWidth();
  if (blockType.getRank() != 2 || bits % 8 != 0 || bits > 64)
    return std::nullopt;
  SwizzledPanels panels;
  panels.lines = blockType.getDimSize(0);
  panels.elementBytes = bits / 8;
  int64_t rowBytes = blockType.getDimSize(1) * panels.elementBytes;
  for (int64_t swizzle : {128, 64, 32})
    if (rowBytes % swizzle == 0) {
      panels.swizzleBytes = swizzle;
      break;
    }
  const TensorDescriptor *desc = k.descriptor(store.getDesc());
  if (panels.swizzleBytes == 0 || panels.lines > kMaxTensorMapBox ||
      panels.lines % kLinesPerRepeat != 0 || !hasTensorMap(desc))
    return std::nullopt;
  // TMA writes whole 16-byte chunks of a row: a last extent that may end
  // inside one would have the chunk's rest overwritten (a row's padding, or
  // the next columns of a wider tensor the descriptor views).
  if (desc->lastExtentDivisibility * panels.elementBytes % kChunkBytes != 0)
    return std::nullopt;
  panels.panels = rowBytes / panels.swizzleBytes;
  return panels;
}

std::optional<TensorStorePlan> planTensorStore(KernelLowering &k,
                                               tile::DescriptorStoreOp store) {
  std::optional<SwizzledPanels> panels = tensorStorePanels(k, store);
  if (!panels)
    return std::nullopt;
  if (auto reserved = k.reservedStoreBuffers.find(store); reserved != k.reservedStoreBuffers.end())
    return TensorStorePlan{*panels, reserved->second.piecePanels};
  // The whole block in one buffer where it fits, else halves, quarters...
  // (a persistent GEMM's epilogue beside its rings), each written and
  // copied in turn, as CUTLASS's epilogue stores subtiles.
  Type element =
      sharedElementType(store.getDesc().getType().getBlockType().getElementType());
  auto fits = [&](int64_t piecePanels) {
    return k.shared.fitsNewUser(element, pieceElements(*panels, piecePanels),
                                pieceAlignment(*panels));
  };
  TensorStorePlan plan{*panels, panels->panels};
  while (plan.piecePanels % 2 == 0 && !fits(plan.piecePanels))
    plan.piecePanels /= 2;
  if (!fits(plan.piecePanels))
    return std::nullopt;
  return plan;
}

LogicalResult reserveTensorStoreBuffers(KernelLowering &k, scf::ForOp loop,
                                        int64_t otherUserBytes) {
  SmallVector<tile::DescriptorStoreOp> stores;
  loop.getBody()->walk([&](tile::DescriptorStoreOp store) {
    if (tensorStorePanels(k, store))
      stores.push_back(store);
  });
  if (stores.empty())
    return success();
  // Each in the pieces it would be copied in as a user of its own: more
  // pieces cost more than the wait for the copies' reads.
  SmallVector<int64_t> piecesAsUser;
  for (tile::DescriptorStoreOp store : stores) {
    std::optional<TensorStorePlan> plan = planTensorStore(k, store);
    if (!plan)
      return success();
    piecesAsUser.push_back(plan->piecePanels);
  }
  SharedMemory::Mark mark = k.shared.mark();
  llvm::SmallDenseMap<Operation *, KernelLowering::ReservedStoreBuffer, 2> reserved;
  for (auto [store, pieces] : llvm::zip(stores, piecesAsUser)) {
    std::optional<TensorStorePlan> plan = planTensorStore(k, store);
    if (!plan || plan->piecePanels != pieces) {
      k.shared.cancel(mark);
      return success();
    }
    Type element =
        sharedElementType(store.getDesc().getType().getBlockType().getElementType());
    FailureOr<Value> buffer =
        k.shared.reserve(store, element, pieceElements(plan->panels, plan->piecePanels),
                         pieceAlignment(plan->panels));
    if (failed(buffer))
      return failure();
    reserved[store] = {*buffer, plan->piecePanels};
  }
  if (!k.shared.fitsNewUser(IntegerType::get(loop.getContext(), 8), otherUserBytes,
                            SharedMemory::kMinAlignment)) {
    k.shared.cancel(mark);
    return success();
  }
  k.reservedStoreBuffers.insert(reserved.begin(), reserved.end());
  return success();
}

void releaseTensorStoreBuffers(KernelLowering &k, scf::ForOp loop, OpBuilder &builder,
                               Location loc) {
  bool reserved = false;
  loop.getBody()->walk([&](tile::DescriptorStoreOp store) {
    reserved |= k.reservedStoreBuffers.erase(store);
  });
  if (reserved)
    inlinePtx(builder, loc, {}, {}, "cp.async.bulk.wait_group.read 0;", "");
}

void placeConversionsAtTheirStores(tile::FuncOp kernel) {
  kernel.walk([](tile::DescriptorStoreOp store) {
    auto convert = store.getValue().getDefiningOp<ConvertLayoutOp>();
    if (convert && convert->hasOneUse() && convert->getBlock() == store->getBlock())
      convert->moveBefore(store);
  });
}

tile::DescriptorStoreOp tensorStoreOf(KernelLowering &k, ConvertLayoutOp convert) {
  if (!convert->hasOneUse())
    return {};
  auto store = dyn_cast<tile::DescriptorStoreOp>(*convert->getUsers().begin());
  if (!store || store.getValue() != convert.getResult() || !tensorStorePanels(k, store))
    return {};
  return store;
}

bool convertsForTensorStore(KernelLowering &k, ConvertLayoutOp convert) {
  tile::DescriptorStoreOp store = tensorStoreOf(k, convert);
  return store && planTensorStore(k, store);
}

LogicalResult storeWithTensorMap(KernelLowering &k, tile::DescriptorStoreOp store,
                                 const TensorStorePlan &plan, OpBuilder &builder) {
  Location loc = store.getLoc();
  Value block = storedBlock(store);
  FailureOr<LinearLayout> layout = k.layout(store, block);
  if (failed(layout))
    return failure();
  Type element = store.getDesc().getType().getBlockType().getElementType();
  const TensorDescriptor &desc = *k.descriptor(store.getDesc());
  const SwizzledPanels &panels = plan.panels;
  Value map = tensorMapParameter(k, desc, element, panels);
  SwizzledPanels piece = panels;
  piece.panels = plan.piecePanels;

  // The copies of a TMA store right before this one read another buffer,
  // and where they write a block apart from this one, their writes need not
  // be waited for either: the waits below leave its groups in flight.
  std::optional<std::pair<tile::DescriptorStoreOp, int64_t>> before =
      tensorStoreJustBefore(k, store);
  int64_t readsInFlight = before ? before->second : 0;
  int64_t writesInFlight = before && blocksApart(before->first, store) ? before->second : 0;
  auto reserved = k.reservedStoreBuffers.find(store);
  bool inReservedBuffer = reserved != k.reservedStoreBuffers.end();
  FailureOr<Value> buffer;
  if (inReservedBuffer) {
    buffer = reserved->second.buffer;
    // The copies of the store's run before (the loop's previous iteration)
    // may still be reading the buffer.
    inlinePtx(builder, loc, {}, {},
              "cp.async.bulk.wait_group.read " + std::to_string(readsInFlight) + ";", "");
    mlir::gpu::BarrierOp::create(builder, loc);
  } else {
    k.shared.beginUser();
    buffer = k.shared.allocate(store, sharedElementType(element),
                               pieceElements(panels, plan.piecePanels), pieceAlignment(panels));
    if (failed(buffer))
      return failure();
  }
  Value outer = k.registers(store.getOffsets()[0]).front();
  Value inner = k.registers(store.getOffsets()[1]).front();
  Issuers issuers;
  k.tensorStoreGroups[store] = panels.panels / piece.panels;
  for (int64_t first = 0; first < panels.panels; first += piece.panels) {
    if (first != 0) {
      // The previous piece's copies must have read the buffer before it is
      // written again.
      inlinePtx(builder, loc, {}, {}, "cp.async.bulk.wait_group.read 0;", "");
      mlir::gpu::BarrierOp::create(builder, loc);
    }
    writePanels(k, builder, loc, *buffer, *layout, k.registers(block), piece, first);
    // An earlier TMA store's copies (this one's in a loop's iteration before)
    // may still be writing: they were waited for only to have read their
    // buffer. Waited for before the barrier, so that no thread copies over
    // what another's copies still write.
    if (first == 0)
      inlinePtx(builder, loc, {}, {},
                "cp.async.bulk.wait_group " + std::to_string(writesInFlight) + ";", "");
    // The copies read what this thread's ordinary stores wrote.
    emitAsyncProxyFence(builder, loc);
    mlir::gpu::BarrierOp::create(builder, loc);
    Value column = inner;
    if (first != 0)
      column = arith::AddIOp::create(builder, loc, inner,
                                     i32Constant(builder, loc, first * panels.panelElements()));
    issuers.firstWarp = spreadOverWarps(
        k, builder, loc, piece, {*buffer, indexConstant(builder, loc, 0)}, column, issuers,
        [&](const PanelBox &box) {
          inlinePtx(builder, loc, {}, {map, box.column, outer, box.shared, box.issuer},
                    electedLane(4) +
                        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
                        "[$0, {$1, $2}], [$3]; }",
                    "l,r,r,r,r");
        });
    // Bulk groups are per thread: in the threads that issued none, a wait
    // returns at once.
    inlinePtx(builder, loc, {}, {}, "cp.async.bulk.commit_group;", "");
  }
  if (laterAccessesNeedWrites(k, store, desc)) {
    // The barrier orders other threads' accesses to global memory too.
    inlinePtx(builder, loc, {}, {}, "cp.async.bulk.wait_group 0;", "");
    mlir::gpu::BarrierOp::create(builder, loc);
  } else if (!inReservedBuffer) {
    inlinePtx(builder, loc, {}, {}, "cp.async.bulk.wait_group.read 0;", "");
    k.shared.endUser(builder, loc);
  }
  return success();
}

} // namespace tessera::gpu
