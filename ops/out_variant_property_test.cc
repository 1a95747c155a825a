// One RapidCheck property per registered out-variant kernel, from the spec
// its family keeps beside its kernels (ops/<family>/out_variant_specs.h): random shapes
// (empty dims, size 1, broadcasting, non-contiguous inputs), every dtype the
// kernel claims, random scalar arguments. Each case calls the kernel three
// times on the same output slots with growing and shrinking shapes and
// changing dtypes; every result must equal the JIT's own operator on the same
// inputs exactly, and when the result dtype does not change
// the kernel must have written into the tensor it left in the slot.
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "memory/counting_allocator.h"
#include "ops/core/fallback.h"
#include "ops/core/out_variant_spec.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/elementwise/out_variant_specs.h"
#include "ops/kernels.h"
#include "ops/linalg/out_variant_specs.h"
#include "ops/nn/out_variant_specs.h"
#include "ops/reduction/out_variant_specs.h"
#include "ops/tensor/out_variant_specs.h"
#include "rapidcheck.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"

namespace static_runtime {
namespace {

using testing::Draw;
using testing::specs::Call;
using testing::specs::Inputs;
using testing::specs::Spec;

// Each family's spec list, beside its kernels.
const std::map<std::string, Spec>& Specs() {
  static const auto* const kSpecs = [] {
    auto* specs = new std::map<std::string, Spec>();
    for (auto family :
         {testing::specs::ElementwiseOutVariantSpecs, testing::specs::ReductionOutVariantSpecs,
          testing::specs::LinalgOutVariantSpecs, testing::specs::NnOutVariantSpecs,
          testing::specs::TensorOutVariantSpecs}) {
      for (auto& [key, spec] : family()) {
        EXPECT_TRUE(specs->emplace(key, spec).second) << "two specs for " << key;
      }
    }
    return specs;
  }();
  return *kSpecs;
}

// "name.overload" for a schema key, the node kind otherwise.
std::string SpecKey(const std::string& registered) {
  if (registered.find('(') == std::string::npos) return registered;
  const c10::FunctionSchema schema = torch::jit::parseSchema(registered);
  return absl::StrCat(schema.name(), ".", schema.overload_name());
}

size_t Allocations() { return memory::CountingAllocator::Installed().count(); }

class OutVariantProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(OutVariantProperty, MatchesTheJitAndReusesItsOutput) {
  const std::string& registered = GetParam();
  Allocations();
  auto found = Specs().find(SpecKey(registered));
  ASSERT_NE(found, Specs().end()) << "no property spec for " << registered;
  const Spec& spec = found->second;
  int reused = 0;
  int compared = 0;
  const bool ok = rc::check(registered, [&] {
    Draw draw;
    const int64_t structure = draw.Int(0, 999);
    // In inference mode an output the kernel does not reuse is computed by
    // ATen's CPU kernel directly; outside it, by the dispatcher.
    c10::InferenceMode inference_mode(draw.Bool());
    const std::string overload = draw.OneOf(spec.overloads);
    std::vector<Inputs> calls;
    for (int64_t scale : {draw.Int(0, 3), draw.Int(0, 3), draw.Int(0, 3)}) {
      calls.push_back(spec.inputs(Call{draw, structure, scale, overload}));
    }
    const testing::SingleNode single =
        testing::MakeNode(registered, overload, calls[0], spec.num_outputs(calls[0]));
    // The outputs not compared are not used by the graph either.
    while (spec.compared_outputs >= 0 &&
           single.graph->outputs().size() > static_cast<size_t>(spec.compared_outputs)) {
      single.graph->eraseOutput(single.graph->outputs().size() - 1);
    }
    auto selected = GlobalKernels().Find(single.node, /*allow_out_variants=*/true);
    RC_ASSERT(selected.has_value());
    RC_ASSERT(selected->kind == NodeKind::kOutVariant);
    absl::StatusOr<Kernel> jit = MakeFallbackKernel(single.node);
    RC_ASSERT(jit.ok());

    const size_t num_outputs = single.node->outputs().size();
    const size_t compared_outputs =
        spec.compared_outputs < 0 ? num_outputs : static_cast<size_t>(spec.compared_outputs);
    testing::Slots ours(num_outputs);
    // What each output slot held after the previous call, if the kernel may
    // write into it again: same dtypes and nobody else holding the storage.
    std::vector<const void*> previous(num_outputs, nullptr);
    std::vector<at::ScalarType> previous_dtype(num_outputs, at::kByte);
    std::vector<size_t> previous_capacity(num_outputs, 0);
    bool previous_reusable = false;
    for (const Inputs& inputs : calls) {
      testing::Slots reference(num_outputs);
      const size_t before_jit = Allocations();
      const std::string expected_error = reference.Run(*jit, inputs);
      const size_t jit_allocations = Allocations() - before_jit;
      const std::string error = ours.Run(selected->kernel, inputs);
      if (!expected_error.empty() || !error.empty()) {
        if (expected_error.empty() || error.empty()) {
          RC_FAIL(absl::StrCat("the JIT ", expected_error.empty() ? "succeeded" : "failed",
                               " but the kernel ", error.empty() ? "succeeded" : "failed", ": ",
                               expected_error, error));
        }
        previous_reusable = false;
        continue;
      }
      bool same_dtypes = true;
      bool all_reused = true;
      bool fits = true;    // every output fits in the storage it reuses
      bool empty = false;  // some output holds no bytes: nothing to save
      for (size_t i = 0; i < compared_outputs; ++i) {
        const at::Tensor& tensor = ours.Output(i).toTensor();
        const at::Tensor& expected = reference.Output(i).toTensor();
        if (spec.compares_values) {
          const std::string difference = testing::Difference(reference.Output(i), ours.Output(i));
          if (!difference.empty()) RC_FAIL(absl::StrCat("output ", i, ": ", difference));
        } else if (tensor.scalar_type() != expected.scalar_type() ||
                   tensor.sizes() != expected.sizes()) {
          RC_FAIL(absl::StrCat("output ", i, ": ", c10::toString(expected.scalar_type()),
                               c10::str(expected.sizes()), " vs ",
                               c10::toString(tensor.scalar_type()), c10::str(tensor.sizes())));
        }
        ++compared;
        for (int64_t d = 0; d < tensor.dim(); ++d) {
          // (A stride is meaningless on a dim of size 1, or of an empty tensor.)
          if (tensor.numel() > 1 && tensor.size(d) > 1 && tensor.stride(d) != expected.stride(d)) {
            RC_FAIL(absl::StrCat("output ", i, ": strides ", c10::str(expected.strides()), " vs ",
                                 c10::str(tensor.strides()), " for sizes ",
                                 c10::str(tensor.sizes())));
          }
        }
        same_dtypes = same_dtypes && previous_dtype[i] == tensor.scalar_type();
        const size_t bytes = static_cast<size_t>(tensor.numel()) * tensor.element_size();
        fits = fits && bytes <= previous_capacity[i];
        empty = empty || bytes == 0;
        all_reused = all_reused && previous[i] == tensor.unsafeGetTensorImpl();
      }
      if (previous_reusable && same_dtypes && !spec.may_alias && spec.writes_into_output(inputs)) {
        if (!all_reused) RC_FAIL("an output of the same dtype was not reused");
        // Writing into the reused output must save the output allocation
        // (an out form that computes into a temporary and copies does not).
        // Measured on a repeat of the call, once per-thread scratch tensors
        // have grown.
        if (fits && !empty) {
          const size_t before_repeat = Allocations();
          ours.Run(selected->kernel, inputs);
          const size_t steady_allocations = Allocations() - before_repeat;
          if (steady_allocations >= jit_allocations) {
            RC_FAIL(absl::StrCat("the out variant allocated ", steady_allocations,
                                 " times, the JIT's operator ", jit_allocations));
          }
        }
        ++reused;
      }
      previous_reusable = true;
      for (size_t i = 0; i < num_outputs; ++i) {
        const at::Tensor& tensor = ours.Output(i).toTensor();
        previous[i] = tensor.unsafeGetTensorImpl();
        previous_dtype[i] = tensor.scalar_type();
        previous_capacity[i] = tensor.storage().nbytes();
        // Held elsewhere too (an alias of an input, which the test keeps).
        previous_reusable = previous_reusable && tensor.storage().use_count() == 1;
      }
    }
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(compared, 0) << "no case ran without an error";
  if (!spec.may_alias) {
    EXPECT_GT(reused, 0) << "the output tensor was never reused";
  }
}

// Out variants with a property of their own elsewhere, because they only take
// nodes with constant arguments and match the JIT within a declared error
// bound.
bool TestedElsewhere(const std::string& kernel) {
  return kernel.rfind("static_runtime::conv2d_fused(", 0) == 0 ||  // //ops/conv:conv2d_test
         kernel.rfind("static_runtime::linear_fused(", 0) ==
             0 ||                                        // //ops/linalg:onednn_linear_test
         kernel == "static_runtime::fused_pointwise" ||  // //runtime:fusion_test
         // //ops/attention:transformer_encoder_layer_test, both
         kernel.rfind("static_runtime::transformer_encoder_layer(", 0) == 0 ||
         kernel.rfind("static_runtime::transformer_encoder_layer_row(", 0) == 0 ||
         // //ops/attention:multi_head_attention_test
         kernel.rfind("static_runtime::multi_head_attention(", 0) == 0 ||
         // //ops/conv:deconvolution_test
         kernel.rfind("aten::conv_transpose", 0) == 0 ||
         // //ops/conv:convolution3d_test
         kernel.rfind("aten::conv3d", 0) == 0 ||
         // //ops/quantized:embedding_bag_kernels_test and :dynamic_linear_test
         kernel.rfind("quantized::", 0) == 0;
}

std::vector<std::string> OutVariantKernels() {
  std::vector<std::string> kernels;
  for (const std::string& kernel : GlobalKernels().Registered(NodeKind::kOutVariant)) {
    if (!TestedElsewhere(kernel)) kernels.push_back(kernel);
  }
  return kernels;
}

INSTANTIATE_TEST_SUITE_P(Registry, OutVariantProperty, ::testing::ValuesIn(OutVariantKernels()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = SpecKey(info.param);
                           for (char& ch : name) {
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

// An empty result keeps the strides ATen gives it: x[1:] * 2.0 of an x of
// [1, 1] has strides (1, 0), where a new contiguous tensor of its sizes has
// (1, 1) (found by //fuzz:random_graph_test).
TEST(OutVariantRegistry, EmptyResultsOfArithmeticKeepAtensStrides) {
  const at::Tensor empty = at::randn({1, 1}).slice(0, 1);
  for (const char* op : {"aten::mul", "aten::div", "aten::add", "aten::sub"}) {
    const bool takes_alpha = std::string(op) == "aten::add" || std::string(op) == "aten::sub";
    const std::vector<c10::IValue> inputs = takes_alpha ? std::vector<c10::IValue>{empty, 2.0, 1}
                                                        : std::vector<c10::IValue>{empty, 2.0};
    const testing::SingleNode single = testing::MakeNode(op, "Scalar", inputs, 1);
    auto selected = GlobalKernels().Find(single.node, /*allow_out_variants=*/true);
    ASSERT_TRUE(selected.has_value()) << op;
    testing::Slots slots(1);
    for (int run = 0; run < 2; ++run) {
      ASSERT_EQ(slots.Run(selected->kernel, inputs), "") << op;
      const at::Tensor expected = std::string(op) == "aten::mul"   ? empty * 2.0
                                  : std::string(op) == "aten::div" ? empty / 2.0
                                  : std::string(op) == "aten::add" ? empty + 2.0
                                                                   : empty - 2.0;
      EXPECT_EQ(slots.Output(0).toTensor().strides(), expected.strides()) << op << " run " << run;
    }
  }
}

TEST(OutVariantRegistry, AtLeast120KernelsEachWithASpec) {
  const std::vector<std::string> kernels = OutVariantKernels();
  EXPECT_GE(kernels.size(), 120u);
  for (const std::string& kernel : kernels) {
    EXPECT_TRUE(Specs().count(SpecKey(kernel)) == 1) << "no property spec for " << kernel;
  }
}

}  // namespace
}  // namespace static_runtime
