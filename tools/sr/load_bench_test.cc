// sr load's measurement on a small corpus model: every way of loading
// works, the report is filled, the scratch directory is removed, and a bad
// round count is an error. (Speed itself is for the benchmark to show.)
#include "tools/sr/load_bench.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "verify/corpus.h"

namespace static_runtime {
namespace sr {
namespace {

namespace fs = std::filesystem;

TEST(LoadBenchTest, MeasuresEveryWayOfLoading) {
  const fs::path dir = fs::path(::testing::TempDir()) / "load_bench";
  fs::remove_all(dir);
  fs::create_directories(dir / "scratch");
  const corpus::Model& model = corpus::ModelNamed("conv_bn_residual");
  absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
  ASSERT_TRUE(module.ok());
  const std::string path = (dir / "model.pt").string();
  module->save(path);
  corpus::InputRng rng(1);
  absl::StatusOr<LoadReport> report =
      MeasureLoad(path, Options(), model.inputs(rng, 1), 2, (dir / "scratch").string());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->rounds, 2);
  EXPECT_GT(report->prepare_ms, 0);
  EXPECT_GT(report->package_ms, 0);
  EXPECT_GT(report->cache_hit_ms, 0);
  EXPECT_GT(report->package_bytes, 0u);
  EXPECT_GT(report->first_run_ms, 0);
  EXPECT_GE(report->first_run_allocations, 1);  // at least the output
  EXPECT_TRUE(fs::is_empty(dir / "scratch"));
  EXPECT_THAT(FormatLoadReport(*report), ::testing::HasSubstr("from a compiled package"));

  EXPECT_FALSE(MeasureLoad(path, Options(), {}, 0, (dir / "scratch").string()).ok());
  EXPECT_FALSE(
      MeasureLoad((dir / "missing.pt").string(), Options(), {}, 1, (dir / "scratch").string())
          .ok());
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
