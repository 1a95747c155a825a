#include "fuzz/op_rules.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"

namespace static_runtime {
namespace fuzz {
namespace {

// ---- rule factories ----

// f(x) with the same shape; `accept` filters x; result dtype from x's.
OpRule Unary(std::string name, std::string format, Accept accept,
             std::function<at::ScalarType(at::ScalarType)> result_dtype = nullptr) {
  return {name, [=](Builder& b, const Gene& g) {
            const int x = b.Pick(g.a, accept);
            if (x < 0) return false;
            const at::ScalarType dtype = result_dtype ? result_dtype(b[x].dtype) : b[x].dtype;
            b.Assign(absl::Substitute(format, b[x].name, Literal(b[x].dtype, g.c)),
                     Fresh(dtype, b[x].shape));
            return true;
          }};
}

// f(x, y) on broadcast shapes; `accept` filters both operands.
OpRule Binary(std::string name, std::string format, Accept accept,
              std::function<at::ScalarType(at::ScalarType, at::ScalarType)> result_dtype) {
  return {name, [=](Builder& b, const Gene& g) {
            const int x = b.Pick(g.a, accept);
            if (x < 0) return false;
            const int y = b.Pick(g.b, [&](const Value& v) {
              return accept(v) && Broadcast(b[x].shape, v.shape).has_value();
            });
            const Shape shape = *Broadcast(b[x].shape, b[y].shape);
            b.Assign(absl::Substitute(format, b[x].name, b[y].name),
                     Fresh(result_dtype(b[x].dtype, b[y].dtype), shape));
            return true;
          }};
}

at::ScalarType AlwaysFloat(at::ScalarType, at::ScalarType) { return at::kFloat; }
at::ScalarType AlwaysBool(at::ScalarType, at::ScalarType) { return at::kBool; }

// x op literal, the literal an int or a float by choice; ints keep long.
OpRule WithScalar(std::string name, std::string format, bool float_result = false) {
  return {name, [=](Builder& b, const Gene& g) {
            const int x = b.Pick(g.a, IsNumeric);
            if (x < 0) return false;
            const bool float_literal = g.b % 2 == 0;
            const std::string literal =
                float_literal ? kFloatLiterals[g.c % 4] : kIntLiterals[g.c % 4];
            const at::ScalarType dtype = float_result || float_literal ? at::kFloat : b[x].dtype;
            b.Assign(absl::Substitute(format, b[x].name, literal), Fresh(dtype, b[x].shape));
            return true;
          }};
}

// A reduction-like op along one dim: `format` gets x, the dim and keepdim.
enum class DimResult { kSame, kRemoved, kKeepdim };
// Whether a reduction may meet its dim empty. Those that raise there (amax,
// argmax) reduce only along dims that are never empty: a program whose dead
// code raises would fail in the JIT's interpreter and run here, where
// preparation removes dead code (docs/compatibility.md, "Errors").
enum class EmptyDim { kAllowed, kRaises };
OpRule AlongDim(std::string name, std::string format, Accept accept, DimResult result,
                std::function<at::ScalarType(at::ScalarType)> result_dtype,
                EmptyDim empty = EmptyDim::kAllowed) {
  return {name, [=](Builder& b, const Gene& g) {
            const auto [x, dim] = b.PickWithDim(g.a, g.b, accept, [&](const Dim& d) {
              return empty == EmptyDim::kAllowed || d.NeverEmpty();
            });
            if (x < 0) return false;
            const int64_t rank = static_cast<int64_t>(b[x].shape.size());
            const bool keepdim = result == DimResult::kKeepdim && g.c % 2 == 0;
            Shape shape = b[x].shape;
            if (result != DimResult::kSame) {
              if (keepdim) {
                shape[dim] = Dim{0, 1};
              } else {
                shape.erase(shape.begin() + dim);
              }
            }
            b.Assign(absl::Substitute(format, b[x].name, DimArg(dim, rank, g.c / 2),
                                      keepdim ? "True" : "False"),
                     Fresh(result_dtype(b[x].dtype), shape));
            return true;
          }};
}

at::ScalarType SameDtype(at::ScalarType dtype) { return dtype; }
at::ScalarType SumDtype(at::ScalarType dtype) {
  return dtype == at::kFloat ? at::kFloat : at::kLong;
}
at::ScalarType FloatDtype(at::ScalarType) { return at::kFloat; }
at::ScalarType LongDtype(at::ScalarType) { return at::kLong; }

// A view of x along one dim that `accept_dim` takes; `make` returns the
// expression and the new shape.
OpRule ViewAlongDim(
    std::string name, std::function<bool(const Dim&)> accept_dim,
    std::function<std::pair<std::string, Shape>(const Value&, int64_t dim, const Gene&)> make) {
  return {name, [=](Builder& b, const Gene& g) {
            const auto [x, dim] = b.PickWithDim(g.a, g.b, IsTensor, accept_dim);
            if (x < 0) return false;
            auto [expr, shape] = make(b[x], dim, g);
            b.Assign(expr, ViewOf(b[x], std::move(shape)));
            return true;
          }};
}

// `x.<op>_(...)` on a writable x; the statement's value is x itself.
OpRule InPlace(std::string name, std::string format, Accept accept_self, bool with_other,
               Accept accept_other = nullptr) {
  return {
      name, [=](Builder& b, const Gene& g) {
        const int x = b.Pick(g.a, [&](const Value& v) { return b.Writable(v) && accept_self(v); });
        if (x < 0) return false;
        std::string other = Literal(b[x].dtype, g.c);
        if (with_other) {
          const int y = b.Pick(g.b, [&](const Value& v) {
            return accept_other(v) && v.root != b[x].root && BroadcastsInto(v.shape, b[x].shape) &&
                   (b[x].dtype == at::kFloat || v.dtype != at::kFloat);
          });
          if (y < 0) return false;
          other = b[y].name;
        }
        b.Assign(absl::Substitute(format, b[x].name, other, Literal(b[x].dtype, g.c)),
                 ViewOf(b[x], b[x].shape));
        return true;
      }};
}

// ---- rules that do not fit a factory ----

bool WhereRule(Builder& b, const Gene& g) {
  const int cond = b.Pick(g.a, IsBool);
  if (cond < 0) return false;
  const int x = b.Pick(g.b, [&](const Value& v) {
    return IsNumeric(v) && Broadcast(b[cond].shape, v.shape).has_value();
  });
  if (x < 0) return false;
  const Shape cx = *Broadcast(b[cond].shape, b[x].shape);
  const int y = b.Pick(
      g.c, [&](const Value& v) { return IsNumeric(v) && Broadcast(cx, v.shape).has_value(); });
  b.Assign(absl::StrCat("torch.where(", b[cond].name, ", ", b[x].name, ", ", b[y].name, ")"),
           Fresh(Promote(b[x].dtype, b[y].dtype), *Broadcast(cx, b[y].shape)));
  return true;
}

bool MaskedFillRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, IsNumeric);
  if (x < 0) return false;
  const int mask =
      b.Pick(g.b, [&](const Value& v) { return IsBool(v) && BroadcastsInto(v.shape, b[x].shape); });
  if (mask < 0) return false;
  b.Assign(
      absl::StrCat(b[x].name, ".masked_fill(", b[mask].name, ", ", Literal(b[x].dtype, g.c), ")"),
      Fresh(b[x].dtype, b[x].shape));
  return true;
}

// A float tensor clamped before conversion, so no inf/nan reaches the cast.
bool ToLongRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, IsFloat);
  if (x < 0) return false;
  b.Assign(absl::StrCat(b[x].name, ".clamp(-100.0, 100.0).long()"), Fresh(at::kLong, b[x].shape));
  return true;
}

