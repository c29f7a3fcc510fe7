// tile-cpu-split-vectors: computes long flat vectors register chunk by
// register chunk (see Passes.td and docs/cpu-backend.md, "Performance").
//
// LLVM legalizes a `vector<1024xf32>` op into 64 register ops in instruction
// selection, which schedules a basic block in IR order: a chain of whole-tile
// ops then keeps every intermediate tile alive at once (64 registers each)
// and spills nearly all of it. Here the splittable ops are rewritten into
// per-chunk ops, and the block is reordered so that each chunk's chain is
// computed right before the op that consumes it.
#include "lowering/cpu/Passes.h"
#include "lowering/cpu/TileShuffles.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace tessera::cpu {
#define GEN_PASS_DEF_TILECPUSPLITVECTORS
#include "lowering/cpu/Passes.h.inc"
} // namespace tessera::cpu

using namespace mlir;

namespace {

using Chunks = llvm::SmallVector<Value>;

struct Splitter {
  int64_t lanes;
  llvm::DenseMap<Value, Chunks> chunks; ///< Split value -> its chunks, in order.

  /// A 1-D fixed vector that spans several whole chunks.
  bool isLong(Type type) const {
    auto vector = llvm::dyn_cast<VectorType>(type);
    return vector && vector.getRank() == 1 && !vector.isScalable() &&
           vector.getNumElements() > lanes && vector.getNumElements() % lanes == 0;
  }
  int64_t numChunks(Type type) const {
    return llvm::cast<VectorType>(type).getNumElements() / lanes;
  }
  VectorType chunkType(Type type) const {
    return VectorType::get({lanes}, llvm::cast<VectorType>(type).getElementType());
  }

  /// Chunk `k` of `value`: its split chunk, or a register-aligned extract.
  Value chunk(OpBuilder &b, Location loc, Value value, int64_t k) {
    auto it = chunks.find(value);
    if (it != chunks.end())
      return it->second[k];
    llvm::SmallVector<int32_t> mask;
    for (int64_t i = 0; i < lanes; ++i)
      mask.push_back(static_cast<int32_t>(k * lanes + i));
    return b.create<LLVM::ShuffleVectorOp>(loc, value, value, mask);
  }

  Value shuffledChunk(OpBuilder &b, Location loc, LLVM::ShuffleVectorOp shuffle, int64_t k);

  /// The address of chunk `k` of a vector of `element`s stored at `base`.
  Value chunkAddress(OpBuilder &b, Location loc, Value base, Type element, int64_t k) const {
    return b.create<LLVM::GEPOp>(loc, base.getType(), element, base,
                                 llvm::ArrayRef<LLVM::GEPArg>{k * lanes});
  }

  /// Records the chunks of `result`, replacing it outright when it is one chunk.
  void define(Value result, Chunks parts) { chunks[result] = std::move(parts); }

