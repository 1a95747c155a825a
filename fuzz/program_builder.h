// What the random program generator's rules write with: the values a program
// has so far (kind, dtype, symbolic shape, which storage each views and
// whether it may be written in place), the Builder that picks operands among
// them and emits TorchScript lines, and OpRule, one row of the op table
// (fuzz/op_rules.h).
#ifndef STATIC_RUNTIME_FUZZ_PROGRAM_BUILDER_H_
#define STATIC_RUNTIME_FUZZ_PROGRAM_BUILDER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fuzz/random_program.h"
#include "fuzz/symbolic_shape.h"

namespace static_runtime {
namespace fuzz {

enum class Kind { kTensor, kList, kInt, kFloat };

struct Value {
  std::string name;
  Kind kind = Kind::kTensor;
  at::ScalarType dtype = at::kFloat;  // of a tensor or of a list's elements
  Shape shape;                        // of a tensor or of a list's elements
  // Lists: the root of each element (see `root`).
  std::vector<int> element_roots;
  // Ints that are sizes: the size they hold.
  std::optional<Dim> size;
  // The value whose storage this one views (itself when fresh).
  int root = -1;
  // May be written in place: owned by the program (not an input, a
  // parameter, an expanded tensor or a value an If/Loop may alias).
  bool writable = false;
};

inline bool IsTensor(const Value& v) { return v.kind == Kind::kTensor; }
inline bool IsNumeric(const Value& v) { return IsTensor(v) && v.dtype != at::kBool; }
inline bool IsFloat(const Value& v) { return IsTensor(v) && v.dtype == at::kFloat; }
inline bool IsBool(const Value& v) { return IsTensor(v) && v.dtype == at::kBool; }

at::ScalarType Promote(at::ScalarType a, at::ScalarType b);

// The literals statements use, picked by a gene's number modulo 4.
inline constexpr const char* kFloatLiterals[] = {"0.5", "-1.5", "2.0", "0.25"};
inline constexpr const char* kIntLiterals[] = {"2", "-1", "3", "1"};

// A literal of `dtype`'s kind (an int literal for long and bool tensors).
std::string Literal(at::ScalarType dtype, uint32_t choice);

using Accept = std::function<bool(const Value&)>;
using AcceptDim = std::function<bool(const Dim&)>;

// A value Builder::PickWithDim chose (-1: none) and one of its dims.
struct ValueDim {
  int value = -1;
  int64_t dim = -1;
};

class Builder {
 public:
  explicit Builder(uint64_t parameter_seed)
      : generator_(at::detail::createCPUGenerator(parameter_seed)) {}

  const Value& operator[](int index) const { return values_[index]; }
  int size() const { return static_cast<int>(values_.size()); }

  // The `choice`-th (modulo) value `accept` takes, or -1. The value counts
  // as used.
  int Pick(uint32_t choice, const Accept& accept) {
    std::vector<int> candidates;
    for (int i = 0; i < size(); ++i) {
      if (accept(values_[i])) candidates.push_back(i);
    }
    if (candidates.empty()) return -1;
    const int picked = candidates[choice % candidates.size()];
    used_[picked] = true;
    return picked;
  }

  // The `choice`-th (modulo) value `accept` takes among those with a dim
  // `accept_dim` takes, and the `dim_choice`-th (modulo) such dim. The value
  // counts as used.
  ValueDim PickWithDim(uint32_t choice, uint32_t dim_choice, const Accept& accept,
                       const AcceptDim& accept_dim);

  // Values the program computed that nothing uses.
  std::vector<int> Unused() const {
    std::vector<int> unused;
    for (int i = static_cast<int>(inputs_.size()); i < size(); ++i) {
      if (!used_[i]) unused.push_back(i);
    }
    return unused;
  }

  std::string NextName() const { return absl::StrCat("v", values_.size()); }

  // Whether `value` may be written in place now.
  bool Writable(const Value& value) const {
    return value.writable && !frozen_roots_.count(value.root);
  }
  // No more writes to anything viewing `root`'s storage: after reshape,
  // flatten or contiguous, whether the result shares that storage depends on
  // strides, which PyTorch leaves unspecified ("do not depend on the copying
  // vs. viewing behavior"), and a runtime may lay tensors out differently.
  void FreezeRoot(int root) { frozen_roots_.insert(root); }