bool SumAllRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, IsTensor);
  if (x < 0) return false;
  b.Assign(absl::StrCat(b[x].name, ".sum()"), Fresh(SumDtype(b[x].dtype), {}));
  return true;
}

bool TransposeRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsTensor(v) && v.shape.size() >= 2; });
  if (x < 0) return false;
  const int64_t rank = static_cast<int64_t>(b[x].shape.size());
  const int64_t d0 = g.b % rank, d1 = (d0 + 1 + g.c % (rank - 1)) % rank;
  Shape shape = b[x].shape;
  std::swap(shape[d0], shape[d1]);
  b.Assign(absl::StrCat(b[x].name, ".transpose(", DimArg(d0, rank, g.c), ", ", d1, ")"),
           ViewOf(b[x], shape));
  return true;
}

bool TRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsTensor(v) && v.shape.size() == 2; });
  if (x < 0) return false;
  b.Assign(absl::StrCat(b[x].name, ".t()"), ViewOf(b[x], {b[x].shape[1], b[x].shape[0]}));
  return true;
}

bool PermuteRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsTensor(v) && v.shape.size() == 3; });
  if (x < 0) return false;
  static const int64_t kPermutations[6][3] = {{0, 2, 1}, {1, 0, 2}, {1, 2, 0},
                                              {2, 0, 1}, {2, 1, 0}, {0, 1, 2}};
  const int64_t* perm = kPermutations[g.b % 6];
  Shape shape;
  for (int i = 0; i < 3; ++i) shape.push_back(b[x].shape[perm[i]]);
  b.Assign(absl::StrCat(b[x].name, ".permute([", perm[0], ", ", perm[1], ", ", perm[2], "])"),
           ViewOf(b[x], shape));
  return true;
}

bool UnsqueezeRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsTensor(v) && v.shape.size() <= 3; });
  if (x < 0) return false;
  const int64_t dim = g.b % (b[x].shape.size() + 1);
  Shape shape = b[x].shape;
  shape.insert(shape.begin() + dim, Dim{0, 1});
  b.Assign(absl::StrCat(b[x].name, ".unsqueeze(", dim, ")"), ViewOf(b[x], shape));
  return true;
}

// reshape(-1) / flatten(1) / contiguous().view(-1) when the product is
// representable.
OpRule Flatten(std::string name, std::string format, size_t first_dim) {
  return {name, [=](Builder& b, const Gene& g) {
            const int x = b.Pick(g.a, [&](const Value& v) {
              return IsTensor(v) && v.shape.size() > first_dim &&
                     Product(v.shape, first_dim, v.shape.size()).has_value();
            });
            if (x < 0) return false;
            Shape shape(b[x].shape.begin(), b[x].shape.begin() + first_dim);
            shape.push_back(*Product(b[x].shape, first_dim, b[x].shape.size()));
            // May copy or view: neither side is written afterwards.
            b.FreezeRoot(b[x].root);
            Value value = ViewOf(b[x], shape);
            value.writable = false;
            b.Assign(absl::Substitute(format, b[x].name), value);
            return true;
          }};
}