  bool splitOp(Operation *op);
  void splitBlock(Block &block, llvm::SmallVectorImpl<Operation *> &replaced);
  void finish(llvm::ArrayRef<Operation *> replaced);
};

/// Chunk `k` of `shuffle`'s result: the input chunk itself where its lanes
/// are one aligned chunk in order, else two-input shuffles of the input chunks
/// (split ones', or register-aligned extracts) in the order the lanes first
/// name them, each adding one chunk's lanes to those gathered so far.
Value Splitter::shuffledChunk(OpBuilder &b, Location loc, LLVM::ShuffleVectorOp shuffle,
                              int64_t k) {
  int64_t inLanes = llvm::cast<VectorType>(shuffle.getV1().getType()).getNumElements();
  llvm::ArrayRef<int32_t> mask = shuffle.getMask().slice(k * lanes, lanes);
  // Source chunks in first-use order, as (operand, chunk index); each lane's
  // place among them (-1: any value).
  llvm::SmallVector<std::pair<Value, int64_t>> sources;
  llvm::SmallVector<int64_t> sourceOf(lanes, -1);
  for (int64_t i = 0; i < lanes; ++i) {
    if (mask[i] < 0)
      continue;
    std::pair<Value, int64_t> source =
        mask[i] < inLanes ? std::make_pair(shuffle.getV1(), int64_t(mask[i]) / lanes)
                          : std::make_pair(shuffle.getV2(), (mask[i] - inLanes) / lanes);
    auto found = llvm::find(sources, source);
    sourceOf[i] = found - sources.begin();
    if (found == sources.end())
      sources.push_back(source);
  }
  auto laneIn = [&](int64_t i) { return int32_t(mask[i] % inLanes % lanes); };
  if (sources.empty())
    return b.create<LLVM::PoisonOp>(loc, chunkType(shuffle.getType()));
  Value first = chunk(b, loc, sources[0].first, sources[0].second);
  bool aligned = sources.size() == 1 && llvm::all_of(llvm::seq<int64_t>(0, lanes), [&](int64_t i) {
                   return sourceOf[i] == 0 && laneIn(i) == i;
                 });
  if (aligned)
    return first;
  // The first two sources in one shuffle, then one more per shuffle.
  Value second = sources.size() > 1 ? chunk(b, loc, sources[1].first, sources[1].second) : first;
  llvm::SmallVector<int32_t> step(lanes, -1);
  for (int64_t i = 0; i < lanes; ++i)
    if (sourceOf[i] == 0 || sourceOf[i] == 1)
      step[i] = laneIn(i) + (sourceOf[i] == 1 ? lanes : 0);
  Value gathered = b.create<LLVM::ShuffleVectorOp>(loc, first, second, step);
  for (size_t next = 2; next < sources.size(); ++next) {
    for (int64_t i = 0; i < lanes; ++i)
      if (sourceOf[i] == int64_t(next))
        step[i] = lanes + laneIn(i);
      else if (sourceOf[i] >= 0 && sourceOf[i] < int64_t(next))
        step[i] = i;
    gathered = b.create<LLVM::ShuffleVectorOp>(
        loc, gathered, chunk(b, loc, sources[next].first, sources[next].second), step);
  }
  return gathered;
}

bool Splitter::splitOp(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();

  // Dense constants.
  if (auto constant = llvm::dyn_cast<arith::ConstantOp>(op)) {
    auto dense = llvm::dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense || !isLong(constant.getType()))
      return false;
    VectorType type = chunkType(constant.getType());
    int64_t n = numChunks(constant.getType());
    Chunks parts;
    if (dense.isSplat()) {
      Value splat = b.create<arith::ConstantOp>(loc, type, dense.resizeSplat(type));
      parts.assign(n, splat);
    } else {
      llvm::SmallVector<Attribute> values(dense.getValues<Attribute>());
      for (int64_t k = 0; k < n; ++k) {
        auto slice = DenseElementsAttr::get(
            type, llvm::ArrayRef<Attribute>(values).slice(k * lanes, lanes));
        parts.push_back(b.create<arith::ConstantOp>(loc, type, slice));
      }
    }
    define(constant.getResult(), std::move(parts));
    return true;
  }

  // Elementwise arith/math ops on long vectors (scalar operands pass through).
  if (op->hasTrait<OpTrait::Elementwise>() && op->getNumRegions() == 0 &&
      op->getNumResults() == 1 && isLong(op->getResult(0).getType()) &&
      (op->getDialect()->getNamespace() == "arith" || op->getDialect()->getNamespace() == "math")) {
    Type resultType = op->getResult(0).getType();
    int64_t n = numChunks(resultType);
    for (Value operand : op->getOperands())
      if (llvm::isa<VectorType>(operand.getType()) &&
          (!isLong(operand.getType()) || numChunks(operand.getType()) != n))
        return false;
    Chunks parts;
    for (int64_t k = 0; k < n; ++k) {
      IRMapping mapping;
      for (Value operand : op->getOperands())
        if (llvm::isa<VectorType>(operand.getType()))
          mapping.map(operand, chunk(b, loc, operand, k));
      Operation *clone = b.clone(*op, mapping);
      clone->getResult(0).setType(chunkType(resultType));
      parts.push_back(clone->getResult(0));
    }
    define(op->getResult(0), std::move(parts));
    return true;
  }

