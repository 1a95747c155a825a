// ops/rnn/lstm: the frozen-weight LSTM, GRU and RNN give ATen's results bit for
// bit, for random layer counts, directions, layouts, biases and sizes (hidden
// sizes on both sides of the vector widths), on padded batches and on packed
// sequences, and decline what they do not take.
#include "ops/rnn/lstm.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "ops/core/cpu_isa.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "torch/csrc/jit/ir/ir.h"
#include "torch/csrc/jit/runtime/interpreter.h"

namespace static_runtime {
namespace {

using testing::Difference;
using testing::Draw;
constexpr ops::FrozenRnn::Cell kLstm = ops::FrozenRnn::Cell::kLstm;
constexpr ops::FrozenRnn::Cell kGru = ops::FrozenRnn::Cell::kGru;

struct LstmCase {
  at::Tensor input, h0, c0;
  std::vector<at::Tensor> params;
  bool has_biases = true;
  int64_t num_layers = 1;
  bool bidirectional = false;
  bool batch_first = false;
};

// `gates` 4 is an LSTM, which may have projections (proj_size < hidden).
LstmCase DrawCase(Draw& d, int64_t gates = 4) {
  LstmCase c;
  c.num_layers = d.Int(1, 2);
  c.bidirectional = d.Bool();
  c.batch_first = d.Bool();
  c.has_biases = d.Bool() || d.Bool();
  const int64_t directions = c.bidirectional ? 2 : 1;
  const int64_t batch = d.Int(1, 4), steps = d.Int(1, 5), features = d.Int(1, 40);
  const int64_t hidden =
      d.Bool() ? d.OneOf<int64_t>({1, 8, 15, 16, 17, 31, 32, 33, 48, 64}) : d.Int(1, 70);
  const bool projected = gates == 4 && hidden > 1 && d.Bool();
  const int64_t state = projected ? d.Int(1, hidden - 1) : hidden;
  c.input = c.batch_first ? d.Tensor({batch, steps, features}, at::kFloat)
                          : d.Tensor({steps, batch, features}, at::kFloat);
  c.h0 = d.Tensor({c.num_layers * directions, batch, state}, at::kFloat);
  c.c0 = d.Tensor({c.num_layers * directions, batch, hidden}, at::kFloat);
  for (int64_t layer = 0; layer < c.num_layers; ++layer) {
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t in = layer == 0 ? features : directions * state;
      c.params.push_back(d.Tensor({gates * hidden, in}, at::kFloat));
      c.params.push_back(d.Tensor({gates * hidden, state}, at::kFloat));
      if (c.has_biases) {
        c.params.push_back(d.Tensor({gates * hidden}, at::kFloat));
        c.params.push_back(d.Tensor({gates * hidden}, at::kFloat));
      }
      if (projected) c.params.push_back(d.Tensor({state, hidden}, at::kFloat));
    }
  }
  return c;
}

// A graph `aten::lstm(x, [h0, c0], <params>, ...)` whose parameters and flags
// are constants (as in a frozen model), or graph inputs when !frozen.
struct LstmGraph {
  std::shared_ptr<torch::jit::Graph> graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Node* node = nullptr;
};
LstmGraph MakeGraph(const LstmCase& c, bool frozen) {
  LstmGraph g;
  torch::jit::Graph& graph = *g.graph;
  torch::jit::Value* x = graph.addInput("x")->setType(c10::TensorType::get());
  torch::jit::Value* h0 = graph.addInput("h0")->setType(c10::TensorType::get());
  torch::jit::Value* c0 = graph.addInput("c0")->setType(c10::TensorType::get());
  torch::jit::Value* hx =
      graph.insertNode(graph.createList(c10::TensorType::get(), {h0, c0}))->output();
  torch::jit::Value* params = frozen
                                  ? graph.insertConstant(c10::List<at::Tensor>(c.params))
                                  : graph.addInput("params")->setType(c10::ListType::ofTensors());
  torch::jit::Value* result = graph.insert(
      c10::Symbol::fromQualString("aten::lstm"),
      {x, hx, params, c.has_biases, c.num_layers, 0.0, false, c.bidirectional, c.batch_first});
  // insert() packs the three outputs into a tuple.
  g.node = result->node()->input(0)->node();
  graph.registerOutput(result);
  return g;
}

std::vector<c10::IValue> KernelInputs(const LstmCase& c) {
  return {c.input,
          c10::List<at::Tensor>({c.h0, c.c0}),
          c10::List<at::Tensor>(c.params),
          c.has_biases,
          c.num_layers,
          0.0,
          false,
          c.bidirectional,
          c.batch_first};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> AtenLstm(const LstmCase& c) {
  return at::lstm(c.input, {c.h0, c.c0}, c.params, c.has_biases, c.num_layers, 0.0, false,
                  c.bidirectional, c.batch_first);
}

RC_GTEST_PROP(FrozenLstm, EqualsAtenBitForBit, ()) {
  Draw d;
  const LstmCase c = DrawCase(d);
  const bool inference = d.Bool();
  c10::optional<c10::InferenceMode> mode;
  if (inference) mode.emplace();
  const LstmGraph g = MakeGraph(c, /*frozen=*/true);
  const std::optional<ops::FrozenRnn> lstm =
      ops::FrozenRnn::FromNode(g.node, kLstm, /*packed=*/false);
  RC_ASSERT(lstm.has_value());
  const auto ours = lstm->Run(c.input, c.h0, c.c0);
  RC_ASSERT(ours.has_value());
  const auto expected = AtenLstm(c);
  RC_LOG() << "layers " << c.num_layers << " bidirectional " << c.bidirectional << " batch_first "
           << c.batch_first << " biases " << c.has_biases << " input " << c.input.sizes()
           << " strides " << c.input.strides() << " h0 " << c.h0.sizes() << " c0 " << c.c0.sizes()
           << " inference " << inference << "\n";
  RC_ASSERT(Difference(std::get<0>(expected), std::get<0>(*ours)) == "");
  RC_ASSERT(std::get<0>(expected).strides() == std::get<0>(*ours).strides());
  RC_ASSERT(Difference(std::get<1>(expected), std::get<1>(*ours)) == "");
  RC_ASSERT(Difference(std::get<2>(expected), std::get<2>(*ours)) == "");

  // The registered kernel takes the same path and leaves the inputs alone.
  const at::Tensor input_before = c.input.clone(), h0_before = c.h0.clone();
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(g.node, /*allow_out_variants=*/true);
  RC_ASSERT(selected.has_value());
  testing::Slots slots(3);
  RC_ASSERT(slots.Run(selected->kernel, KernelInputs(c)) == "");
  RC_ASSERT(Difference(std::get<0>(expected), slots.Output(0)) == "");
  RC_ASSERT(Difference(std::get<2>(expected), slots.Output(2)) == "");
  RC_ASSERT(at::equal(input_before, c.input) && at::equal(h0_before, c.h0));
}

// A graph `aten::<op>(x, h0, <params>, ...)` (gru, rnn_tanh, rnn_relu) whose
// parameters and flags are constants (as in a frozen model).
LstmGraph MakeSingleStateGraph(const LstmCase& c, const char* op) {
  LstmGraph g;
  torch::jit::Graph& graph = *g.graph;
  torch::jit::Value* x = graph.addInput("x")->setType(c10::TensorType::get());
  torch::jit::Value* h0 = graph.addInput("h0")->setType(c10::TensorType::get());
  torch::jit::Value* params = graph.insertConstant(c10::List<at::Tensor>(c.params));
  torch::jit::Value* result = graph.insert(
      c10::Symbol::fromQualString(op),
      {x, h0, params, c.has_biases, c.num_layers, 0.0, false, c.bidirectional, c.batch_first});
  g.node = result->node()->input(0)->node();
  graph.registerOutput(result);
  return g;
}

using SingleStateAten = std::tuple<at::Tensor, at::Tensor> (*)(const at::Tensor&, const at::Tensor&,
                                                               at::TensorList, bool, int64_t,
                                                               double, bool, bool, bool);

// A GRU or an RNN of random shape, flags and values: FrozenRnn and the
// registered kernel equal ATen bit for bit, and leave the inputs alone.
void CheckSingleState(ops::FrozenRnn::Cell cell, int64_t gates, const char* op,
                      SingleStateAten aten) {
  Draw d;
  const LstmCase c = DrawCase(d, gates);
  const bool inference = d.Bool();
  c10::optional<c10::InferenceMode> mode;
  if (inference) mode.emplace();
  const LstmGraph g = MakeSingleStateGraph(c, op);
  const std::optional<ops::FrozenRnn> rnn =
      ops::FrozenRnn::FromNode(g.node, cell, /*packed=*/false);
  RC_ASSERT(rnn.has_value());
  const auto ours = rnn->Run(c.input, c.h0, at::Tensor());
  RC_ASSERT(ours.has_value());
  const auto expected = aten(c.input, c.h0, c.params, c.has_biases, c.num_layers, 0.0, false,
                             c.bidirectional, c.batch_first);
  RC_LOG() << op << " layers " << c.num_layers << " bidirectional " << c.bidirectional
           << " batch_first " << c.batch_first << " biases " << c.has_biases << " input "
           << c.input.sizes() << " h0 " << c.h0.sizes() << " inference " << inference << "\n";
  RC_ASSERT(Difference(std::get<0>(expected), std::get<0>(*ours)) == "");
  RC_ASSERT(std::get<0>(expected).strides() == std::get<0>(*ours).strides());
  RC_ASSERT(Difference(std::get<1>(expected), std::get<1>(*ours)) == "");

  const at::Tensor input_before = c.input.clone(), h0_before = c.h0.clone();
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(g.node, /*allow_out_variants=*/true);
  RC_ASSERT(selected.has_value());
  testing::Slots slots(2);
  RC_ASSERT(slots.Run(selected->kernel,
                      {c.input, c.h0, c10::List<at::Tensor>(c.params), c.has_biases, c.num_layers,
                       0.0, false, c.bidirectional, c.batch_first}) == "");
  RC_ASSERT(Difference(std::get<0>(expected), slots.Output(0)) == "");
  RC_ASSERT(Difference(std::get<1>(expected), slots.Output(1)) == "");
  RC_ASSERT(at::equal(input_before, c.input) && at::equal(h0_before, c.h0));
}

RC_GTEST_PROP(FrozenGru, EqualsAtenBitForBit, ()) {
  CheckSingleState(kGru, 3, "aten::gru", &at::gru);
}

RC_GTEST_PROP(FrozenRnnTanh, EqualsAtenBitForBit, ()) {
  CheckSingleState(ops::FrozenRnn::Cell::kRnnTanh, 1, "aten::rnn_tanh", &at::rnn_tanh);
}

RC_GTEST_PROP(FrozenRnnRelu, EqualsAtenBitForBit, ()) {
  CheckSingleState(ops::FrozenRnn::Cell::kRnnRelu, 1, "aten::rnn_relu", &at::rnn_relu);
}

// Packed sequences (nn.utils.rnn.pack_padded_sequence's data and batch
// sizes, the .data overloads): random lengths, every cell, multi-layer and
// bidirectional; the registered kernel gives ATen's results bit for bit.
void CheckPacked(ops::FrozenRnn::Cell cell, int64_t gates, const char* op) {
  Draw d;
  const LstmCase c = DrawCase(d, gates);
  const int64_t steps = c.input.size(c.batch_first ? 1 : 0);
  const int64_t batch = c.input.size(c.batch_first ? 0 : 1);
  std::vector<int64_t> lengths;
  for (int64_t b = 0; b < batch; ++b) lengths.push_back(d.Int(1, steps));
  std::sort(lengths.rbegin(), lengths.rend());
  const auto [data, batch_sizes] =
      at::_pack_padded_sequence(c.input, at::tensor(lengths), c.batch_first);
  const bool lstm = cell == kLstm;
  auto graph = std::make_shared<torch::jit::Graph>();
  std::vector<torch::jit::NamedValue> args = {
      graph->addInput("data")->setType(c10::TensorType::get()),
      graph->addInput("batch_sizes")->setType(c10::TensorType::get())};
  torch::jit::Value* h0 = graph->addInput("h0")->setType(c10::TensorType::get());
  if (lstm) {
    torch::jit::Value* c0 = graph->addInput("c0")->setType(c10::TensorType::get());
    args.emplace_back(
        graph->insertNode(graph->createList(c10::TensorType::get(), {h0, c0}))->output());
  } else {
    args.emplace_back(h0);
  }
  const std::vector<c10::IValue> flags = {
      c10::List<at::Tensor>(c.params), c.has_biases, c.num_layers, 0.0, false, c.bidirectional};
  for (const c10::IValue& flag : flags) args.emplace_back(graph->insertConstant(flag));
  torch::jit::Value* result = graph->insert(c10::Symbol::fromQualString(op), args);
  torch::jit::Node* node = result->node()->input(0)->node();
  graph->registerOutput(result);
  RC_ASSERT(node->schema().overload_name() == "data");
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(node, /*allow_out_variants=*/true);
  RC_ASSERT(selected.has_value());
  RC_ASSERT(ops::FrozenRnn::FromNode(node, cell, /*packed=*/true).has_value());
  std::vector<c10::IValue> inputs = {data, batch_sizes};
  if (lstm) {
    inputs.emplace_back(c10::List<at::Tensor>({c.h0, c.c0}));
  } else {
    inputs.emplace_back(c.h0);
  }
  inputs.insert(inputs.end(), flags.begin(), flags.end());
  std::vector<at::Tensor> expected;
  if (lstm) {
    const auto [output, h_n, c_n] =
        at::lstm(data, batch_sizes, {c.h0, c.c0}, c.params, c.has_biases, c.num_layers, 0.0, false,
                 c.bidirectional);
    expected = {output, h_n, c_n};
  } else {
    using Packed = std::tuple<at::Tensor, at::Tensor> (*)(const at::Tensor&, const at::Tensor&,
                                                          const at::Tensor&, at::TensorList, bool,
                                                          int64_t, double, bool, bool);
    const Packed aten = cell == kGru ? static_cast<Packed>(&at::gru)
                        : cell == ops::FrozenRnn::Cell::kRnnTanh
                            ? static_cast<Packed>(&at::rnn_tanh)
                            : static_cast<Packed>(&at::rnn_relu);
    const auto [output, h_n] = aten(data, batch_sizes, c.h0, c.params, c.has_biases, c.num_layers,
                                    0.0, false, c.bidirectional);
    expected = {output, h_n};
  }
  RC_LOG() << op << " layers " << c.num_layers << " bidirectional " << c.bidirectional << " biases "
           << c.has_biases << " h0 " << c.h0.sizes() << " c0 " << c.c0.sizes() << " batch sizes "
           << batch_sizes << "\n";
  testing::Slots slots(expected.size());
  RC_ASSERT(slots.Run(selected->kernel, inputs) == "");
  for (size_t i = 0; i < expected.size(); ++i) {
    RC_ASSERT(Difference(expected[i], slots.Output(i)) == "");
  }
}

RC_GTEST_PROP(FrozenLstm, PackedSequencesEqualAtenBitForBit, ()) {
  CheckPacked(kLstm, 4, "aten::lstm");
}

RC_GTEST_PROP(FrozenGru, PackedSequencesEqualAtenBitForBit, ()) {
  CheckPacked(kGru, 3, "aten::gru");
}

RC_GTEST_PROP(FrozenRnnTanhAndRelu, PackedSequencesEqualAtenBitForBit, ()) {
  CheckPacked(ops::FrozenRnn::Cell::kRnnTanh, 1, "aten::rnn_tanh");
  CheckPacked(ops::FrozenRnn::Cell::kRnnRelu, 1, "aten::rnn_relu");
}

// A graph of one `op` node whose first `graph_inputs` arguments are graph
// inputs and the others constants (a frozen network's parameters and flags).
LstmGraph MakeNodeGraph(const std::string& op, const std::vector<c10::IValue>& args,
                        size_t graph_inputs) {
  LstmGraph g;
  std::vector<torch::jit::NamedValue> values;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i < graph_inputs) {
      const c10::TypePtr type = args[i].isTensor() ? c10::TypePtr(c10::TensorType::get())
                                                   : c10::TypePtr(c10::ListType::ofTensors());
      values.emplace_back(g.graph->addInput()->setType(type));
    } else {
      values.emplace_back(g.graph->insertConstant(args[i]));
    }
  }
  torch::jit::Value* result = g.graph->insert(c10::Symbol::fromQualString(op), values);
  g.node = result->node()->input(0)->node();
  g.graph->registerOutput(result);
  return g;
}