bool ExpandRule(Builder& b, const Gene& g) {
  const auto [x, dim] = b.PickWithDim(g.a, g.b, IsTensor, [](const Dim& d) { return d.IsOne(); });
  if (x < 0) return false;
  const int64_t to = 2 + g.c % 2;
  std::vector<std::string> sizes(b[x].shape.size(), "-1");
  sizes[dim] = absl::StrCat(to);
  Value value = ViewOf(b[x], b[x].shape);
  value.shape[dim] = Dim{0, to};
  value.writable = false;  // elements share memory
  b.Assign(absl::StrCat(b[x].name, ".expand([", absl::StrJoin(sizes, ", "), "])"), value);
  return true;
}

// detach() (a view), or contiguous() (a view or a copy: then neither side is
// written afterwards).
OpRule SameShapeView(std::string name, std::string format, bool may_copy) {
  return {name, [=](Builder& b, const Gene& g) {
            const int x = b.Pick(g.a, IsTensor);
            if (x < 0) return false;
            Value value = ViewOf(b[x], b[x].shape);
            if (may_copy) {
              b.FreezeRoot(b[x].root);
              value.writable = false;
            }
            b.Assign(absl::Substitute(format, b[x].name), value);
            return true;
          }};
}

// Two tensors of one dtype whose shapes are equal except (for cat) along dim.
bool CatOrStackPair(Builder& b, const Gene& g, bool stack) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsTensor(v) && !v.shape.empty(); });
  if (x < 0) return false;
  const int64_t rank = static_cast<int64_t>(b[x].shape.size());
  const int64_t dim = g.c % (stack ? rank + 1 : rank);
  const int y = b.Pick(g.b, [&](const Value& v) {
    if (!IsTensor(v) || v.dtype != b[x].dtype || v.shape.size() != b[x].shape.size()) return false;
    for (int64_t i = 0; i < rank; ++i) {
      if (i != dim || stack) {
        if (v.shape[i] != b[x].shape[i]) return false;
      }
    }
    return true;
  });
  Shape shape = b[x].shape;
  if (stack) {
    shape.insert(shape.begin() + dim, Dim{0, 2});
  } else {
    shape[dim] = {shape[dim].per_batch + b[y].shape[dim].per_batch,
                  shape[dim].fixed + b[y].shape[dim].fixed};
  }
  b.Assign(absl::StrCat(stack ? "torch.stack([" : "torch.cat([", b[x].name, ", ", b[y].name, "], ",
                        dim, ")"),
           Fresh(b[x].dtype, shape));
  return true;
}

bool IsFixedAtLeast2(const Dim& d) { return d.IsFixed() && d.fixed >= 2; }
bool IsFixedPositive(const Dim& d) { return d.IsFixed() && d.fixed >= 1; }

bool ChunkUnpackRule(Builder& b, const Gene& g) {
  auto even = [](const Dim& d) { return d.IsFixed() && d.fixed >= 2 && d.fixed % 2 == 0; };
  const auto [x, dim] = b.PickWithDim(g.a, g.b, IsTensor, even);
  if (x < 0) return false;
  Shape shape = b[x].shape;
  shape[dim].fixed /= 2;
  const std::string first = b.NextName();
  const std::string second = absl::StrCat("v", b.size() + 1);
  b.Line(absl::StrCat(first, ", ", second, " = torch.chunk(", b[x].name, ", 2, ", dim, ")  # ",
                      DtypeText(b[x].dtype), ShapeText(shape), " each"));
  b.Declare(ViewOf(b[x], shape));
  b.Declare(ViewOf(b[x], shape));
  return true;
}

// split(x, 1, dim) or unbind(x, dim) along a fixed dim: a list of views.
OpRule SplitToList(std::string name, bool unbind) {
  return {name, [=](Builder& b, const Gene& g) {
            const auto [x, dim] = b.PickWithDim(g.a, g.b, IsTensor, IsFixedPositive);
            if (x < 0) return false;
            Value list = ViewOf(b[x], b[x].shape);
            list.kind = Kind::kList;
            list.element_roots.assign(b[x].shape[dim].fixed, b[x].root);
            if (unbind) {
              list.shape.erase(list.shape.begin() + dim);
            } else {
              list.shape[dim] = Dim{0, 1};
            }
            b.Assign(unbind ? absl::StrCat("torch.unbind(", b[x].name, ", ", dim, ")")
                            : absl::StrCat("torch.split(", b[x].name, ", 1, ", dim, ")"),
                     list);
            return true;
          }};
}

bool ListLiteralRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, IsTensor);
  if (x < 0) return false;
  const int y = b.Pick(g.b, [&](const Value& v) {
    return IsTensor(v) && v.dtype == b[x].dtype && v.shape == b[x].shape;
  });
  Value list = ViewOf(b[x], b[x].shape);
  list.kind = Kind::kList;
  list.writable = false;
  list.element_roots = {b[x].root, b[y].root};
  std::string expr = absl::StrCat("[", b[x].name, ", ", b[y].name, "]");
  if (g.c % 2 == 0) {  // sometimes a list of one
    list.element_roots = {b[x].root};
    expr = absl::StrCat("[", b[x].name, "]");
  }
  b.Assign(expr, list);
  return true;
}

