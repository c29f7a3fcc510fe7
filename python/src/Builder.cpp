// tessera._C: the KernelBuilder as Python sees it. Values and types are opaque
// handles that keep the builder's MLIR context alive; every operation takes
// the user's source position as a (file, line, col) tuple; a KernelError
// becomes tessera.CompilationError (see Module.cpp).
#include "python/src/Bindings.h"

#include "frontend/KernelBuilder.h"
#include "ir/TileDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace tessera::frontend;

namespace tessera::python {
namespace {

using Loc = std::tuple<std::string, unsigned, unsigned>;

SourceLocation toLoc(const Loc &loc) {
  return SourceLocation{std::get<0>(loc), std::get<1>(loc), std::get<2>(loc)};
}

/// What a builder, its values and its types share: the context and the builder.
struct BuilderState {
  std::shared_ptr<mlir::MLIRContext> context;
  std::unique_ptr<KernelBuilder> builder;
};

struct PyType {
  mlir::Type type;
  std::shared_ptr<mlir::MLIRContext> context;

  std::string str() const { return KernelBuilder::str(type); }
  bool isPointer() const { return llvm::isa<tile::PointerType>(type); }
  bool isFloat() const { return llvm::isa<mlir::FloatType>(type); }
  bool isInteger() const { return llvm::isa<mlir::IntegerType>(type); }
  bool isTensorDesc() const { return llvm::isa<tile::TensorDescType>(type); }
  bool isTile() const { return llvm::isa<mlir::RankedTensorType>(type); }
};

struct PyValue {
  mlir::Value value;
  std::shared_ptr<BuilderState> state;

  PyType type() const { return {value.getType(), state->context}; }
  PyType elementType() const { return {KernelBuilder::elementType(value), state->context}; }
  std::vector<int64_t> shape() const { return KernelBuilder::shapeOf(value); }
};

template <class T>
T lookup(const std::map<std::string, T> &table, const std::string &name, const char *what) {
  auto it = table.find(name);
  if (it == table.end()) {
    std::string known;
    for (auto &[key, _] : table)
      known += (known.empty() ? "" : ", ") + key;
    throw py::value_error("unknown " + std::string(what) + " '" + name + "' (expected one of " +
                          known + ")");
  }
  return it->second;
}

const std::map<std::string, BinaryOp> kBinary = {
    {"add", BinaryOp::Add},         {"sub", BinaryOp::Sub},         {"mul", BinaryOp::Mul},
    {"div", BinaryOp::Div},         {"truediv", BinaryOp::TrueDiv},
    {"div_rn", BinaryOp::PreciseDiv}, {"mod", BinaryOp::Mod},
    {"and", BinaryOp::And},         {"or", BinaryOp::Or},           {"xor", BinaryOp::Xor},
    {"shl", BinaryOp::Shl},         {"shr", BinaryOp::Shr},         {"maximum", BinaryOp::Maximum},
    {"minimum", BinaryOp::Minimum}, {"maximum_nan", BinaryOp::MaximumPropagatingNan},
    {"minimum_nan", BinaryOp::MinimumPropagatingNan}};
const std::map<std::string, CompareOp> kCompare = {
    {"eq", CompareOp::Eq}, {"ne", CompareOp::Ne}, {"lt", CompareOp::Lt},
    {"le", CompareOp::Le}, {"gt", CompareOp::Gt}, {"ge", CompareOp::Ge}};
const std::map<std::string, UnaryOp> kUnary = {
    {"neg", UnaryOp::Neg},     {"not", UnaryOp::Not},     {"exp", UnaryOp::Exp},
    {"exp2", UnaryOp::Exp2},   {"log", UnaryOp::Log},     {"log2", UnaryOp::Log2},
    {"sqrt", UnaryOp::Sqrt},   {"rsqrt", UnaryOp::Rsqrt}, {"sin", UnaryOp::Sin},
    {"cos", UnaryOp::Cos},     {"abs", UnaryOp::Abs},     {"sigmoid", UnaryOp::Sigmoid},
    {"erf", UnaryOp::Erf},     {"floor", UnaryOp::Floor}, {"ceil", UnaryOp::Ceil}};
const std::map<std::string, ReduceKind> kReduce = {{"sum", ReduceKind::Sum},
                                                   {"max", ReduceKind::Max},
                                                   {"min", ReduceKind::Min},
                                                   {"argmax", ReduceKind::ArgMax},
                                                   {"argmin", ReduceKind::ArgMin}};
const std::map<std::string, AtomicKind> kAtomic = {
    {"add", AtomicKind::Add}, {"max", AtomicKind::Max}, {"min", AtomicKind::Min},
    {"and", AtomicKind::And}, {"or", AtomicKind::Or},   {"xor", AtomicKind::Xor},
    {"xchg", AtomicKind::Xchg}};

Signedness signedness(bool isUnsigned) {
  return isUnsigned ? Signedness::Unsigned : Signedness::Signed;
}

template <class E>
E symbol(std::optional<E> (*symbolize)(llvm::StringRef), const std::string &name,
         const char *what) {
  if (auto value = symbolize(name))
    return *value;
  throw py::value_error("unknown " + std::string(what) + " '" + name + "'");
}

/// The Python-facing builder.
class PyBuilder {
public:
  PyBuilder() : state_(std::make_shared<BuilderState>()) {
    state_->context = std::make_shared<mlir::MLIRContext>(mlir::MLIRContext::Threading::DISABLED);
    state_->builder = std::make_unique<KernelBuilder>(*state_->context);
  }