// The JIT's outputs of the graph on `inputs`.
std::vector<at::Tensor> RunOnJit(const LstmGraph& g, std::vector<c10::IValue> inputs) {
  torch::jit::Code code(g.graph, "rnn");
  torch::jit::InterpreterState(code).run(inputs);
  std::vector<at::Tensor> outputs;
  for (const c10::IValue& output : inputs.back().toTupleRef().elements()) {
    outputs.push_back(output.toTensor());
  }
  return outputs;
}

c10::IValue ToDouble(const c10::IValue& value) {
  if (value.isTensor()) {
    const at::Tensor& tensor = value.toTensor();
    return tensor.is_floating_point() ? tensor.to(at::kDouble) : tensor;
  }
  if (!value.isTensorList()) return value;
  std::vector<at::Tensor> tensors = value.toTensorVector();
  for (at::Tensor& tensor : tensors) tensor = tensor.to(at::kDouble);
  return c10::List<at::Tensor>(tensors);
}

// A random network of `cell` (its aten op `op`) on a padded batch or on
// packed sequences, made the fast-gates op `fast` as UseFastRnnGates makes
// it: its kernel declares a bound, and both its results and ATen's are within
// it of the exact (float64) network's.
// The weights are scaled to 1 / sqrt(hidden) (nn.LSTM initializes them
// uniformly in +-1 / sqrt(hidden)): with the draw's own scale (standard
// deviation 2) the gates saturate and a network can be chaotic, its float32
// rounding error growing step by step whatever the order of the sums (ATen's
// own 5e-3 on outputs within +-1 in one such case), where no multiple of
// ATen's error bounds another order's.
void CheckFastGates(ops::FrozenRnn::Cell cell, const std::string& op, const std::string& fast) {
  Draw d;
  const bool lstm = cell == kLstm;
  LstmCase c = DrawCase(d, lstm ? 4 : cell == kGru ? 3 : 1);
  const double scale = 0.5 / std::sqrt(static_cast<double>(c.c0.size(2)));
  for (at::Tensor& param : c.params) param = param * scale;
  const bool packed = d.Bool();
  const c10::IValue hx = lstm ? c10::IValue(c10::List<at::Tensor>({c.h0, c.c0})) : c.h0;
  const std::vector<c10::IValue> flags = {
      c10::List<at::Tensor>(c.params), c.has_biases, c.num_layers, 0.0, false, c.bidirectional};
  std::vector<c10::IValue> args;
  if (packed) {
    const int64_t steps = c.input.size(c.batch_first ? 1 : 0);
    std::vector<int64_t> lengths;
    for (int64_t b = 0; b < c.input.size(c.batch_first ? 0 : 1); ++b) {
      lengths.push_back(d.Int(1, steps));
    }
    std::sort(lengths.rbegin(), lengths.rend());
    const auto [data, batch_sizes] =
        at::_pack_padded_sequence(c.input, at::tensor(lengths), c.batch_first);
    args = {data, batch_sizes, hx};
  } else {
    args = {c.input, hx};
  }
  args.insert(args.end(), flags.begin(), flags.end());
  if (!packed) args.emplace_back(c.batch_first);
  const size_t graph_inputs = packed ? 3 : 2;
  const LstmGraph aten_graph = MakeNodeGraph(op, args, graph_inputs);
  LstmGraph g = MakeNodeGraph(op, args, graph_inputs);
  ops::EnsureOperatorsRegistered();
  torch::jit::Node* node = g.node->replaceWithNewSymbol(c10::Symbol::fromQualString(fast));
  g.node->destroy();
  g.node = node;
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(node, /*allow_out_variants=*/true);
  RC_ASSERT(selected.has_value());
  RC_ASSERT(static_cast<bool>(selected->error_bound));
  RC_ASSERT(ops::FrozenRnn::FromNode(node, cell, packed, /*fast_gates=*/true).has_value());

  const std::vector<c10::IValue> graph_args(args.begin(), args.begin() + graph_inputs);
  const std::vector<at::Tensor> aten = RunOnJit(aten_graph, graph_args);
  std::vector<c10::IValue> exact_args;
  for (const c10::IValue& arg : args) exact_args.push_back(ToDouble(arg));
  const std::vector<at::Tensor> exact =
      RunOnJit(MakeNodeGraph(op, exact_args, graph_inputs),
               std::vector<c10::IValue>(exact_args.begin(), exact_args.begin() + graph_inputs));
  testing::Slots slots(aten.size());
  RC_ASSERT(slots.Run(selected->kernel, args) == "");
  RC_LOG() << fast << (packed ? " packed" : " padded") << " layers " << c.num_layers
           << " bidirectional " << c.bidirectional << " input " << c.input.sizes() << " h0 "
           << c.h0.sizes() << "\n";
  for (size_t i = 0; i < aten.size(); ++i) {
    const at::Tensor ours = slots.Output(i).toTensor();
    RC_ASSERT(ours.sizes() == aten[i].sizes());
    RC_ASSERT(ours.strides() == aten[i].strides());
    const at::Tensor bound = selected->error_bound(args, exact[i]);
    const double ours_error = (ours.to(at::kDouble) - exact[i]).abs().max().item<double>();
    const double aten_error = (aten[i].to(at::kDouble) - exact[i]).abs().max().item<double>();
    RC_LOG() << "output " << i << ": bound " << bound.max().item<double>() << ", ours "
             << ours_error << ", ATen's " << aten_error << "\n";
    RC_ASSERT(((ours.to(at::kDouble) - exact[i]).abs() <= bound).all().item<bool>());
    RC_ASSERT(((aten[i].to(at::kDouble) - exact[i]).abs() <= bound).all().item<bool>());
  }
}

