#include "fuzz/random_program.h"

#include <utility>

#include "fuzz/op_rules.h"
#include "fuzz/program_builder.h"

namespace static_runtime {
namespace fuzz {

const std::vector<std::string>& OpNames() {
  static const auto* const kNames = [] {
    auto* names = new std::vector<std::string>();
    for (const OpRule& rule : Rules()) names->push_back(rule.name);
    return names;
  }();
  return *kNames;
}

Program BuildProgram(const ProgramSpec& spec) {
  Builder b(/*parameter_seed=*/0);
  std::vector<InputSpec> inputs;
  for (const Gene& gene : spec.inputs) {
    static const at::ScalarType kDtypes[] = {at::kFloat, at::kFloat, at::kFloat, at::kLong,
                                             at::kBool};
    const at::ScalarType dtype = kDtypes[gene.a % 5];
    const int64_t features = 1 + gene.c % 4, middle = 1 + (gene.c / 4) % 3;
    Shape shape = {Dim{1, 0}};
    if (gene.b % 3 >= 1) shape.push_back(Dim{0, features});
    if (gene.b % 3 == 2) shape.insert(shape.begin() + 1, Dim{0, middle});
    InputSpec input{dtype, {}};
    for (const Dim& dim : shape) input.dims.emplace_back(dim.per_batch, dim.fixed);
    inputs.push_back(std::move(input));
    b.AddInput(dtype, shape);
  }
  if (inputs.empty()) {
    inputs.push_back({at::kFloat, {{1, 0}}});
    b.AddInput(at::kFloat, {Dim{1, 0}});
  }
  const std::vector<OpRule>& rules = Rules();
  for (const Gene& gene : spec.body) {
    const OpRule& rule = rules[gene.op % rules.size()];
    if (rule.apply(b, gene)) b.RecordOp(rule.name);
  }
  // Every value nothing uses is returned (so no statement is dead), then the
  // extra picks (inputs, duplicates, anything).
  std::vector<int> outputs = b.Unused();
  if (outputs.empty()) outputs.push_back(b.size() - 1);
  for (uint32_t extra : spec.extra_outputs) {
    outputs.push_back(static_cast<int>(extra % b.size()));
  }
  Program program = b.Finish(outputs);
  program.inputs = std::move(inputs);
  return program;
}

std::vector<c10::IValue> Program::MakeInputs(uint64_t seed, int64_t batch) const {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  std::vector<c10::IValue> values;
  for (const InputSpec& input : inputs) {
    std::vector<int64_t> sizes;
    for (const auto& [per_batch, fixed] : input.dims) sizes.push_back(per_batch * batch + fixed);
    switch (input.dtype) {
      case at::kFloat:
        values.emplace_back(at::randn(sizes, generator));
        break;
      case at::kLong:
        values.emplace_back(at::randint(-3, 4, sizes, generator));
        break;
      default:
        values.emplace_back(at::randint(0, 2, sizes, generator).to(at::kBool));
    }
  }
  return values;
}

}  // namespace fuzz
}  // namespace static_runtime