  KernelBuilder &kb() {
    if (!state_->builder)
      throw py::value_error("this builder has finished its kernel");
    return *state_->builder;
  }
  PyValue wrap(mlir::Value value) { return {value, state_}; }
  std::vector<PyValue> wrap(const std::vector<mlir::Value> &values) {
    std::vector<PyValue> result;
    for (mlir::Value value : values)
      result.push_back(wrap(value));
    return result;
  }
  static std::vector<mlir::Value> unwrap(const std::vector<PyValue> &values) {
    std::vector<mlir::Value> result;
    for (const PyValue &value : values)
      result.push_back(value.value);
    return result;
  }
  static mlir::Value unwrap(const std::optional<PyValue> &value) {
    return value ? value->value : mlir::Value();
  }
  PyType wrapType(mlir::Type type) { return {type, state_->context}; }

  PyType type(const std::string &name) {
    mlir::MLIRContext *c = state_->context.get();
    static const std::map<std::string, int> ints = {
        {"i1", 1}, {"i8", 8}, {"i16", 16}, {"i32", 32}, {"i64", 64}};
    if (auto it = ints.find(name); it != ints.end())
      return wrapType(mlir::IntegerType::get(c, it->second));
    if (name == "f16")
      return wrapType(mlir::Float16Type::get(c));
    if (name == "bf16")
      return wrapType(mlir::BFloat16Type::get(c));
    if (name == "f32")
      return wrapType(mlir::Float32Type::get(c));
    if (name == "f64")
      return wrapType(mlir::Float64Type::get(c));
    if (name == "f8E4M3FN")
      return wrapType(mlir::Float8E4M3FNType::get(c));
    if (name == "f8E5M2")
      return wrapType(mlir::Float8E5M2Type::get(c));
    throw py::value_error("unknown element type '" + name + "'");
  }

  /// args: (type, divisibility, equal_to_one) per kernel argument.
  std::vector<PyValue> beginKernel(const std::string &name,
                                   const std::vector<std::tuple<PyType, unsigned, bool>> &args,
                                   const Loc &loc) {
    std::vector<KernelArg> kernelArgs;
    for (auto &[type, divisibility, equalToOne] : args) {
      KernelArg arg;
      arg.type = type.type;
      arg.divisibility = divisibility;
      arg.equalToOne = equalToOne;
      kernelArgs.push_back(arg);
    }
    return wrap(kb().beginKernel(name, kernelArgs, toLoc(loc)));
  }