RC_GTEST_PROP(FastGates, LstmWithinItsBound, ()) {
  CheckFastGates(kLstm, "aten::lstm", "static_runtime::lstm_fast_gates");
}

RC_GTEST_PROP(FastGates, GruWithinItsBound, ()) {
  CheckFastGates(kGru, "aten::gru", "static_runtime::gru_fast_gates");
}

RC_GTEST_PROP(FastGates, RnnTanhWithinItsBound, ()) {
  CheckFastGates(ops::FrozenRnn::Cell::kRnnTanh, "aten::rnn_tanh",
                 "static_runtime::rnn_tanh_fast_gates");
}

// The fast-gates kernel runs our functions, not ATen's, where the CPU has
// them: its results differ from ATen's in the last bits somewhere.
TEST(FastGates, RunTheirOwnFunctions) {
  if (ops::FastRnnStepsForThisCpu().steps.lstm == nullptr) GTEST_SKIP() << "no AVX2";
  const at::Tensor input = at::randn({20, 2, 16}), h0 = at::randn({1, 2, 64});
  const at::Tensor c0 = at::randn({1, 2, 64});
  const std::vector<at::Tensor> params = {at::randn({256, 16}), at::randn({256, 64}) * 0.1,
                                          at::randn({256}), at::randn({256})};
  const std::vector<c10::IValue> args = {input,
                                         c10::List<at::Tensor>({h0, c0}),
                                         c10::List<at::Tensor>(params),
                                         true,
                                         1,
                                         0.0,
                                         false,
                                         false,
                                         false};
  LstmGraph g = MakeNodeGraph("aten::lstm", args, 2);
  ops::EnsureOperatorsRegistered();
  torch::jit::Node* fast = g.node->replaceWithNewSymbol(ops::kLstmFastGates);
  g.node->destroy();
  const std::optional<ops::FrozenRnn> lstm =
      ops::FrozenRnn::FromNode(fast, kLstm, /*packed=*/false, /*fast_gates=*/true);
  ASSERT_TRUE(lstm.has_value());
  const auto ours = lstm->Run(input, h0, c0);
  ASSERT_TRUE(ours.has_value());
  const auto aten = at::lstm(input, {h0, c0}, params, true, 1, 0.0, false, false, false);
  EXPECT_FALSE(at::equal(std::get<0>(*ours), std::get<0>(aten)));
  EXPECT_TRUE(at::allclose(std::get<0>(*ours), std::get<0>(aten), 0, 1e-5));
}

