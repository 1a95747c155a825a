// The corpus read from golden/models/: every model builds, its inputs fit
// forward's arguments, draws are deterministic per seed and leave the
// default generator as they found it.
#include "verify/corpus.h"

#include <set>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/api/module.h"
#include "verify/reference.h"

namespace static_runtime {
namespace corpus {
namespace {

bool SameValues(const std::vector<c10::IValue>& a, const std::vector<c10::IValue>& b) {
  return reference::ExactlyEqual(c10::ivalue::Tuple::create(a), c10::ivalue::Tuple::create(b));
}

TEST(CorpusTest, EveryModelBuildsAndItsInputsFitForward) {
  ASSERT_GE(Models().size(), 60u);
  std::set<std::string> names;
  for (const Model& model : Models()) {
    SCOPED_TRACE(model.name);
    EXPECT_TRUE(names.insert(model.name).second) << "named twice";
    absl::StatusOr<torch::jit::Module> module = Build(model);
    ASSERT_TRUE(module.ok()) << module.status();
    const size_t arguments =
        module->get_method("forward").function().getSchema().arguments().size();
    for (int64_t size : {1, 2}) {
      InputRng rng(size);
      const std::vector<c10::IValue> inputs = model.inputs(rng, size);
      EXPECT_LE(inputs.size() + 1, arguments);
      EXPECT_FALSE(inputs.empty());
    }
  }
}

TEST(CorpusTest, DrawsFollowTheSeedAndLeaveTheDefaultGeneratorAlone) {
  const Model& model = ModelNamed("mlp");
  at::manual_seed(7);
  const at::Tensor expected_next = at::randn({3});
  at::manual_seed(7);
  InputRng a(1), b(1), c(2);
  const std::vector<c10::IValue> first = model.inputs(a, 1);
  EXPECT_TRUE(SameValues(first, model.inputs(b, 1)));
  EXPECT_FALSE(SameValues(first, model.inputs(c, 1)));
  // The rng advanced: its next draw is another.
  EXPECT_FALSE(SameValues(first, model.inputs(a, 1)));
  EXPECT_TRUE(at::randn({3}).equal(expected_next));
}

TEST(CorpusTest, AnUnknownNameFails) { EXPECT_THROW(ModelNamed("no_such_model"), c10::Error); }

}  // namespace
}  // namespace corpus
}  // namespace static_runtime