  std::shared_ptr<PyModule> finish(const Loc &loc) {
    auto module = kb().finish(toLoc(loc));
    // The builder's diagnostic handler would swallow what later passes over
    // the module report: drop it with the builder.
    state_->builder.reset();
    auto result = std::make_shared<PyModule>();
    result->context = state_->context;
    result->module = std::move(module);
    return result;
  }

  // Builds one region through a Python callback. Python exceptions pass
  // through the KernelBuilder as pybind11::error_already_set and come out
  // again at the outer call.
  PyValue forwardValue(const py::object &result, const char *what) {
    try {
      return result.cast<PyValue>();
    } catch (const py::cast_error &) {
      throw py::type_error(std::string(what) + " must return a Value");
    }
  }
  std::vector<PyValue> forwardValues(const py::object &result, const char *what) {
    try {
      return result.cast<std::vector<PyValue>>();
    } catch (const py::cast_error &) {
      throw py::type_error(std::string(what) + " must return a list of Values");
    }
  }

  std::vector<PyValue> forLoop(const PyValue &lo, const PyValue &hi, const PyValue &step,
                               const std::vector<PyValue> &inits, const py::function &body,
                               const Loc &loc, bool flatten, bool warpSpecialize,
                               unsigned numStages) {
    auto callback = [&](mlir::Value iv, llvm::ArrayRef<mlir::Value> carried) {
      std::vector<PyValue> args = wrap(std::vector<mlir::Value>(carried.begin(), carried.end()));
      return unwrap(forwardValues(body(wrap(iv), args), "a for loop body"));
    };
    return wrap(
        kb().forLoop(lo.value, hi.value, step.value, unwrap(inits), callback, toLoc(loc),
                     {flatten, warpSpecialize, numStages}));
  }

  std::vector<PyValue> ifThenElse(const PyValue &cond, const py::function &thenBranch,
                                  const std::optional<py::function> &elseBranch, const Loc &loc) {
    auto makeBranch = [&](const py::function &fn) -> KernelBuilder::Branch {
      return [&, fn]() { return unwrap(forwardValues(fn(), "an if branch")); };
    };
    KernelBuilder::Branch elseFn;
    if (elseBranch)
      elseFn = makeBranch(*elseBranch);
    return wrap(kb().ifThenElse(cond.value, makeBranch(thenBranch), elseFn, toLoc(loc)));
  }

  std::vector<PyValue> whileLoop(const std::vector<PyValue> &inits, const py::function &cond,
                                 const py::function &body, const Loc &loc) {
    auto condFn = [&](llvm::ArrayRef<mlir::Value> args) {
      std::vector<PyValue> wrapped = wrap(std::vector<mlir::Value>(args.begin(), args.end()));
      return std::vector<mlir::Value>{forwardValue(cond(wrapped), "a while condition").value};
    };
    auto bodyFn = [&](llvm::ArrayRef<mlir::Value> args) {
      std::vector<PyValue> wrapped = wrap(std::vector<mlir::Value>(args.begin(), args.end()));
      return unwrap(forwardValues(body(wrapped), "a while body"));
    };
    return wrap(kb().whileLoop(unwrap(inits), condFn, bodyFn, toLoc(loc)));
  }

  /// tl.reduce / tl.associative_scan: `combine` gets 2N scalar values and
  /// returns N.
  std::vector<PyValue> reduceWith(const std::vector<PyValue> &values, std::optional<int> axis,
                                  bool keepDims, const py::function &combine, const Loc &loc) {
    return wrap(kb().reduceWith(unwrap(values), axis, keepDims, combineFn(combine), toLoc(loc)));
  }
  std::vector<PyValue> scanWith(const std::vector<PyValue> &values, int axis, bool reverse,
                                const py::function &combine, const Loc &loc) {
    return wrap(kb().scanWith(unwrap(values), axis, reverse, combineFn(combine), toLoc(loc)));
  }

private:
  KernelBuilder::Combine combineFn(const py::function &combine) {
    return [this, combine](llvm::ArrayRef<mlir::Value> args) {
      std::vector<PyValue> wrapped = wrap(std::vector<mlir::Value>(args.begin(), args.end()));
      return unwrap(forwardValues(combine(wrapped), "a combine function"));
    };
  }