  // Declares a new value (its name is NextName()).
  int Declare(Value value) {
    value.name = NextName();
    if (value.root < 0) value.root = size();
    values_.push_back(std::move(value));
    used_.push_back(false);
    return size() - 1;
  }

  int AddInput(at::ScalarType dtype, Shape shape) {
    Value value;
    value.dtype = dtype;
    value.shape = std::move(shape);
    value.name = absl::StrCat("x", inputs_.size());
    value.root = size();
    inputs_.push_back(value.name);
    values_.push_back(std::move(value));
    used_.push_back(false);
    return size() - 1;
  }

  // `<new name> = <expr>` with a comment giving the value's type.
  int Assign(const std::string& expr, Value value) {
    const std::string name = NextName();
    Line(absl::StrCat(name, " = ", expr, "  # ", TypeText(value)));
    return Declare(std::move(value));
  }

  void Line(const std::string& text) {
    lines_.push_back(absl::StrCat(std::string(4 * indent_, ' '), text));
  }
  void Indent() { ++indent_; }
  void Dedent() { --indent_; }

  // Registers a parameter of `shape` and returns its name, `self.pN`.
  std::string Parameter(std::vector<int64_t> shape) {
    const std::string name = absl::StrCat("p", parameters_.size());
    parameters_.emplace_back(name, at::randn(shape, generator_) * 0.5);
    return absl::StrCat("self.", name);
  }

  void RecordOp(const std::string& op) { ops_.push_back(op); }

  // Adds a method of the module besides forward (a forked call's callee),
  // `def ...` with its body, indented as at the top level.
  void Method(const std::string& text) { methods_.push_back(text); }

  Program Finish(const std::vector<int>& outputs) {
    Program program;
    std::vector<std::string> arguments = {"self"};
    for (const std::string& input : inputs_) arguments.push_back(input + ": Tensor");
    program.source = absl::StrCat("def forward(", absl::StrJoin(arguments, ", "), "):\n");
    for (const std::string& line : lines_) absl::StrAppend(&program.source, line, "\n");
    std::vector<std::string> names;
    for (int output : outputs) names.push_back(values_[output].name);
    absl::StrAppend(
        &program.source, "    return ",
        names.size() == 1 ? names[0] : absl::StrCat("(", absl::StrJoin(names, ", "), ")"), "\n");
    for (const std::string& method : methods_) absl::StrAppend(&program.source, "\n", method);
    program.parameters = std::move(parameters_);
    program.ops = std::move(ops_);
    return program;
  }

  static std::string TypeText(const Value& value) {
    switch (value.kind) {
      case Kind::kTensor:
        return absl::StrCat(DtypeText(value.dtype), ShapeText(value.shape));
      case Kind::kList:
        return absl::StrCat("list of ", value.element_roots.size(), " ", DtypeText(value.dtype),
                            ShapeText(value.shape));
      case Kind::kInt:
        return value.size ? absl::StrCat("int = ", DimText(*value.size)) : "int";
      case Kind::kFloat:
        return "float";
    }
    return "";
  }

 private:
  at::Generator generator_;
  std::vector<Value> values_;
  std::vector<bool> used_;
  std::vector<std::string> inputs_;
  std::vector<std::string> lines_;
  std::vector<std::string> methods_;
  std::vector<NamedTensor> parameters_;
  std::vector<std::string> ops_;
  std::set<int> frozen_roots_;
  int indent_ = 1;
};

// A fresh tensor value (owned by the program, may be written in place).
Value Fresh(at::ScalarType dtype, Shape shape);

// A view of `base` with another shape.
Value ViewOf(const Value& base, Shape shape);

Value IntValue(std::optional<Dim> size);

// Dimension `choice` of a rank-`rank` tensor, written positive or negative.
std::string DimArg(int64_t dim, int64_t rank, uint32_t choice);

// ":, " for each dim before `dim` in an indexing expression.
std::string SlicePrefix(int64_t dim);

struct OpRule {
  std::string name;
  // Emits the statement for `gene`; false when the op has no operands here.
  std::function<bool(Builder&, const Gene&)> apply;
};

}  // namespace fuzz
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_FUZZ_PROGRAM_BUILDER_H_