  // Splats.
  if (auto broadcast = llvm::dyn_cast<vector::BroadcastOp>(op)) {
    if (!isLong(broadcast.getType()) || llvm::isa<VectorType>(broadcast.getSourceType()))
      return false;
    Value splat =
        b.create<vector::BroadcastOp>(loc, chunkType(broadcast.getType()), broadcast.getSource());
    define(broadcast.getResult(), Chunks(numChunks(broadcast.getType()), splat));
    return true;
  }

  // Shuffles of split vectors: an output chunk that is one aligned input
  // chunk (the halving steps of a reduction, row selections) is that chunk;
  // any other is gathered from the input chunks its lanes come from. Left
  // whole, a transpose of a 128x128 tile was one 16384-lane shuffle, on which
  // LLVM's VectorCombine spent 18 s.
  if (auto shuffle = llvm::dyn_cast<LLVM::ShuffleVectorOp>(op)) {
    Type inType = shuffle.getV1().getType();
    int64_t outLanes = llvm::cast<VectorType>(shuffle.getType()).getNumElements();
    if (!isLong(inType) || outLanes % lanes != 0)
      return false;
    // Extracting whole chunks from an unsplit vector gains nothing; any other
    // shuffle is cheaper in chunks even then.
    int64_t inLanes = llvm::cast<VectorType>(inType).getNumElements();
    llvm::ArrayRef<int32_t> mask = shuffle.getMask();
    bool selectsChunks = true, unsplitOperand = false;
    for (int64_t i = 0; i < outLanes; ++i) {
      if (mask[i] < 0) {
        selectsChunks = false;
        continue;
      }
      selectsChunks &= mask[i] % lanes == i % lanes &&
                       (i % lanes == 0 || mask[i] == mask[i - 1] + 1);
      unsplitOperand |= !chunks.count(mask[i] < inLanes ? shuffle.getV1() : shuffle.getV2());
    }
    if (selectsChunks && unsplitOperand)
      return false;
    Chunks parts;
    for (int64_t k = 0; k < outLanes / lanes; ++k)
      parts.push_back(shuffledChunk(b, loc, shuffle, k));
    if (parts.size() == 1) {
      shuffle.getResult().replaceAllUsesWith(parts.front());
      return true;
    }
    define(shuffle.getResult(), std::move(parts));
    return true;
  }

  // One element of a split vector.
  if (auto extract = llvm::dyn_cast<LLVM::ExtractElementOp>(op)) {
    APInt index;
    if (!chunks.count(extract.getVector()) ||
        !matchPattern(extract.getPosition(), m_ConstantInt(&index)))
      return false;
    int64_t i = index.getSExtValue();
    Value part = chunks[extract.getVector()][i / lanes];
    Value position = b.create<LLVM::ConstantOp>(loc, b.getI64Type(), i % lanes);
    extract.getResult().replaceAllUsesWith(
        b.create<LLVM::ExtractElementOp>(loc, part, position).getResult());
    return true;
  }