  std::shared_ptr<BuilderState> state_;
};

MemoryHints hints(const std::string &cache, const std::string &evict, bool isVolatile) {
  MemoryHints result;
  result.cache = symbol(tile::symbolizeCacheModifier, cache.empty() ? "none" : cache,
                        "cache modifier");
  result.evict = symbol(tile::symbolizeEvictionPolicy, evict.empty() ? "normal" : evict,
                        "eviction policy");
  result.isVolatile = isVolatile;
  return result;
}

} // namespace

void bindBuilder(py::module_ &m) {
  py::class_<PyType>(m, "Type", "An element or value type of the tile IR.")
      .def("__str__", &PyType::str)
      .def("__repr__", [](const PyType &t) { return "<tessera._C.Type " + t.str() + ">"; })
      .def("__eq__", [](const PyType &a, const PyType &b) { return a.type == b.type; })
      .def("__hash__", [](const PyType &t) { return std::hash<const void *>()(t.type.getAsOpaquePointer()); })
      .def_property_readonly("is_pointer", &PyType::isPointer)
      .def_property_readonly("is_float", &PyType::isFloat)
      .def_property_readonly("is_integer", &PyType::isInteger)
      .def_property_readonly("is_tensor_desc", &PyType::isTensorDesc)
      .def_property_readonly("is_tile", &PyType::isTile)
      .def_property_readonly("width", [](const PyType &t) -> unsigned {
        return t.type.isIntOrFloat() ? t.type.getIntOrFloatBitWidth() : 64;
      })
      .def_property_readonly("pointee", [](const PyType &t) -> std::optional<PyType> {
        if (auto ptr = llvm::dyn_cast<tile::PointerType>(t.type))
          return PyType{ptr.getPointeeType(), t.context};
        return std::nullopt;
      })
      .def_property_readonly("block_shape", [](const PyType &t) -> std::vector<int64_t> {
        if (auto desc = llvm::dyn_cast<tile::TensorDescType>(t.type))
          return {desc.getBlockType().getShape().begin(), desc.getBlockType().getShape().end()};
        return {};
      })
      .def_property_readonly("block_element", [](const PyType &t) -> std::optional<PyType> {
        if (auto desc = llvm::dyn_cast<tile::TensorDescType>(t.type))
          return PyType{desc.getBlockType().getElementType(), t.context};
        return std::nullopt;
      });

  py::class_<PyValue>(m, "Value", "An SSA value of the kernel being built (scalar or tile).")
      .def_property_readonly("type", &PyValue::type)
      .def_property_readonly("element_type", &PyValue::elementType)
      .def_property_readonly("shape", &PyValue::shape)
      .def("__repr__", [](const PyValue &v) { return "<tessera._C.Value " + v.type().str() + ">"; });

  using B = PyBuilder;
  py::class_<PyBuilder>(m, "Builder",
                        "Builds one kernel with Triton's typing rules (frontend/KernelBuilder.h).")
      .def(py::init<>())
      .def("type", &B::type, py::arg("name"))
      .def("ptr_type", [](B &b, const PyType &pointee) {
        return b.wrapType(b.kb().pointerType(pointee.type));
      })
      .def("tile_type", [](B &b, const PyType &elem, const std::vector<int64_t> &shape) {
        return b.wrapType(KernelBuilder::withShape(elem.type, shape));
      })
      .def("begin_kernel", &B::beginKernel)
      .def("finish", &B::finish)
      .def("fail", [](B &b, const std::string &message, const Loc &loc) {
        b.kb().fail(toLoc(loc), message);
      })
      .def("constant_int", [](B &b, int64_t v, const PyType &t, const Loc &loc) {
        return b.wrap(b.kb().constant(v, t.type, toLoc(loc)));
      })
      .def("constant_float", [](B &b, double v, const PyType &t, const Loc &loc) {
        return b.wrap(b.kb().constant(v, t.type, toLoc(loc)));
      })
      .def("literal_int", [](B &b, int64_t v, std::optional<PyType> peer, const Loc &loc) {
        return b.wrap(b.kb().literal(v, peer ? peer->type : mlir::Type(), toLoc(loc)));
      })
      .def("literal_float", [](B &b, double v, std::optional<PyType> peer, const Loc &loc) {
        return b.wrap(b.kb().literal(v, peer ? peer->type : mlir::Type(), toLoc(loc)));
      })
      .def("program_id", [](B &b, int axis, const Loc &loc) {
        return b.wrap(b.kb().programId(axis, toLoc(loc)));
      })
      .def("num_programs", [](B &b, int axis, const Loc &loc) {
        return b.wrap(b.kb().numPrograms(axis, toLoc(loc)));
      })
      .def("arange", [](B &b, int64_t start, int64_t end, const Loc &loc) {
        return b.wrap(b.kb().arange(start, end, toLoc(loc)));
      })
      .def("splat", [](B &b, const PyValue &v, const std::vector<int64_t> &shape, const Loc &loc) {
        return b.wrap(b.kb().splat(v.value, shape, toLoc(loc)));
      })
      .def("full", [](B &b, const std::vector<int64_t> &shape, const PyValue &v, const Loc &loc) {
        return b.wrap(b.kb().full(shape, v.value, toLoc(loc)));
      })
      .def("zeros", [](B &b, const std::vector<int64_t> &shape, const PyType &t, const Loc &loc) {
        return b.wrap(b.kb().zeros(shape, t.type, toLoc(loc)));
      })
      .def("binary", [](B &b, const std::string &op, const PyValue &l, const PyValue &r,
                        const Loc &loc, bool isUnsigned) {
        return b.wrap(b.kb().binary(lookup(kBinary, op, "binary op"), l.value, r.value, toLoc(loc),
                                    signedness(isUnsigned)));
      }, py::arg("op"), py::arg("lhs"), py::arg("rhs"), py::arg("loc"), py::arg("unsigned") = false)
      .def("compare", [](B &b, const std::string &op, const PyValue &l, const PyValue &r,
                         const Loc &loc, bool isUnsigned) {
        return b.wrap(b.kb().compare(lookup(kCompare, op, "comparison"), l.value, r.value,
                                     toLoc(loc), signedness(isUnsigned)));
      }, py::arg("op"), py::arg("lhs"), py::arg("rhs"), py::arg("loc"), py::arg("unsigned") = false)
      .def("unary", [](B &b, const std::string &op, const PyValue &v, const Loc &loc) {
        return b.wrap(b.kb().unary(lookup(kUnary, op, "unary op"), v.value, toLoc(loc)));
      })
      .def("where", [](B &b, const PyValue &c, const PyValue &x, const PyValue &y, const Loc &loc) {
        return b.wrap(b.kb().where(c.value, x.value, y.value, toLoc(loc)));
      })
      .def("fma", [](B &b, const PyValue &x, const PyValue &y, const PyValue &z, const Loc &loc) {
        return b.wrap(b.kb().fma(x.value, y.value, z.value, toLoc(loc)));
      })
      .def("clamp", [](B &b, const PyValue &x, const PyValue &lo, const PyValue &hi,
                       bool propagateNan, const Loc &loc, bool isUnsigned) {
        return b.wrap(b.kb().clamp(x.value, lo.value, hi.value, propagateNan, toLoc(loc),
                                   signedness(isUnsigned)));
      }, py::arg("x"), py::arg("lo"), py::arg("hi"), py::arg("propagate_nan"), py::arg("loc"),
         py::arg("unsigned") = false)
      .def("promoted_type", [](B &b, const std::vector<PyValue> &values) {
        std::vector<mlir::Value> raw;
        for (const PyValue &v : values)
          raw.push_back(v.value);
        return PyType{b.kb().promotedType(raw), values.at(0).state->context};
      })
      .def("inline_asm_elementwise", [](B &b, const std::string &assembly,
                                        const std::string &constraints,
                                        const std::vector<PyValue> &args,
                                        const std::vector<PyType> &results, bool pure, int pack,
                                        const Loc &loc) {
        std::vector<mlir::Value> raw;
        for (const PyValue &v : args)
          raw.push_back(v.value);
        std::vector<mlir::Type> types;
        for (const PyType &t : results)
          types.push_back(t.type);
        std::vector<PyValue> wrapped;
        for (mlir::Value v : b.kb().inlineAsmElementwise(assembly, constraints, raw, types, pure,
                                                         pack, toLoc(loc)))
          wrapped.push_back(b.wrap(v));
        return wrapped;
      })
      .def("extern_elementwise", [](B &b, const std::string &symbol, const std::string &library,
                                    const std::string &path, const std::vector<PyValue> &args,
                                    const PyType &result, bool pure, const Loc &loc) {
        std::vector<mlir::Value> raw;
        for (const PyValue &v : args)
          raw.push_back(v.value);
        return b.wrap(b.kb().externElementwise(symbol, library, path, raw, result.type, pure,
                                               toLoc(loc)));
      })
      .def("cast", [](B &b, const PyValue &v, const PyType &t, const Loc &loc, bool bitcast,
                      bool sourceUnsigned, bool targetUnsigned) {
        CastOptions options;
        options.bitcast = bitcast;
        options.sourceUnsigned = sourceUnsigned;
        options.targetUnsigned = targetUnsigned;
        return b.wrap(b.kb().cast(v.value, t.type, toLoc(loc), options));
      }, py::arg("value"), py::arg("type"), py::arg("loc"), py::arg("bitcast") = false,
         py::arg("source_unsigned") = false, py::arg("target_unsigned") = false)
      .def("expand_dims", [](B &b, const PyValue &v, int axis, const Loc &loc) {
        return b.wrap(b.kb().expandDims(v.value, axis, toLoc(loc)));
      })
      .def("broadcast_to", [](B &b, const PyValue &v, const std::vector<int64_t> &shape,
                              const Loc &loc) {
        return b.wrap(b.kb().broadcastTo(v.value, shape, toLoc(loc)));
      })
      .def("reshape", [](B &b, const PyValue &v, const std::vector<int64_t> &shape, const Loc &loc) {
        return b.wrap(b.kb().reshape(v.value, shape, toLoc(loc)));
      })
      .def("permute", [](B &b, const PyValue &v, const std::vector<int> &order, const Loc &loc) {
        return b.wrap(b.kb().permute(v.value, order, toLoc(loc)));
      })
      .def("trans", [](B &b, const PyValue &v, const Loc &loc) {
        return b.wrap(b.kb().trans(v.value, toLoc(loc)));
      })
      .def("join", [](B &b, const PyValue &lhs, const PyValue &rhs, const Loc &loc) {
        return b.wrap(b.kb().join(lhs.value, rhs.value, toLoc(loc)));
      })
      .def("split", [](B &b, const PyValue &v, const Loc &loc) {
        auto [lhs, rhs] = b.kb().split(v.value, toLoc(loc));
        return std::make_pair(b.wrap(lhs), b.wrap(rhs));
      })
      .def("cat", [](B &b, const PyValue &lhs, const PyValue &rhs, int axis, const Loc &loc) {
        return b.wrap(b.kb().cat(lhs.value, rhs.value, axis, toLoc(loc)));
      })
      .def("gather", [](B &b, const PyValue &src, const PyValue &indices, int axis,
                        const Loc &loc) {
        return b.wrap(b.kb().gather(src.value, indices.value, axis, toLoc(loc)));
      })
      .def("histogram", [](B &b, const PyValue &src, int64_t bins, std::optional<PyValue> mask,
                           const Loc &loc) {
        return b.wrap(b.kb().histogram(src.value, bins, B::unwrap(mask), toLoc(loc)));
      })
      .def("load", [](B &b, const PyValue &ptr, std::optional<PyValue> mask,
                      std::optional<PyValue> other, const std::string &cache,
                      const std::string &evict, bool isVolatile, const Loc &loc) {
        return b.wrap(b.kb().load(ptr.value, B::unwrap(mask), B::unwrap(other),
                                  hints(cache, evict, isVolatile), toLoc(loc)));
      })
      .def("store", [](B &b, const PyValue &ptr, const PyValue &value, std::optional<PyValue> mask,
                       const std::string &cache, const std::string &evict, const Loc &loc) {
        b.kb().store(ptr.value, value.value, B::unwrap(mask), hints(cache, evict, false),
                     toLoc(loc));
      })
      .def("atomic", [](B &b, const std::string &kind, const PyValue &ptr, const PyValue &value,
                        std::optional<PyValue> mask, const std::string &sem,
                        const std::string &scope, const Loc &loc, bool isUnsigned) {
        return b.wrap(b.kb().atomic(lookup(kAtomic, kind, "atomic"), ptr.value, value.value,
                                    B::unwrap(mask),
                                    symbol(tile::symbolizeMemSemantic, sem, "memory semantic"),
                                    symbol(tile::symbolizeMemScope, scope, "memory scope"),
                                    toLoc(loc), signedness(isUnsigned)));
      }, py::arg("kind"), py::arg("ptr"), py::arg("value"), py::arg("mask"), py::arg("sem"),
         py::arg("scope"), py::arg("loc"), py::arg("unsigned") = false)
      .def("atomic_cas", [](B &b, const PyValue &ptr, const PyValue &cmp, const PyValue &value,
                            const std::string &sem, const std::string &scope, const Loc &loc) {
        return b.wrap(b.kb().atomicCas(ptr.value, cmp.value, value.value,
                                       symbol(tile::symbolizeMemSemantic, sem, "memory semantic"),
                                       symbol(tile::symbolizeMemScope, scope, "memory scope"),
                                       toLoc(loc)));
      })
      .def("make_tensor_descriptor", [](B &b, const PyValue &base, const std::vector<PyValue> &shape,
                                        const std::vector<PyValue> &strides,
                                        const std::vector<int64_t> &block, bool nanPadding,
                                        const Loc &loc) {
        return b.wrap(b.kb().makeTensorDescriptor(
            base.value, B::unwrap(shape), B::unwrap(strides), block,
            nanPadding ? tile::PaddingOption::NaN : tile::PaddingOption::Zero, toLoc(loc)));
      })
      .def("descriptor_load", [](B &b, const PyValue &desc, const std::vector<PyValue> &offsets,
                                 const Loc &loc) {
        return b.wrap(b.kb().descriptorLoad(desc.value, B::unwrap(offsets), toLoc(loc)));
      })
      .def("descriptor_atomic", [](B &b, const std::string &kind, const PyValue &desc,
                                   const std::vector<PyValue> &offsets, const PyValue &value,
                                   const Loc &loc, bool isUnsigned) {
        b.kb().descriptorAtomic(lookup(kAtomic, kind, "atomic"), desc.value, B::unwrap(offsets),
                                value.value, toLoc(loc), signedness(isUnsigned));
      }, py::arg("kind"), py::arg("desc"), py::arg("offsets"), py::arg("value"), py::arg("loc"),
         py::arg("unsigned") = false)
      .def("descriptor_gather", [](B &b, const PyValue &desc, const PyValue &rows,
                                   const PyValue &column, const Loc &loc) {
        return b.wrap(b.kb().descriptorGather(desc.value, rows.value, column.value, toLoc(loc)));
      })
      .def("descriptor_scatter", [](B &b, const PyValue &desc, const PyValue &value,
                                    const PyValue &rows, const PyValue &column, const Loc &loc) {
        b.kb().descriptorScatter(desc.value, value.value, rows.value, column.value, toLoc(loc));
      })
      .def("descriptor_store", [](B &b, const PyValue &desc, const std::vector<PyValue> &offsets,
                                  const PyValue &value, const Loc &loc) {
        b.kb().descriptorStore(desc.value, B::unwrap(offsets), value.value, toLoc(loc));
      })
      .def("dot", [](B &b, const PyValue &a, const PyValue &bb, std::optional<PyValue> acc,
                     const std::string &precision, unsigned maxNumImpreciseAcc, const Loc &loc) {
        return b.wrap(b.kb().dot(a.value, bb.value, B::unwrap(acc),
                                 symbol(tile::symbolizeInputPrecision, precision, "input precision"),
                                 toLoc(loc), maxNumImpreciseAcc));
      })
      .def("reduce", [](B &b, const std::string &kind, const PyValue &v, std::optional<int> axis,
                        bool keepDims, const Loc &loc, bool isUnsigned) {
        return b.wrap(b.kb().reduce(lookup(kReduce, kind, "reduction"), v.value, axis, keepDims,
                                    toLoc(loc), signedness(isUnsigned)));
      }, py::arg("kind"), py::arg("value"), py::arg("axis"), py::arg("keep_dims"), py::arg("loc"),
         py::arg("unsigned") = false)
      .def("cumsum", [](B &b, const PyValue &v, int axis, bool reverse, const Loc &loc) {
        return b.wrap(b.kb().cumsum(v.value, axis, reverse, toLoc(loc)));
      })
      .def("print", [](B &b, const std::string &prefix, const std::vector<PyValue> &values,
                       bool hex, const Loc &loc, const std::vector<bool> &unsignedValues) {
        llvm::SmallVector<bool> flags(unsignedValues.begin(), unsignedValues.end());
        b.kb().print(prefix, B::unwrap(values), hex, toLoc(loc), flags);
      }, py::arg("prefix"), py::arg("values"), py::arg("hex"), py::arg("loc"),
         py::arg("unsigned") = std::vector<bool>{})
      .def("assert_true", [](B &b, const PyValue &cond, const std::string &message, const Loc &loc) {
        b.kb().assertTrue(cond.value, message, toLoc(loc));
      })
      .def("assume", [](B &b, const PyValue &cond, const Loc &loc) {
        b.kb().assume(cond.value, toLoc(loc));
      })
      .def("debug_barrier", [](B &b, const Loc &loc) { b.kb().debugBarrier(toLoc(loc)); })
      .def("hint", [](B &b, const PyValue &v, std::optional<int64_t> multipleOf,
                      std::optional<int64_t> maxContiguous, std::optional<int64_t> maxConstancy,
                      const Loc &loc) {
        return b.wrap(b.kb().hint(v.value, multipleOf, maxContiguous, maxConstancy, toLoc(loc)));
      })
      .def("for_loop", &B::forLoop, py::arg("lo"), py::arg("hi"), py::arg("step"), py::arg("inits"),
           py::arg("body"), py::arg("loc"), py::arg("flatten") = false,
           py::arg("warp_specialize") = false, py::arg("num_stages") = 0)
      .def("if_then_else", &B::ifThenElse, py::arg("cond"), py::arg("then_branch"),
           py::arg("else_branch"), py::arg("loc"))
      .def("while_loop", &B::whileLoop)
      .def("reduce_with", &B::reduceWith)
      .def("scan_with", &B::scanWith);
}

} // namespace tessera::python