bool IsList(const Value& v) { return v.kind == Kind::kList; }

bool ListIndexRule(Builder& b, const Gene& g) {
  const int list = b.Pick(g.a, IsList);
  if (list < 0) return false;
  const int64_t count = static_cast<int64_t>(b[list].element_roots.size());
  const int64_t index = g.b % count;
  Value element = b[list];
  element.kind = Kind::kTensor;
  element.root = b[list].element_roots[index];
  element.element_roots.clear();
  element.writable = false;
  b.Assign(absl::StrCat(b[list].name, "[", g.c % 2 == 0 ? index : index - count, "]"), element);
  return true;
}

bool ListReduceRule(Builder& b, const Gene& g, bool stack) {
  const int list = b.Pick(g.a, [](const Value& v) { return IsList(v) && !v.shape.empty(); });
  if (list < 0) return false;
  const int64_t count = static_cast<int64_t>(b[list].element_roots.size());
  const int64_t rank = static_cast<int64_t>(b[list].shape.size());
  const int64_t dim = g.b % (stack ? rank + 1 : rank);
  Shape shape = b[list].shape;
  if (stack) {
    shape.insert(shape.begin() + dim, Dim{0, count});
  } else {
    shape[dim] = Times(shape[dim], count);
  }
  b.Assign(absl::StrCat(stack ? "torch.stack(" : "torch.cat(", b[list].name, ", ", dim, ")"),
           Fresh(b[list].dtype, shape));
  return true;
}

// x @ W with a parameter W of [k, m] (or linear with W [m, k] and a bias).
bool MatmulParameterRule(Builder& b, const Gene& g, bool linear) {
  const int x = b.Pick(g.a, [](const Value& v) {
    return IsFloat(v) && !v.shape.empty() && v.shape.back().IsFixed();
  });
  if (x < 0) return false;
  const int64_t k = b[x].shape.back().fixed;
  const int64_t m = 1 + g.b % 4;
  Shape shape = b[x].shape;
  shape.back() = Dim{0, m};
  std::string expr;
  if (linear) {
    const std::string weight = b.Parameter({m, k});
    const std::string bias = g.c % 2 == 0 ? b.Parameter({m}) : "None";
    expr = absl::StrCat("torch.linear(", b[x].name, ", ", weight, ", ", bias, ")");
  } else {
    expr = absl::StrCat("torch.matmul(", b[x].name, ", ", b.Parameter({k, m}), ")");
  }
  b.Assign(expr, Fresh(at::kFloat, shape));
  return true;
}

// x @ y^T for x, y of one shape [..., n, k]: [..., n, n] (attention scores).
bool MatmulTransposedRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsFloat(v) && v.shape.size() >= 2; });
  if (x < 0) return false;
  const int y = b.Pick(g.b, [&](const Value& v) { return IsFloat(v) && v.shape == b[x].shape; });
  Shape shape = b[x].shape;
  shape.back() = shape[shape.size() - 2];
  const bool bmm = shape.size() == 3 && g.c % 2 == 0;
  b.Assign(bmm ? absl::StrCat("torch.bmm(", b[x].name, ", ", b[y].name, ".transpose(1, 2))")
               : absl::StrCat("torch.matmul(", b[x].name, ", ", b[y].name, ".transpose(-1, -2))"),
           Fresh(at::kFloat, shape));
  return true;
}

// A condition for If: data-dependent, or dependent on the batch size.
std::string Condition(Builder& b, uint32_t choice) {
  if (choice % 2 == 0) {
    const auto [x, dim] =
        b.PickWithDim(choice / 2, 0, IsTensor, [](const Dim& d) { return !d.IsFixed(); });
    if (x >= 0) return absl::StrCat(b[x].name, ".size(", dim, ") > 2");
  }
  const int x = b.Pick(choice / 2, IsNumeric);
  return absl::StrCat("bool(", b[x].name, ".sum() > 0)");
}

// Expressions of x (float) and y (broadcasts into x) giving x's shape.
const char* const kBranchTemplates[] = {
    "$0 + $1", "$0 * 2.0", "torch.relu($0)", "$0.clone().mul_($1)", "$0", "torch.tanh($0 - $1)",
};

// A statement that warns, naming the value the block computes.
std::string Warning(const std::string& name) {
  return absl::StrCat("torch.warn(\"computing ", name, "\")");
}

// What an If's branches hold besides the value they set.
enum class Branches {
  kPlain,
  // The else branch is never taken (no tensor has a negative rank) and fails
  // an assert, so the value is prim::Uninitialized there, as
  // nn.EmbeddingBag's argument checks leave one.
  kRaising,
  // One branch, taken or not, warns first (aten::warn, an instruction of the
  // interpreter's own).
  kWarning,
};

