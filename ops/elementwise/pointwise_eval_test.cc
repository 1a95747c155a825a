// The probe finds an evaluator that computes every op as ATen does on this
// machine, and the chosen evaluator matches ATen on long ranges too (tiles,
// tails), on programs of several ops and on inputs read as rows (views,
// broadcasts).
#include "ops/elementwise/pointwise_eval.h"

#include "ATen/ATen.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

TEST(PointwiseEval, EveryOpMatchesAtenOnThisMachine) {
  const PointwiseEvaluator& evaluator = PointwiseEvaluatorForThisCpu();
  ASSERT_NE(evaluator.range, nullptr);
  // gelu(approximate='none') on a contiguous tensor matches neither tail
  // rule on this machine (ATen's kernel computes it otherwise than on rows
  // of a wider tensor): its groups take the unfused path.
  for (int i = 0; i < kNumPointwiseOps; ++i) {
    if (static_cast<PointwiseOp>(i) == PointwiseOp::kGelu) continue;
    EXPECT_TRUE(evaluator.matches[i]) << "op " << i << " matches ATen under neither tail rule";
  }
  // ATen's VML ops run every element through the vector function.
  EXPECT_TRUE(evaluator.vector_tail[static_cast<int>(PointwiseOp::kTanh)]);
  EXPECT_FALSE(evaluator.vector_tail[static_cast<int>(PointwiseOp::kSigmoid)]);
  // Binary ops' formulas agree; sigmoid's exp differs between the two.
  EXPECT_TRUE(evaluator.split_free[static_cast<int>(PointwiseOp::kMul)]);
  EXPECT_FALSE(evaluator.split_free[static_cast<int>(PointwiseOp::kSigmoid)]);
}

TEST(PointwiseEval, ChainMatchesAtenOpByOp) {
  const PointwiseEvaluator& evaluator = PointwiseEvaluatorForThisCpu();
  ASSERT_NE(evaluator.range, nullptr);
  // relu(x + y) -> sigmoid(. * 0.5) -> tanh(. - x), as the op-dense model.
  PointwiseProgram program;
  program.num_inputs = 3;
  auto add = [&](PointwiseOp op, int32_t a, int32_t b) {
    PointwiseInstruction in;
    in.op = op;
    in.a = a;
    in.b = b;
    in.vector_tail = evaluator.vector_tail[static_cast<int>(op)];
    program.code.push_back(in);
  };
  add(PointwiseOp::kAdd, 0, 1);      // 3
  add(PointwiseOp::kRelu, 3, 0);     // 4
  add(PointwiseOp::kMul, 4, 2);      // 5
  add(PointwiseOp::kSigmoid, 5, 0);  // 6
  add(PointwiseOp::kSub, 6, 0);      // 7
  add(PointwiseOp::kTanh, 7, 0);     // 8
  for (int64_t n : {1, 13, 16, 17, 31, 32, 33, 128, 255, 256, 257, 1000, 5003, 40000}) {
    const at::Tensor x = at::randn({n});
    const at::Tensor y = at::randn({n});
    const at::Tensor expected = at::tanh(at::sigmoid(at::relu(x + y) * 0.5) - x);
    const at::Tensor relu = at::relu(x + y);
    at::Tensor out_relu = at::empty({n});
    at::Tensor out = at::empty({n});
    const PointwiseInput inputs[3] = {ContiguousFloats(x.data_ptr<float>()),
                                      ContiguousFloats(y.data_ptr<float>()), Number(0.5f)};
    void* outputs[6] = {nullptr, out_relu.data_ptr<float>(), nullptr, nullptr,
                        nullptr, out.data_ptr<float>()};
    evaluator.range(program, inputs, outputs, 0, n);
    EXPECT_TRUE(at::equal(out, expected)) << "n=" << n << ", evaluator for " << evaluator.isa;
    EXPECT_TRUE(at::equal(out_relu, relu)) << "n=" << n;
  }
}

// Inputs 0, 1, 2: input 0 * input 1 + input 2.
PointwiseProgram MultiplyAdd() {
  PointwiseProgram program;
  program.num_inputs = 3;
  PointwiseInstruction mul;
  mul.op = PointwiseOp::kMul;
  mul.a = 0;
  mul.b = 1;
  PointwiseInstruction add = mul;
  add.op = PointwiseOp::kAdd;
  add.a = 3;
  add.b = 2;
  program.code = {mul, add};
  return program;
}

TEST(PointwiseEval, ReadsViewsAndBroadcastsRowByRow) {
  const PointwiseEvaluator& evaluator = PointwiseEvaluatorForThisCpu();
  ASSERT_NE(evaluator.range, nullptr);
  // x * column + stepped, across tiles and with rows that end mid-vector.
  const PointwiseProgram program = MultiplyAdd();
  for (const auto& [rows, columns] :
       {std::pair<int64_t, int64_t>{1, 1}, {3, 5}, {37, 19}, {9, 300}}) {
    const at::Tensor x = at::randn({rows, columns + 3}).narrow(1, 0, columns);
    const at::Tensor column = at::randn({rows, 1});
    const at::Tensor stepped = at::randn({rows, 2 * columns}).slice(1, 0, c10::nullopt, 2);
    const at::Tensor expected = x * column + stepped;
    at::Tensor out = at::empty({rows, columns});
    const PointwiseInput inputs[3] = {
        {x.data_ptr<float>(), 0.f, columns, 1, columns + 3, ElementType::kFloat},
        {column.data_ptr<float>(), 0.f, columns, 0, 1, ElementType::kFloat},
        {stepped.data_ptr<float>(), 0.f, columns, 2, 2 * columns, ElementType::kFloat}};
    void* outputs[2] = {nullptr, out.data_ptr<float>()};
    evaluator.range(program, inputs, outputs, 0, rows * columns);
    EXPECT_TRUE(at::equal(out, expected)) << rows << "x" << columns;
  }
}

TEST(PointwiseEval, ReadsIntegerAndBoolInputsAsATenConvertsThem) {
  const PointwiseEvaluator& evaluator = PointwiseEvaluatorForThisCpu();
  ASSERT_NE(evaluator.range, nullptr);
  // x * a + b: a an int64 tensor (contiguous), b an int32 or bool column.
  const PointwiseProgram program = MultiplyAdd();
  for (at::ScalarType column_type : {at::kInt, at::kBool}) {
    const int64_t rows = 7, columns = 45;
    const at::Tensor x = at::randn({rows, columns});
    // Values beyond 2^24 round when converted.
    const at::Tensor a = at::randint(-(int64_t{1} << 40), int64_t{1} << 40, {rows, columns},
                                     at::TensorOptions().dtype(at::kLong));
    const at::Tensor column = at::randint(-1000, 1000, {rows, 1}).to(column_type);
    const at::Tensor expected = x * a.to(at::kFloat) + column.to(at::kFloat);
    at::Tensor out = at::empty({rows, columns});
    const PointwiseInput inputs[3] = {
        ContiguousFloats(x.data_ptr<float>()),
        {a.data_ptr(), 0.f, 0, 0, 0, ElementType::kInt64},
        {column.data_ptr(), 0.f, columns, 0, 1,
         column_type == at::kInt ? ElementType::kInt32 : ElementType::kBool}};
    void* outputs[2] = {nullptr, out.data_ptr<float>()};
    evaluator.range(program, inputs, outputs, 0, rows * columns);
    EXPECT_TRUE(at::equal(out, expected)) << column_type;
  }
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