LstmCase SmallCase() {
  LstmCase c;
  c.input = at::randn({3, 2, 5});
  c.h0 = at::randn({1, 2, 4});
  c.c0 = at::randn({1, 2, 4});
  c.params = {at::randn({16, 5}), at::randn({16, 4}), at::randn({16}), at::randn({16})};
  return c;
}

TEST(FrozenLstm, StepKernelMatchesAtenOnThisCpu) { EXPECT_NE(ops::LstmStepForThisCpu(), nullptr); }

// On a CPU with AVX512 the steps compute on AVX512 vectors, in ATen's AVX512
// loops or (Debian's LibTorch runs its AVX2 kernels) in its AVX2 loops.
TEST(FrozenLstm, StepsUseAvx512VectorsWhereTheCpuHasThem) {
  const bool avx512 = ops::CpuRunsAvx512();
  if (!avx512) GTEST_SKIP() << "no AVX512 on this CPU";
  EXPECT_EQ(std::string(ops::RnnStepsForThisCpu().name).rfind("avx512", 0), 0)
      << ops::RnnStepsForThisCpu().name;
}

TEST(FrozenLstm, DeclinesWhatItDoesNotTake) {
  const LstmCase c = SmallCase();
  // Parameters that are not constants.
  EXPECT_FALSE(
      ops::FrozenRnn::FromNode(MakeGraph(c, /*frozen=*/false).node, kLstm, false).has_value());
  // A fifth weight per direction that is no projection of h (W_hr is
  // [proj_size, hidden], proj_size < hidden), and a projection to the
  // hidden size, which ATen would not tell from none.
  for (const at::Tensor& w_hr : {at::randn({3, 5}), at::randn({4, 4})}) {
    LstmCase projected = c;
    projected.params.push_back(w_hr);
    EXPECT_FALSE(
        ops::FrozenRnn::FromNode(MakeGraph(projected, true).node, kLstm, false).has_value());
  }
  // Projected: h0 of the hidden size instead of the projection's.
  LstmCase projected = c;
  projected.params[1] = at::randn({16, 3});
  projected.params.push_back(at::randn({3, 4}));
  const std::optional<ops::FrozenRnn> with_projection =
      ops::FrozenRnn::FromNode(MakeGraph(projected, true).node, kLstm, false);
  ASSERT_TRUE(with_projection.has_value());
  EXPECT_TRUE(with_projection->Run(c.input, at::randn({1, 2, 3}), c.c0).has_value());
  EXPECT_FALSE(with_projection->Run(c.input, c.h0, c.c0).has_value());
  // Double inputs, a wrong feature size, an empty sequence: ATen's turn.
  const std::optional<ops::FrozenRnn> lstm =
      ops::FrozenRnn::FromNode(MakeGraph(c, true).node, kLstm, false);
  ASSERT_TRUE(lstm.has_value());
  EXPECT_FALSE(lstm->Run(c.input.to(at::kDouble), c.h0, c.c0).has_value());
  EXPECT_FALSE(lstm->Run(at::randn({3, 2, 6}), c.h0, c.c0).has_value());
  EXPECT_FALSE(lstm->Run(at::randn({0, 2, 5}), c.h0, c.c0).has_value());
  EXPECT_FALSE(lstm->Run(c.input, at::randn({1, 3, 4}), c.c0).has_value());
}

TEST(FrozenLstm, KernelGivesAtensErrorsForBadInputs) {
  LstmCase c = SmallCase();
  const LstmGraph g = MakeGraph(c, /*frozen=*/true);
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(g.node, /*allow_out_variants=*/true);
  ASSERT_TRUE(selected.has_value());
  c.input = at::randn({3, 2, 6});  // 6 features, the weights take 5
  std::string aten_error;
  try {
    AtenLstm(c);
  } catch (const std::exception& e) {
    aten_error = e.what();
  }
  ASSERT_FALSE(aten_error.empty());
  testing::Slots slots(3);
  const std::string error = slots.Run(selected->kernel, KernelInputs(c));
  EXPECT_NE(error, "");
  EXPECT_EQ(error.substr(0, 40), aten_error.substr(0, 40));
}

}  // namespace
}  // namespace static_runtime