bool IfRule(Builder& b, const Gene& g, Branches branches) {
  const bool raising = branches == Branches::kRaising;
  const int x = b.Pick(g.a, IsFloat);
  if (x < 0) return false;
  const int y = b.Pick(
      g.b, [&](const Value& v) { return IsNumeric(v) && BroadcastsInto(v.shape, b[x].shape); });
  const std::string condition =
      raising ? absl::StrCat(b[x].name, ".dim() >= 0") : Condition(b, g.c);
  const std::string name = b.NextName();
  auto branch = [&](uint32_t choice) {
    return absl::Substitute(kBranchTemplates[choice % 6], b[x].name, b[y].name);
  };
  Value result = Fresh(at::kFloat, b[x].shape);
  result.writable = false;  // may alias x
  const bool warn_in_then = g.a % 2 == 0;
  b.Line(absl::StrCat("if ", condition, ":"));
  b.Indent();
  if (branches == Branches::kWarning && warn_in_then) b.Line(Warning(name));
  b.Line(absl::StrCat(name, " = ", branch(g.c / 7), "  # ", Builder::TypeText(result)));
  b.Dedent();
  b.Line("else:");
  b.Indent();
  if (branches == Branches::kWarning && !warn_in_then) b.Line(Warning(name));
  b.Line(raising ? std::string("assert False, \"negative rank\"")
                 : absl::StrCat(name, " = ", branch(g.b / 5)));
  b.Dedent();
  b.Declare(result);
  return true;
}

// An If that writes a writable value in one branch.
bool IfMutateRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, [&](const Value& v) { return b.Writable(v) && IsFloat(v); });
  if (x < 0) return false;
  const std::string condition = Condition(b, g.c);
  const std::string name = b.NextName();
  Value result = ViewOf(b[x], b[x].shape);
  b.Line(absl::StrCat("if ", condition, ":"));
  b.Indent();
  b.Line(absl::StrCat(name, " = ", b[x].name, ".mul_(", kFloatLiterals[g.b % 4], ")"));
  b.Dedent();
  b.Line("else:");
  b.Indent();
  b.Line(absl::StrCat(name, " = ", b[x].name, "  # ", Builder::TypeText(result)));
  b.Dedent();
  b.Declare(result);
  return true;
}

const char* const kLoopBodies[] = {"$0 * 0.5 + $1", "torch.tanh($0 + $1)", "$0.clone().add_($1)"};

// A loop carrying a float value, alone or with a second one that it trades
// places with (`cur, prev = f(cur) + prev * 0.25, cur`, or `cur, prev =
// prev, f(cur)`): a for loop with a fixed or batch-dependent trip count, or
// a while loop.
// With `warning`, the body warns first (at each iteration; the JIT warns
// once per run there).
bool LoopRule(Builder& b, const Gene& g, bool while_loop, bool warning = false) {
  const int x = b.Pick(g.a, IsFloat);
  if (x < 0) return false;
  const int y = b.Pick(
      g.b, [&](const Value& v) { return IsNumeric(v) && BroadcastsInto(v.shape, b[x].shape); });
  const std::string name = b.NextName();
  Value result = Fresh(at::kFloat, b[x].shape);
  result.writable = false;  // zero trips alias x
  std::string trips = absl::StrCat(g.c % 4);
  if (g.c % 3 == 0 && !b[x].shape.empty() && !b[x].shape[0].IsFixed()) {
    trips = absl::StrCat(b[x].name, ".size(0)");
  }
  b.Line(absl::StrCat(name, " = ", b[x].name, "  # ", Builder::TypeText(result)));
  const std::string prev = absl::StrCat(name, "_prev");
  // 0: one value; 1-4: two, 2 swapping them, 3 and 4 making one a view of
  // the other's value of the iteration before (so that the carried values
  // change alias class from one iteration to the next).
  const int carried = static_cast<int>(g.c / 4 % 5);
  if (carried > 0) b.Line(absl::StrCat(prev, " = ", b[x].name, " * 0.5"));
  if (while_loop) {
    const std::string counter = absl::StrCat("i", b.size());
    b.Line(absl::StrCat(counter, " = 0"));
    b.Line(absl::StrCat("while ", counter, " < ", trips, ":"));
    b.Indent();
    b.Line(absl::StrCat(counter, " += 1"));
  } else {
    b.Line(absl::StrCat("for _ in range(", trips, "):"));
    b.Indent();
  }
  if (warning) b.Line(Warning(name));
  const std::string body = absl::Substitute(kLoopBodies[g.b % 3], name, b[y].name);
  if (carried == 0) {
    b.Line(absl::StrCat(name, " = ", body));
  } else if (carried == 1) {
    b.Line(absl::StrCat(name, ", ", prev, " = ", body, " + ", prev, " * 0.25, ", name));
  } else if (carried == 2) {
    b.Line(absl::StrCat(name, ", ", prev, " = ", prev, ", ", body));
  } else if (carried == 3) {
    b.Line(absl::StrCat(name, ", ", prev, " = ", prev, ".detach(), ", body));
  } else {
    b.Line(
        absl::StrCat(name, ", ", prev, " = ", body, " + ", prev, " * 0.25, ", name, ".detach()"));
  }
  b.Dedent();
  b.Declare(result);
  return true;
}

