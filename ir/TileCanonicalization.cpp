// Canonicalization patterns of the tile operations: splats through shape
// ops, broadcast and addptr chains, and memory ops with constant masks.
#include "ir/TileDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tessera::tile;

namespace {

// Reshaping a splat gives a splat: shape(splat(x)) -> splat(x).
template <typename ShapeOp>
struct SplatThroughShapeOp : public OpRewritePattern<ShapeOp> {
  using OpRewritePattern<ShapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ShapeOp op, PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

// broadcast(broadcast(x)) -> broadcast(x).
struct CombineBroadcasts : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};

// addptr(addptr(p, a), b) -> addptr(p, a + b) when a and b have one type.
struct CombineAddPtrs : public OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getPtr().getDefiningOp<AddPtrOp>();
    if (!inner || inner.getOffset().getType() != op.getOffset().getType())
      return failure();
    Value sum = arith::AddIOp::create(rewriter, op.getLoc(), inner.getOffset(), op.getOffset());
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), inner.getPtr(), sum);
    return success();
  }
};

bool isAllTrue(Value mask) { return mask && matchPattern(mask, m_One()); }
bool isAllFalse(Value mask) { return mask && matchPattern(mask, m_Zero()); }

// A load whose mask is all true needs no mask; one whose mask is all false
// reads nothing and yields `other`.
struct LoadWithConstantMask : public OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op, PatternRewriter &rewriter) const override {
    if (isAllTrue(op.getMask())) {
      rewriter.modifyOpInPlace(op, [&] {
        op.getMaskMutable().clear();
        op.getOtherMutable().clear();
      });
      return success();
    }
    if (isAllFalse(op.getMask()) && op.getOther() && !op.getIsVolatile()) {
      rewriter.replaceOp(op, op.getOther());
      return success();
    }
    return failure();
  }
};

// A store whose mask is all true needs no mask; one whose mask is all false
// writes nothing.
struct StoreWithConstantMask : public OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op, PatternRewriter &rewriter) const override {
    if (isAllTrue(op.getMask())) {
      rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
      return success();
    }
    if (isAllFalse(op.getMask())) {
      rewriter.eraseOp(op);
      return success();
    }
    return failure();
  }
};

// An assertion of a condition that is constantly true checks nothing.
struct AssertAlwaysTrue : public OpRewritePattern<AssertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AssertOp op, PatternRewriter &rewriter) const override {
    if (!isAllTrue(op.getCondition()))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<SplatThroughShapeOp<BroadcastOp>, CombineBroadcasts>(context);
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<SplatThroughShapeOp<ExpandDimsOp>>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<SplatThroughShapeOp<ReshapeOp>>(context);
}

void TransOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<SplatThroughShapeOp<TransOp>>(context);
}

void AddPtrOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<CombineAddPtrs>(context);
}

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<LoadWithConstantMask>(context);
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<StoreWithConstantMask>(context);
}

void AssertOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<AssertAlwaysTrue>(context);
}