  // Whole-vector loads and stores (a tile kept in a stack slot across the
  // program's loop): one per chunk, at consecutive addresses.
  if (auto load = llvm::dyn_cast<LLVM::LoadOp>(op)) {
    Type type = load.getRes().getType();
    if (!isLong(type) || load.getVolatile_() ||
        load.getOrdering() != LLVM::AtomicOrdering::not_atomic)
      return false;
    Type element = llvm::cast<VectorType>(type).getElementType();
    Chunks parts;
    for (int64_t k = 0; k < numChunks(type); ++k) {
      Value address = chunkAddress(b, loc, load.getAddr(), element, k);
      parts.push_back(b.create<LLVM::LoadOp>(loc, chunkType(type), address,
                                             load.getAlignment().value_or(0)));
    }
    define(load.getRes(), std::move(parts));
    return true;
  }
  if (auto store = llvm::dyn_cast<LLVM::StoreOp>(op)) {
    Type type = store.getValue().getType();
    if (!isLong(type) || !chunks.count(store.getValue()) || store.getVolatile_() ||
        store.getOrdering() != LLVM::AtomicOrdering::not_atomic)
      return false;
    Type element = llvm::cast<VectorType>(type).getElementType();
    for (int64_t k = 0; k < numChunks(type); ++k) {
      Value address = chunkAddress(b, loc, store.getAddr(), element, k);
      b.create<LLVM::StoreOp>(loc, chunk(b, loc, store.getValue(), k), address,
                              store.getAlignment().value_or(0));
    }
    op->erase();
    return true;
  }

  // Contiguous masked loads and stores: one per chunk, at consecutive addresses.
  if (auto load = llvm::dyn_cast<LLVM::MaskedLoadOp>(op)) {
    Type type = load.getRes().getType();
    if (!isLong(type))
      return false;
    Type element = llvm::cast<VectorType>(type).getElementType();
    Chunks parts;
    for (int64_t k = 0; k < numChunks(type); ++k) {
      Value address = chunkAddress(b, loc, load.getData(), element, k);
      Value mask = chunk(b, loc, load.getMask(), k);
      Value passThru = load.getPassThru() ? chunk(b, loc, load.getPassThru(), k) : Value();
      parts.push_back(b.create<LLVM::MaskedLoadOp>(loc, chunkType(type), address, mask, passThru,
                                                   load.getAlignment(), load.getNontemporal()));
    }
    define(load.getRes(), std::move(parts));
    return true;
  }
  if (auto store = llvm::dyn_cast<LLVM::MaskedStoreOp>(op)) {
    Type type = store.getValue().getType();
    if (!isLong(type) || !chunks.count(store.getValue()))
      return false;
    Type element = llvm::cast<VectorType>(type).getElementType();
    for (int64_t k = 0; k < numChunks(type); ++k) {
      Value address = chunkAddress(b, loc, store.getData(), element, k);
      b.create<LLVM::MaskedStoreOp>(loc, chunk(b, loc, store.getValue(), k), address,
                                    chunk(b, loc, store.getMask(), k), store.getAlignment());
    }
    op->erase();
    return true;
  }
  return false;
}

void Splitter::splitBlock(Block &block, llvm::SmallVectorImpl<Operation *> &replaced) {
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : ops) {
    bool isStore = llvm::isa<LLVM::MaskedStoreOp, LLVM::StoreOp>(op);
    if (splitOp(op) && !isStore)
      replaced.push_back(op);
  }
}

/// Users left unsplit get the whole vector back, built right before them;
/// then the replaced ops and the chunks nobody uses go away.
void Splitter::finish(llvm::ArrayRef<Operation *> replaced) {
  llvm::DenseSet<Operation *> dying(replaced.begin(), replaced.end());
  for (Operation *op : replaced) {
    for (Value result : op->getResults()) {
      auto it = chunks.find(result);
      if (it == chunks.end())
        continue;
      llvm::SmallVector<OpOperand *> uses;
      for (OpOperand &use : result.getUses())
        if (!dying.count(use.getOwner()))
          uses.push_back(&use);
      for (OpOperand *use : uses) {
        Operation *user = op->getBlock()->findAncestorOpInBlock(*use->getOwner());
        OpBuilder b(user ? user : use->getOwner());
        use->set(tessera::cpu::concatVectors(b, result.getLoc(), it->second));
      }
    }
  }
  for (Operation *op : llvm::reverse(replaced)) {
    for (Value result : op->getResults())
      chunks.erase(result);
    op->dropAllUses();
    op->erase();
  }
}