// A value of a pointwise chain used inside the chain and after it, whose
// use inside comes last in its use list: `c.add_(a)` on a fresh c becomes a
// functional add when mutation is removed, a node made after a's use by
// the op after the chain (a rewrite's node joins the end of the use lists
// of its inputs; the fusion pass must not take use-list order for graph
// order).
bool UsedInAndAfterChainRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsFloat(v) && !v.shape.empty(); });
  if (x < 0) return false;
  static const char* const kHeads[] = {"torch.tanh", "torch.relu", "torch.sigmoid"};
  const Shape shape = b[x].shape;  // a copy: Assign may move the values
  const int a =
      b.Assign(absl::StrCat(kHeads[g.b % 3], "(", b[x].name, " * 0.5)"), Fresh(at::kFloat, shape));
  const int c = b.Assign(absl::StrCat("torch.sigmoid(", b[x].name, ")"), Fresh(at::kFloat, shape));
  b.Line(absl::StrCat(b[c].name, ".add_(", b[a].name, ")"));
  const std::string a_name = b[a].name;
  b.Pick(0, [&](const Value& v) { return v.name == a_name; });  // used: not returned
  b.Assign(absl::StrCat("torch.softmax(", b[a].name, ", -1)"), Fresh(at::kFloat, shape));
  return true;
}

// A read of a tensor's strides, `int(x.is_contiguous())` or `x.stride(d)`:
// which of view and copy an op returned becomes observable (copy variants
// and unpacked splits must then leave views alone).
bool StridesReadRule(Builder& b, const Gene& g, bool contiguity) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsTensor(v) && !v.shape.empty(); });
  if (x < 0) return false;
  const int64_t rank = static_cast<int64_t>(b[x].shape.size());
  b.Assign(contiguity ? absl::StrCat("int(", b[x].name, ".is_contiguous())")
                      : absl::StrCat(b[x].name, ".stride(", DimArg(g.b % rank, rank, g.c), ")"),
           IntValue(std::nullopt));
  return true;
}

// A forked call (prim::fork, then aten::wait) of a method of the module that
// warns and loops, then computes from two values. With an even g.c the
// callee raises an assert (never failing) so its graph has prim::Uninitialized.
bool ForkRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, IsFloat);
  if (x < 0) return false;
  const int y = b.Pick(
      g.b, [&](const Value& v) { return IsNumeric(v) && BroadcastsInto(v.shape, b[x].shape); });
  const std::string name = b.NextName();
  const std::string method = absl::StrCat("forked_", name);
  b.Method(absl::StrCat("def ", method, "(self, x: Tensor, y: Tensor) -> Tensor:\n",
                        g.c % 2 == 0 ? "    assert x.dim() >= 0, \"negative rank\"\n" : "",
                        "    for _ in range(", g.c % 3, "):\n", "        ", Warning(name), "\n",
                        "        x = torch.tanh(x + y)\n", "    return x * 0.5 + y\n"));
  b.Line(absl::StrCat(name, "_future = fork(self.", method, ", ", b[x].name, ", ", b[y].name, ")"));
  b.Assign(absl::StrCat("torch.wait(", name, "_future)"), Fresh(at::kFloat, b[x].shape));
  return true;
}

bool SizeRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, [](const Value& v) { return IsTensor(v) && !v.shape.empty(); });
  if (x < 0) return false;
  const int64_t rank = static_cast<int64_t>(b[x].shape.size());
  const int64_t dim = g.b % rank;
  b.Assign(absl::StrCat(b[x].name, ".size(", DimArg(dim, rank, g.c), ")"),
           IntValue(b[x].shape[dim]));
  return true;
}

bool IntArithmeticRule(Builder& b, const Gene& g) {
  const int n = b.Pick(g.a, [](const Value& v) { return v.kind == Kind::kInt; });
  if (n < 0) return false;
  const int64_t k = 1 + g.b % 3;
  std::optional<Dim> size;
  if (b[n].size)
    size = g.c % 2 == 0 ? Times(*b[n].size, k) : Dim{b[n].size->per_batch, b[n].size->fixed + k};
  b.Assign(absl::StrCat(b[n].name, g.c % 2 == 0 ? " * " : " + ", k), IntValue(size));
  return true;
}

bool ItemRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, IsNumeric);
  if (x < 0) return false;
  Value value;
  value.kind = b[x].dtype == at::kFloat ? Kind::kFloat : Kind::kInt;
  b.Assign(absl::StrCat(value.kind == Kind::kFloat ? "float(" : "int(", b[x].name, ".sum())"),
           value);
  return true;
}

// x * n or x + f for an int n or a float f the program computed.
bool ScalarValueRule(Builder& b, const Gene& g) {
  const int x = b.Pick(g.a, IsNumeric);
  if (x < 0) return false;
  const int s =
      b.Pick(g.b, [](const Value& v) { return v.kind == Kind::kInt || v.kind == Kind::kFloat; });
  if (s < 0) return false;
  const bool is_float = b[s].kind == Kind::kFloat;
  b.Assign(absl::StrCat(b[x].name, g.c % 2 == 0 ? " * " : " + ", b[s].name),
           Fresh(is_float ? at::kFloat : b[x].dtype, b[x].shape));
  return true;
}

// torch.zeros/ones of a size the program computed.
bool ZerosOfSizeRule(Builder& b, const Gene& g) {
  const int n = b.Pick(
      g.a, [](const Value& v) { return v.kind == Kind::kInt && v.size && v.size->fixed >= 0; });
  if (n < 0) return false;
  const int64_t k = 1 + g.b % 3;
  b.Assign(absl::StrCat(g.c % 2 == 0 ? "torch.zeros([" : "torch.ones([", b[n].name, ", ", k, "])"),
           Fresh(at::kFloat, {*b[n].size, Dim{0, k}}));
  return true;
}

}  // namespace

