// CheckArchive accepts what torch.jit.save writes and rejects truncated and
// damaged archives (any changed byte of an entry's data), and LoadModule*
// reports that instead of handing the bytes to LibTorch.
#include "load/archive_check.h"

#include <sstream>
#include <string>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "torch/csrc/jit/serialization/import.h"

// Under --config=asan: LibTorch 1.13's zip reader leaks its state when
// torch::jit::load rejects a damaged archive, which this test makes it do
// (as fuzz/lsan.supp says for the fuzzers). Only libtorch frames match.
extern "C" const char* __lsan_default_suppressions() { return "leak:libtorch_cpu.so\n"; }

namespace static_runtime {
namespace {

using ::testing::HasSubstr;

std::string SavedArchive() {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x):
    return torch.relu(x) + self.w
)",
                                                               {{"w", at::ones({3})}});
  EXPECT_TRUE(module.ok()) << module.status();
  std::ostringstream stream;
  module->save(stream);
  return stream.str();
}

TEST(ArchiveCheckTest, AcceptsWhatTorchJitSaveWrites) {
  EXPECT_TRUE(CheckArchive(SavedArchive()).ok());
}

TEST(ArchiveCheckTest, RejectsEveryTruncation) {
  const std::string archive = SavedArchive();
  for (size_t size = 0; size < archive.size(); size += 7) {
    EXPECT_FALSE(CheckArchive(archive.substr(0, size)).ok()) << "truncated to " << size;
  }
}

TEST(ArchiveCheckTest, EveryChangedByteIsRejectedOrHarmless) {
  const std::string archive = SavedArchive();
  const at::Tensor x = at::arange(3, at::kFloat) - 1;
  std::istringstream stream(archive);
  const at::Tensor expected = torch::jit::load(stream).forward({x}).toTensor();
  // A flipped byte in an entry's data or in a field the check reads fails the
  // check; the rest (alignment padding, timestamps, flags) must leave a model
  // that loads and computes the same, or give LibTorch's own error: never a
  // crash.
  size_t detected = 0;
  for (size_t at = 0; at < archive.size(); ++at) {
    std::string damaged = archive;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
    if (!CheckArchive(damaged).ok()) {
      ++detected;
      continue;
    }
    absl::StatusOr<torch::jit::Module> module = LoadModuleFromBytes(damaged);
    if (module.ok()) {
      EXPECT_TRUE(module->forward({x}).toTensor().equal(expected)) << "byte " << at;
    }
  }
  // Tiny archives are mostly headers and alignment padding.
  EXPECT_GT(detected * 10, archive.size() * 4) << detected << " of " << archive.size();
}

TEST(ArchiveCheckTest, DamagedArchiveIsAnErrorBeforeLibTorchReadsIt) {
  std::string archive = SavedArchive();
  // The last byte of constants.pkl's data (its STOP opcode), as in the
  // fuzzer's finding that made LibTorch free an invalid pointer.
  const size_t name = archive.find("constants.pkl");
  ASSERT_NE(name, std::string::npos);
  const size_t data = name + std::string("constants.pkl").size();
  archive[data + archive.substr(data).find('.')] = 'z';
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromBytes(archive);
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(std::string(module.status().message()), HasSubstr("damaged archive"));
}

}  // namespace
}  // namespace static_runtime