/// An op the schedule may move: one without regions whose only effect is to
/// read memory, if any.
bool isMovable(Operation *op) {
  if (op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>() ||
      op->getNumResults() == 0)
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto effects = llvm::dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.onlyHasEffect<MemoryEffects::Read>();
}

bool writesMemory(Operation *op) {
  if (isMemoryEffectFree(op))
    return false;
  auto effects = llvm::dyn_cast<MemoryEffectOpInterface>(op);
  return !effects || effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Allocate>() || effects.hasEffect<MemoryEffects::Free>();
}

/// Erases side-effect-free ops without users, then computes chunk by chunk:
/// the ops that stay in place (anchors: side effects, regions, users outside
/// the block) keep their order, and each movable op moves down to just before
/// the first anchor that needs it, right after its own operands. A load moves
/// only where no write lies between. Linear in the block's size: positions
/// are computed once, not asked of the block while it changes.
void schedule(Block &block) {
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && op->getNumResults() > 0 && op->getNumRegions() == 0 &&
        isMemoryEffectFree(op))
      op->erase();
  ops.clear();
  llvm::DenseMap<Operation *, size_t> position;
  for (Operation &op : block) {
    position[&op] = ops.size();
    ops.push_back(&op);
  }
  size_t n = ops.size();
  // The first anchor each op feeds (n: none in this block, so it stays), and
  // the first write at or after each position.
  llvm::SmallVector<size_t> firstAnchor(n, n), nextWrite(n + 1, n);
  llvm::SmallVector<bool> anchor(n);
  for (size_t i = n; i-- > 0;) {
    Operation *op = ops[i];
    nextWrite[i] = writesMemory(op) ? i : nextWrite[i + 1];
    bool usedOutside = false;
    for (Operation *user : op->getUsers()) {
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (!inBlock) {
        usedOutside = true;
        continue;
      }
      size_t at = position.lookup(inBlock);
      firstAnchor[i] = std::min(firstAnchor[i], anchor[at] ? at : firstAnchor[at]);
    }
    anchor[i] = !isMovable(op) || usedOutside || firstAnchor[i] == n ||
                (!isMemoryEffectFree(op) && nextWrite[i + 1] < firstAnchor[i]);
  }
  // Each anchor in order, after the movable ops it needs, operands first.
  llvm::SmallVector<Operation *> order;
  llvm::SmallVector<bool> placed(n);
  llvm::SmallVector<std::pair<Operation *, bool>> stack;
  for (size_t a = 0; a < n; ++a) {
    if (!anchor[a])
      continue;
    stack.push_back({ops[a], false});
    while (!stack.empty()) {
      auto [op, operandsDone] = stack.pop_back_val();
      size_t at = position.lookup(op);
      if (placed[at])
        continue;
      if (operandsDone) {
        placed[at] = true;
        order.push_back(op);
        continue;
      }
      stack.push_back({op, true});
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (def && def->getBlock() == &block && !anchor[position.lookup(def)] &&
              !placed[position.lookup(def)])
            stack.push_back({def, false});
        }
      });
    }
  }
  for (Operation *op : order)
    op->moveBefore(&block, block.end());
}

struct SplitVectors : tessera::cpu::impl::TileCpuSplitVectorsBase<SplitVectors> {
  using TileCpuSplitVectorsBase::TileCpuSplitVectorsBase;
  void runOnOperation() override {
    Splitter splitter;
    splitter.lanes = std::max<int64_t>(4, vectorBits / 32);
    llvm::SmallVector<Block *> blocks;
    getOperation()->walk<WalkOrder::PreOrder>([&](Block *block) { blocks.push_back(block); });
    llvm::SmallVector<Operation *> replaced;
    for (Block *block : blocks)
      splitter.splitBlock(*block, replaced);
    if (replaced.empty())
      return;
    splitter.finish(replaced);
    for (Block *block : blocks)
      schedule(*block);
  }
};

} // namespace