const std::vector<OpRule>& Rules() {
  static const auto* const kRules = new std::vector<OpRule>{
      Unary("relu", "torch.relu($0)", IsNumeric),
      Unary("neg", "torch.neg($0)", IsNumeric),
      Unary("abs", "torch.abs($0)", IsNumeric),
      Unary("sigmoid", "torch.sigmoid($0)", IsFloat),
      Unary("tanh", "torch.tanh($0)", IsFloat),
      Unary("gelu", "torch.gelu($0)", IsFloat),
      Unary("clamp", "torch.clamp($0, -0.5, 0.5)", IsFloat),
      Unary("logical_not", "torch.logical_not($0)", IsBool),
      Unary(
          "to_float", "$0.float()", [](const Value& v) { return IsTensor(v) && !IsFloat(v); },
          FloatDtype),
      {"to_long", ToLongRule},
      Unary("zeros_like", "torch.zeros_like($0)", IsTensor),
      Unary("full_like", "torch.full_like($0, $1)", IsNumeric),
      Unary("clone", "$0.clone()", IsTensor),
      Binary("add", "$0 + $1", IsNumeric, Promote),
      Binary("sub", "torch.sub($0, $1)", IsNumeric, Promote),
      Binary("mul", "$0 * $1", IsNumeric, Promote),
      Binary("add_alpha", "torch.add($0, $1, alpha=2)", IsNumeric, Promote),
      Binary("div", "torch.div($0, $1.abs() + 1)", IsNumeric, AlwaysFloat),
      Binary("maximum", "torch.maximum($0, $1)", IsNumeric, Promote),
      Binary("minimum", "torch.minimum($0, $1)", IsNumeric, Promote),
      Binary("gt", "$0 > $1", IsNumeric, AlwaysBool),
      Binary("eq", "torch.eq($0, $1)", IsNumeric, AlwaysBool),
      Binary("logical_and", "$0 & $1", IsBool, AlwaysBool),
      Binary("logical_xor", "torch.logical_xor($0, $1)", IsBool, AlwaysBool),
      WithScalar("add_scalar", "$0 + $1"),
      WithScalar("mul_scalar", "$0 * $1"),
      WithScalar("rsub_scalar", "$1 - $0"),
      WithScalar("div_scalar", "$0 / $1", /*float_result=*/true),
      {"lt_scalar",
       [](Builder& b, const Gene& g) {
         const int x = b.Pick(g.a, IsNumeric);
         if (x < 0) return false;
         b.Assign(absl::StrCat(b[x].name, " < ", Literal(b[x].dtype, g.c)),
                  Fresh(at::kBool, b[x].shape));
         return true;
       }},
      {"where", WhereRule},
      {"masked_fill", MaskedFillRule},
      {"sum_all", SumAllRule},
      AlongDim("sum", "$0.sum($1, $2)", IsTensor, DimResult::kKeepdim, SumDtype),
      AlongDim("mean", "$0.mean($1, $2)", IsFloat, DimResult::kKeepdim, FloatDtype),
      AlongDim("amax", "$0.amax($1, $2)", IsNumeric, DimResult::kKeepdim, SameDtype,
               EmptyDim::kRaises),
      AlongDim("argmax", "torch.argmax($0, $1, $2)", IsFloat, DimResult::kKeepdim, LongDtype,
               EmptyDim::kRaises),
      AlongDim("softmax", "torch.softmax($0, $1)", IsFloat, DimResult::kSame, FloatDtype),
      AlongDim("log_softmax", "torch.log_softmax($0, $1)", IsFloat, DimResult::kSame, FloatDtype),
      AlongDim("cumsum", "torch.cumsum($0, $1)", IsNumeric, DimResult::kSame, SameDtype),
      {"transpose", TransposeRule},
      {"t", TRule},
      {"permute", PermuteRule},
      {"unsqueeze", UnsqueezeRule},
      ViewAlongDim(
          "squeeze", [](const Dim& d) { return d.IsOne(); },
          [](const Value& x, int64_t dim, const Gene&) {
            Shape shape = x.shape;
            shape.erase(shape.begin() + dim);
            return std::make_pair(absl::StrCat(x.name, ".squeeze(", dim, ")"), shape);
          }),
      Flatten("reshape", "$0.reshape(-1)", 0),
      Flatten("flatten", "torch.flatten($0, 1)", 1),
      Flatten("view", "$0.contiguous().view(-1)", 0),
      ViewAlongDim("slice", IsFixedAtLeast2,
                   [](const Value& x, int64_t dim, const Gene& g) {
                     const int64_t size = x.shape[dim].fixed;
                     const int64_t start = g.c % size;
                     const int64_t end = start + 1 + (g.c / 7) % (size - start);
                     Shape shape = x.shape;
                     shape[dim] = Dim{0, end - start};
                     return std::make_pair(
                         absl::StrCat(x.name, "[", SlicePrefix(dim), start, ":", end, "]"), shape);
                   }),
      ViewAlongDim("slice_step", IsFixedAtLeast2,
                   [](const Value& x, int64_t dim, const Gene&) {
                     Shape shape = x.shape;
                     shape[dim] = Dim{0, (shape[dim].fixed + 1) / 2};
                     return std::make_pair(absl::StrCat(x.name, "[", SlicePrefix(dim), "::2]"),
                                           shape);
                   }),
      ViewAlongDim(
          "slice_batch", [](const Dim& d) { return !d.IsFixed() && d.fixed >= 0; },
          [](const Value& x, int64_t dim, const Gene&) {
            Shape shape = x.shape;
            shape[dim].fixed -= 1;
            return std::make_pair(absl::StrCat(x.name, "[", SlicePrefix(dim), "1:]"), shape);
          }),
      ViewAlongDim(
          "noop_slice", [](const Dim&) { return true; },
          [](const Value& x, int64_t dim, const Gene&) {
            return std::make_pair(absl::StrCat(x.name, "[", SlicePrefix(dim), "0:]"), x.shape);
          }),
      ViewAlongDim("narrow", IsFixedAtLeast2,
                   [](const Value& x, int64_t dim, const Gene& g) {
                     const int64_t size = x.shape[dim].fixed;
                     const int64_t start = g.c % size;
                     const int64_t length = 1 + (g.c / 5) % (size - start);
                     Shape shape = x.shape;
                     shape[dim] = Dim{0, length};
                     return std::make_pair(
                         absl::StrCat(x.name, ".narrow(", dim, ", ", start, ", ", length, ")"),
                         shape);
                   }),
      ViewAlongDim("select", IsFixedPositive,
                   [](const Value& x, int64_t dim, const Gene& g) {
                     const int64_t index = g.c % x.shape[dim].fixed;
                     Shape shape = x.shape;
                     shape.erase(shape.begin() + dim);
                     return std::make_pair(absl::StrCat(x.name, ".select(", dim, ", ", index, ")"),
                                           shape);
                   }),
      {"expand", ExpandRule},
      SameShapeView("contiguous", "$0.contiguous()", /*may_copy=*/true),
      SameShapeView("detach", "$0.detach()", /*may_copy=*/false),
      {"cat", [](Builder& b, const Gene& g) { return CatOrStackPair(b, g, false); }},
      {"stack", [](Builder& b, const Gene& g) { return CatOrStackPair(b, g, true); }},
      {"chunk_unpack", ChunkUnpackRule},
      SplitToList("split", false),
      SplitToList("unbind", true),
      {"list", ListLiteralRule},
      {"list_index", ListIndexRule},
      {"cat_list", [](Builder& b, const Gene& g) { return ListReduceRule(b, g, false); }},
      {"stack_list", [](Builder& b, const Gene& g) { return ListReduceRule(b, g, true); }},
      InPlace("add_", "$0.add_($1)", IsNumeric, true, IsNumeric),
      InPlace("mul_", "$0.mul_($1)", IsNumeric, false),
      InPlace("relu_", "$0.relu_()", IsNumeric, false),
      InPlace("clamp_", "$0.clamp_(-0.5, 0.5)", IsFloat, false),
      InPlace("copy_", "$0.copy_($1)", IsTensor, true, IsTensor),
      InPlace("masked_fill_", "$0.masked_fill_($1, $2)", IsNumeric, true, IsBool),
      {"setitem",
       [](Builder& b, const Gene& g) {
         const int x = b.Pick(g.a, [&](const Value& v) {
           return b.Writable(v) && IsNumeric(v) && !v.shape.empty() && v.shape[0].IsFixed() &&
                  v.shape[0].fixed >= 1;
         });
         if (x < 0) return false;
         b.Line(absl::StrCat(b[x].name, "[", g.b % b[x].shape[0].fixed,
                             "] = ", Literal(b[x].dtype, g.c)));
         b.Assign(b[x].name, ViewOf(b[x], b[x].shape));
         return true;
       }},
      {"matmul_param", [](Builder& b, const Gene& g) { return MatmulParameterRule(b, g, false); }},
      {"linear", [](Builder& b, const Gene& g) { return MatmulParameterRule(b, g, true); }},
      {"matmul_transposed", MatmulTransposedRule},
      {"if", [](Builder& b, const Gene& g) { return IfRule(b, g, Branches::kPlain); }},
      {"if_mutate", IfMutateRule},
      {"for_loop", [](Builder& b, const Gene& g) { return LoopRule(b, g, false); }},
      {"while_loop", [](Builder& b, const Gene& g) { return LoopRule(b, g, true); }},
      {"size", SizeRule},
      {"int_arithmetic", IntArithmeticRule},
      {"item", ItemRule},
      {"scalar_value", ScalarValueRule},
      {"zeros_of_size", ZerosOfSizeRule},
      Unary("clamp_min", "torch.clamp($0, min=-0.5)", IsFloat),
      Unary("clamp_max", "$0.clamp(max=0.5)", IsFloat),
      Unary("log1p", "torch.log1p($0.abs())", IsFloat),
      // Last: earlier genes keep their rules.
      {"if_raise", [](Builder& b, const Gene& g) { return IfRule(b, g, Branches::kRaising); }},
      {"if_warn", [](Builder& b, const Gene& g) { return IfRule(b, g, Branches::kWarning); }},
      {"for_loop_warn", [](Builder& b, const Gene& g) { return LoopRule(b, g, false, true); }},
      {"fork", ForkRule},
      {"used_in_and_after_chain", UsedInAndAfterChainRule},
      {"is_contiguous", [](Builder& b, const Gene& g) { return StridesReadRule(b, g, true); }},
      {"stride", [](Builder& b, const Gene& g) { return StridesReadRule(b, g, false); }},
  };
  return *kRules;
}

}  // namespace fuzz
}  // namespace static_runtime
