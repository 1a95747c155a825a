// Compiled packages and the model cache: every corpus model (and the forked
// models of runtime/testdata) gives, loaded from its package, the same
// outputs bit for bit as the module it was written from, on the planned
// input shapes and on others; metadata matches the module; damaged
// packages (every truncation, every flipped byte) are errors or load intact;
// packages of another library, LibTorch or format version are refused;
// the cache misses then hits without running a pass, is invalidated by
// other bytes or options, rebuilds corrupt and other-version entries, evicts the least
// recently used entries beyond its size and is filled by several processes
// at once.
#include "runtime/package.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "caffe2/serialize/inline_container.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "nlohmann/json.hpp"
#include "ops/onednn/onednn.h"
#include "passes/pass_table.h"
#include "runtime/corpus_module.h"
#include "runtime/model_cache.h"
#include "runtime/module_state.h"
#include "runtime/static_module.h"
#include "runtime/static_runtime.h"
#include "torch/csrc/jit/ir/constants.h"
#include "verify/corpus.h"
#include "verify/reference.h"

extern char** environ;

namespace static_runtime {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A fresh directory under the test's temporary directory.
fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

c10::IValue RunOnce(const StaticModule::Ptr& module, const std::vector<c10::IValue>& inputs) {
  StaticRuntime runtime(module);
  absl::StatusOr<c10::IValue> result = runtime.Run(reference::DeepCopy(inputs));
  TORCH_CHECK(result.ok(), result.status().ToString());
  return *result;
}

std::string ReadBytes(const fs::path& path) {
  absl::StatusOr<std::string> bytes = ReadModelFile(path.string());
  TORCH_CHECK(bytes.ok(), bytes.status().ToString());
  return *bytes;
}

class PackageRoundTripTest : public testing::TestWithParam<bool> {};

TEST_P(PackageRoundTripTest, EveryCorpusModelRoundTrips) {
  const bool packed_weights = GetParam();
  const fs::path dir = TempDir(absl::StrCat("round_trip_", packed_weights));
  for (const corpus::Model& model : corpus::Models()) {
    SCOPED_TRACE(model.name);
    corpus::InputRng rng(1);
    absl::StatusOr<CorpusModule> prepared =
        PrepareCorpusModel(model, Options(), model.inputs(rng, 1));
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    const StaticModule::Ptr& original = prepared->static_module;
    const fs::path path = dir / (model.name + ".srpkg");
    ASSERT_TRUE(SavePackage(*original, path.string(), {"corpus", ""}, packed_weights).ok());

    const int64_t optimizations = PassStageRuns(PassStage::kCleanup);
    absl::StatusOr<StaticModule::Ptr> loaded = LoadPackage(path.string());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(PassStageRuns(PassStage::kCleanup), optimizations)
        << "loading a package ran the passes";

    const StaticModule& a = *original;
    const StaticModule& b = **loaded;
    EXPECT_EQ(b.kernel_counts().total(), a.kernel_counts().total());
    EXPECT_EQ(b.kernel_counts().out_variant, a.kernel_counts().out_variant);
    EXPECT_EQ(b.schema(), a.schema());
    EXPECT_EQ(ModuleState::Of(b).managed_slots, ModuleState::Of(a).managed_slots);
    EXPECT_EQ(b.planned_inputs(), a.planned_inputs());
    ASSERT_EQ(ModuleState::Of(b).initial_records.size(), ModuleState::Of(a).initial_records.size());
    for (size_t i = 0; i < ModuleState::Of(a).initial_records.size(); ++i) {
      EXPECT_EQ(ModuleState::Of(b).initial_records[i].bytes,
                ModuleState::Of(a).initial_records[i].bytes);
    }
    for (int64_t size : {1, 2, 3}) {  // the planned shapes and others
      corpus::InputRng inputs_rng(size * 7);
      const std::vector<c10::IValue> inputs = model.inputs(inputs_rng, size);
      EXPECT_TRUE(reference::ExactlyEqual(RunOnce(original, inputs), RunOnce(*loaded, inputs)))
          << "size " << size;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutPackedWeights, PackageRoundTripTest, testing::Bool());

// The frozen weight (input 1) of the first node of `kind` in `module`.
const void* WeightOf(const StaticModule& module, const char* kind) {
  for (const torch::jit::Node* node : module.graph()->nodes()) {
    if (node->kind().toQualString() == std::string(kind)) {
      return torch::jit::toIValue(node->input(1))->toTensor().data_ptr();
    }
  }
  return nullptr;
}

TEST(PackageTest, PackedWeightsAreLoadedPacked) {
  const corpus::Model& model = corpus::ModelNamed("conv_bn_residual");
  corpus::InputRng rng(1);
  const std::vector<c10::IValue> inputs = model.inputs(rng, 1);
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(model, Options(), inputs);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const StaticModule::Ptr& original = prepared->static_module;
  const char* kConv = "static_runtime::conv2d_fused";
  ASSERT_NE(WeightOf(*original, kConv), nullptr);
  const std::vector<onednn::PackedCopy> packed = onednn::PacksOf(WeightOf(*original, kConv));
  ASSERT_FALSE(packed.empty()) << "the sample run packs the weight";
  const fs::path dir = TempDir("packed");
  for (const bool packed_weights : {false, true}) {
    const fs::path path = dir / absl::StrCat("conv_", packed_weights, ".srpkg");
    ASSERT_TRUE(SavePackage(*original, path.string(), {}, packed_weights).ok());
    absl::StatusOr<StaticModule::Ptr> loaded = LoadPackage(path.string());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    // Before any run: packed from the package, or not packed yet.
    const std::vector<onednn::PackedCopy> preloaded = onednn::PacksOf(WeightOf(**loaded, kConv));
    ASSERT_EQ(preloaded.size(), packed_weights ? packed.size() : 0u);
    for (size_t i = 0; i < preloaded.size(); ++i) {
      EXPECT_EQ(preloaded[i].bytes, packed[i].bytes);
      EXPECT_EQ(std::memcmp(preloaded[i].data, packed[i].data, packed[i].bytes), 0);
    }
    EXPECT_TRUE(reference::ExactlyEqual(RunOnce(original, inputs), RunOnce(*loaded, inputs)));
    EXPECT_EQ(onednn::PacksOf(WeightOf(**loaded, kConv)).size(), packed.size());
  }
}

TEST(PackageTest, ForkedModelsRoundTrip) {
  const fs::path dir = TempDir("forks");
  for (const char* name :
       {"fork_towers", "fork_three_towers", "fork_future_list", "fork_nested_module"}) {
    SCOPED_TRACE(name);
    const std::string path = absl::StrCat("runtime/testdata/", name, ".pt");
    absl::StatusOr<StaticModule::Ptr> original = StaticModule::FromFile(path);
    ASSERT_TRUE(original.ok()) << original.status();
    const fs::path package = dir / (std::string(name) + ".srpkg");
    ASSERT_TRUE(SavePackage(**original, package.string()).ok());
    const int64_t optimizations = PassStageRuns(PassStage::kCleanup);
    absl::StatusOr<StaticModule::Ptr> loaded = LoadPackage(package.string());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(PassStageRuns(PassStage::kCleanup), optimizations)
        << "loading ran the passes on a forked call";
    std::vector<c10::IValue> inputs;
    for (const c10::Argument& argument : (*original)->schema().arguments()) {
      switch (argument.type()->kind()) {
        case c10::TypeKind::TensorType:
          inputs.emplace_back(at::randn({4, 8}));
          break;
        case c10::TypeKind::BoolType:
          inputs.emplace_back(true);
          break;
        default:
          FAIL() << "no input for " << argument;
      }
    }
    EXPECT_TRUE(reference::ExactlyEqual(RunOnce(*original, inputs), RunOnce(*loaded, inputs)));
  }
}

TEST(PackageTest, MetadataDescribesThePackage) {
  const corpus::Model& model = corpus::ModelNamed("mlp");
  corpus::InputRng rng(1);
  absl::StatusOr<CorpusModule> prepared =
      PrepareCorpusModel(model, Options(), model.inputs(rng, 1));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const StaticModule::Ptr& original = prepared->static_module;
  const fs::path path = TempDir("metadata") / "mlp.srpkg";
  ASSERT_TRUE(SavePackage(*original, path.string(), {"mlp.pt", "abc123"}).ok());
  absl::StatusOr<std::string> text = ReadPackageMetadata(path.string());
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json metadata = nlohmann::json::parse(*text);
  EXPECT_EQ(metadata["format_version"], kPackageFormatVersion);
  EXPECT_EQ(metadata["library_version"], kLibraryVersion);
  EXPECT_EQ(metadata["libtorch_version"], LibTorchVersion());
  EXPECT_EQ(metadata["source"]["sha256"], "abc123");
  EXPECT_EQ(metadata["options"]["prepack_weights"], true);
  EXPECT_EQ(metadata["planned_for"], original->planned_inputs());
  EXPECT_EQ(metadata["nodes"]["out_variant"], original->kernel_counts().out_variant);
  EXPECT_EQ(metadata["inputs"][0]["name"], original->schema().arguments()[0].name());
  EXPECT_GT(metadata["memory"]["arena_bytes"].get<int64_t>(), 0);
  EXPECT_FALSE(metadata["created"].get<std::string>().empty());
}

// The package of a small corpus model, and its outputs on its inputs.
struct SmallPackage {
  std::string bytes;
  std::vector<c10::IValue> inputs;
  c10::IValue expected;
};

SmallPackage MakeSmallPackage() {
  const corpus::Model& model = corpus::ModelNamed("mlp");
  corpus::InputRng rng(3);
  SmallPackage small;
  small.inputs = model.inputs(rng, 1);
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(model, Options(), small.inputs);
  TORCH_CHECK(prepared.ok(), prepared.status().ToString());
  const fs::path path = TempDir("small") / "mlp.srpkg";
  TORCH_CHECK(SavePackage(*prepared->static_module, path.string()).ok());
  small.bytes = ReadBytes(path);
  small.expected = RunOnce(prepared->static_module, small.inputs);
  return small;
}

// A damaged package is an error, or (a byte no check covers, such as a
// timestamp in a zip header) loads and gives the same outputs.
void ExpectErrorOrIntact(const SmallPackage& small, absl::string_view damaged,
                         const std::string& what) {
  absl::StatusOr<StaticModule::Ptr> loaded = LoadPackageBytes(damaged);
  if (loaded.ok()) {
    EXPECT_TRUE(reference::ExactlyEqual(RunOnce(*loaded, small.inputs), small.expected)) << what;
  }
}

TEST(PackageTest, EveryTruncationIsAnError) {
  const SmallPackage small = MakeSmallPackage();
  for (size_t size = 0; size < small.bytes.size(); ++size) {
    absl::StatusOr<StaticModule::Ptr> loaded =
        LoadPackageBytes(absl::string_view(small.bytes).substr(0, size));
    ASSERT_FALSE(loaded.ok()) << "truncated to " << size;
  }
}

TEST(PackageTest, EveryFlippedByteIsAnErrorOrHarmless) {
  const SmallPackage small = MakeSmallPackage();
  int errors = 0;
  for (size_t at = 0; at < small.bytes.size(); ++at) {
    std::string damaged = small.bytes;
    damaged[at] ^= 0x5a;
    ExpectErrorOrIntact(small, damaged, absl::StrCat("byte ", at));
    errors += !LoadPackageBytes(damaged).ok();
  }
  EXPECT_GT(errors, static_cast<int>(small.bytes.size() / 2));
}

// `bytes`, a package, written anew with `from` replaced by `to` in its
// metadata.json (a package of another version, with valid checksums).
std::string WithRecordChanged(const std::string& bytes, const std::string& changed,
                              const std::string& from, const std::string& to) {
  std::istringstream in(bytes);
  caffe2::serialize::PyTorchStreamReader reader(&in);
  std::string out;
  {
    caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t size) {
      out.append(static_cast<const char*>(data), size);
      return size;
    });
    for (const std::string& name : reader.getAllRecords()) {
      if (name == "version" || absl::StartsWith(name, ".data/")) continue;  // the writer's own
      auto [data, size] = reader.getRecord(name);
      std::string record(static_cast<const char*>(data.get()), size);
      if (name == changed) {
        const size_t at = record.find(from);
        TORCH_CHECK(at != std::string::npos, "no '", from, "' in ", changed);
        record.replace(at, from.size(), to);
      }
      writer.writeRecord(name, record.data(), record.size());
    }
    writer.writeEndOfFile();
  }
  return out;
}

// A memory-plan record's dtype at the boundary: the last dtype loads, the
// number of dtypes and one more are refused.
TEST(PackageTest, RecordDtypesAtTheBoundary) {
  const SmallPackage small = MakeSmallPackage();
  const int count = static_cast<int>(c10::ScalarType::NumOptions);
  const std::string kFloat = absl::StrCat("\"dtype\":", static_cast<int>(at::kFloat));
  for (const int dtype : {count - 1, count, count + 1}) {
    const std::string other = WithRecordChanged(small.bytes, "memory_plan.json", kFloat,
                                                absl::StrCat("\"dtype\":", dtype));
    absl::StatusOr<StaticModule::Ptr> loaded = LoadPackageBytes(other);
    EXPECT_EQ(loaded.ok(), dtype == count - 1) << dtype << ": " << loaded.status();
  }
}

TEST(PackageTest, OtherVersionsAreRefused) {
  const SmallPackage small = MakeSmallPackage();
  for (const auto& [from, to, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {absl::StrCat("\"library_version\": \"", kLibraryVersion, "\""),
            "\"library_version\": \"0.0.1\"", "package written by static_runtime 0.0.1"},
           {absl::StrCat("\"libtorch_version\": \"", LibTorchVersion(), "\""),
            "\"libtorch_version\": \"0.1.0\"", "package written with LibTorch 0.1.0"},
           {absl::StrCat("\"format_version\": ", kPackageFormatVersion), "\"format_version\": 99",
            "package format version 99"}}) {
    const std::string other = WithRecordChanged(small.bytes, "metadata.json", from, to);
    absl::StatusOr<StaticModule::Ptr> loaded = LoadPackageBytes(other);
    ASSERT_FALSE(loaded.ok()) << to;
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition) << loaded.status();
    EXPECT_THAT(std::string(loaded.status().message()), HasSubstr(message));
  }
  // Rewritten unchanged, the package loads.
  EXPECT_TRUE(LoadPackageBytes(WithRecordChanged(small.bytes, "metadata.json", "{", "{")).ok());
}

// The cache tests: a corpus model saved as a `.pt` file.
fs::path SaveCorpusModel(const std::string& name, const fs::path& dir) {
  absl::StatusOr<torch::jit::Module> module = corpus::Build(corpus::ModelNamed(name));
  TORCH_CHECK(module.ok());
  const fs::path path = dir / (name + ".pt");
  module->save(path.string());
  return path;
}

// The packages in a cache directory (not its digest index).
std::vector<fs::path> Entries(const fs::path& cache) {
  std::vector<fs::path> entries;
  for (const fs::directory_entry& file : fs::directory_iterator(cache)) {
    if (file.is_regular_file()) entries.push_back(file.path());
  }
  return entries;
}

// Whether `a` and `b` agree on every boolean option; names the first that
// differs.
std::string OptionDifference(const Options& a, const Options& b) {
  for (const BoolOption& option : BoolOptions()) {
    if (a.*option.member != b.*option.member) {
      return absl::StrCat(option.name, ": ", a.*option.member, " vs ", b.*option.member);
    }
  }
  return "";
}

// Every option, set to each of its values (the others at their defaults,
// where the combination is valid), comes back from a package and from the
// model cache as it went in: a writer that wrote only the options that are
// on, or a reader that skipped one, fails here.
TEST(PackageTest, EveryOptionAtEveryValueSurvivesTheRoundTrips) {
  const fs::path dir = TempDir("option_round_trips");
  const fs::path model = SaveCorpusModel("mlp", dir);
  const ModelCache cache((dir / "cache").string());
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromFile(model.string());
  ASSERT_TRUE(module.ok()) << module.status();
  int round_trips = 0;
  for (const BoolOption& option : BoolOptions()) {
    for (const bool value : {false, true}) {
      SCOPED_TRACE(absl::StrCat(option.name, "=", value));
      Options options;
      options.*option.member = value;
      if (!ValidateOptions(options).ok()) continue;
      absl::StatusOr<StaticModule::Ptr> prepared =
          StaticModule::FromModule(*module, false, options);
      ASSERT_TRUE(prepared.ok()) << prepared.status();
      const fs::path path = dir / absl::StrCat(option.name, "_", value, ".srpkg");
      ASSERT_TRUE(SavePackage(**prepared, path.string(), {"mlp", ""}).ok());
      absl::StatusOr<StaticModule::Ptr> loaded = LoadPackage(path.string());
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      EXPECT_EQ(OptionDifference((*loaded)->options(), options), "") << "package";
      // The cache: a miss (prepared and written) and a hit (read back).
      for (int load = 0; load < 2; ++load) {
        absl::StatusOr<StaticModule::Ptr> cached = cache.Load(model.string(), options);
        ASSERT_TRUE(cached.ok()) << cached.status();
        EXPECT_EQ(OptionDifference((*cached)->options(), options), "") << "cache, load " << load;
      }
      ++round_trips;
    }
  }
  EXPECT_GE(round_trips, static_cast<int>(BoolOptions().size()) * 2 - 3);
}

TEST(ModelCacheTest, MissThenHitWithoutPasses) {
  const fs::path dir = TempDir("cache_hit");
  const fs::path model = SaveCorpusModel("mlp", dir);
  const ModelCache cache((dir / "cache").string());
  Options options;
  const ModelCacheStats before = GetModelCacheStats();
  absl::StatusOr<StaticModule::Ptr> first = cache.Load(model.string(), options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(GetModelCacheStats().misses, before.misses + 1);
  ASSERT_EQ(Entries(cache.directory()).size(), 1u);

  const int64_t optimizations = PassStageRuns(PassStage::kCleanup);
  absl::StatusOr<StaticModule::Ptr> second = cache.Load(model.string(), options);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(GetModelCacheStats().hits, before.hits + 1);
  EXPECT_EQ(PassStageRuns(PassStage::kCleanup), optimizations);
  // The miss read and hashed the model; the hit found its digest by the
  // file's identity. A touched file is hashed again (and still hits).
  EXPECT_EQ(GetModelCacheStats().model_digests, before.model_digests + 1);
  fs::last_write_time(model, fs::file_time_type::clock::now() + std::chrono::seconds(5));
  ASSERT_TRUE(cache.Load(model.string(), options).ok());
  EXPECT_EQ(GetModelCacheStats().model_digests, before.model_digests + 2);
  EXPECT_EQ(GetModelCacheStats().hits, before.hits + 2);
  corpus::InputRng rng(5);
  const std::vector<c10::IValue> inputs = corpus::ModelNamed("mlp").inputs(rng, 2);
  EXPECT_TRUE(reference::ExactlyEqual(RunOnce(*first, inputs), RunOnce(*second, inputs)));
}

TEST(ModelCacheTest, OtherBytesOrOptionsMiss) {
  const fs::path dir = TempDir("cache_invalidation");
  const fs::path model = SaveCorpusModel("mlp", dir);
  const ModelCache cache((dir / "cache").string());
  Options options;
  ASSERT_TRUE(cache.Load(model.string(), options).ok());
  const ModelCacheStats before = GetModelCacheStats();

  Options other_options = options;
  other_options.enable_fusion = false;
  ASSERT_TRUE(cache.Load(model.string(), other_options).ok());
  EXPECT_EQ(GetModelCacheStats().misses, before.misses + 1);

  const fs::path other_model = SaveCorpusModel("conv_bn_residual", dir);
  fs::rename(other_model, model);  // the same path, other bytes
  absl::StatusOr<StaticModule::Ptr> rebuilt = cache.Load(model.string(), options);
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_EQ(GetModelCacheStats().misses, before.misses + 2);
  EXPECT_EQ(GetModelCacheStats().hits, before.hits);
  EXPECT_EQ(Entries(cache.directory()).size(), 3u);
  EXPECT_NE(CacheKey("a", options, {}), CacheKey("b", options, {}));
  EXPECT_NE(CacheKey("a", options, {}), CacheKey("a", other_options, {}));
  EXPECT_NE(CacheKey("a", options, {}), CacheKey("a", options, {c10::IValue(at::ones({2}))}));
}

TEST(ModelCacheTest, CorruptEntriesAreRebuilt) {
  const fs::path dir = TempDir("cache_corrupt");
  const fs::path model = SaveCorpusModel("mlp", dir);
  const ModelCache cache((dir / "cache").string());
  Options options;
  ASSERT_TRUE(cache.Load(model.string(), options).ok());
  const fs::path entry = Entries(cache.directory()).at(0);
  const std::string intact = ReadBytes(entry);
  const std::string other_version = WithRecordChanged(
      intact, "metadata.json", absl::StrCat("\"library_version\": \"", kLibraryVersion, "\""),
      "\"library_version\": \"0.0.1\"");
  for (const std::string& corrupt :
       {intact.substr(0, intact.size() / 2), std::string("junk"),
        absl::StrCat(intact.substr(0, 100), "X", intact.substr(101)), other_version}) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << corrupt;
    const ModelCacheStats before = GetModelCacheStats();
    ASSERT_TRUE(cache.Load(model.string(), options).ok());
    EXPECT_EQ(GetModelCacheStats().rejected, before.rejected + 1);
    EXPECT_EQ(GetModelCacheStats().misses, before.misses + 1);
    EXPECT_EQ(ReadBytes(entry).size(), intact.size());  // rebuilt
    ASSERT_TRUE(cache.Load(model.string(), options).ok());
    EXPECT_EQ(GetModelCacheStats().hits, before.hits + 1);
  }
}

TEST(ModelCacheTest, EvictsLeastRecentlyUsedBeyondTheLimit) {
  const fs::path dir = TempDir("cache_eviction");
  const ModelCache cache((dir / "cache").string());
  Options options;
  const fs::path a = SaveCorpusModel("mlp", dir);
  const fs::path b = SaveCorpusModel("conv_bn_residual", dir);
  const fs::path c = SaveCorpusModel("attention_block", dir);
  ASSERT_TRUE(cache.Load(a.string(), options).ok());
  ASSERT_TRUE(cache.Load(b.string(), options).ok());
  uint64_t two = 0;
  for (const fs::path& entry : Entries(cache.directory())) two += fs::file_size(entry);
  const ModelCache elsewhere((dir / "sizes").string());  // c's package size
  ASSERT_TRUE(elsewhere.Load(c.string(), options).ok());
  const uint64_t limit = two + fs::file_size(Entries(elsewhere.directory()).at(0)) - 1;
  // a is used again, so b is the least recently used when c comes in.
  fs::last_write_time(Entries(cache.directory())[0],
                      fs::file_time_type::clock::now() - std::chrono::hours(2));
  fs::last_write_time(Entries(cache.directory())[1],
                      fs::file_time_type::clock::now() - std::chrono::hours(2));
  ASSERT_TRUE(cache.Load(a.string(), options).ok());  // a hit: recently used
  const ModelCache limited(cache.directory(), limit);
  const ModelCacheStats before = GetModelCacheStats();
  ASSERT_TRUE(limited.Load(c.string(), options).ok());
  EXPECT_GE(GetModelCacheStats().evicted, before.evicted + 1);
  uint64_t total = 0;
  for (const fs::path& entry : Entries(cache.directory())) total += fs::file_size(entry);
  EXPECT_LE(total, limit);
  // a (recently used) and c (just stored) stay; b went.
  const ModelCacheStats after_eviction = GetModelCacheStats();
  ASSERT_TRUE(cache.Load(a.string(), options).ok());
  EXPECT_EQ(GetModelCacheStats().hits, after_eviction.hits + 1);
  ASSERT_TRUE(cache.Load(b.string(), options).ok());
  EXPECT_EQ(GetModelCacheStats().misses, after_eviction.misses + 1);
}

TEST(ModelCacheTest, OnlyAskedForAndTheEnvironmentOnlyThroughFromEnvironment) {
  const fs::path dir = TempDir("cache_environment");
  const fs::path model = SaveCorpusModel("mlp", dir);
  const fs::path directory = dir / "cache";
  ASSERT_EQ(setenv(ModelCache::kEnvironmentVariable, directory.c_str(), 1), 0);
  const ModelCacheStats before = GetModelCacheStats();
  ASSERT_TRUE(StaticModule::FromFile(model.string()).ok());
  EXPECT_EQ(GetModelCacheStats().misses, before.misses);
  EXPECT_FALSE(fs::exists(directory)) << "FromFile used a cache nobody asked for";

  const std::optional<ModelCache> from_environment = ModelCache::FromEnvironment();
  ASSERT_TRUE(from_environment.has_value());
  EXPECT_EQ(from_environment->directory(), directory.string());
  EXPECT_EQ(from_environment->max_bytes(), ModelCache::kDefaultMaxBytes);
  ASSERT_TRUE(from_environment->Load(model.string()).ok());
  EXPECT_EQ(GetModelCacheStats().misses, before.misses + 1);
  EXPECT_EQ(Entries(directory).size(), 1u);

  ASSERT_EQ(setenv(ModelCache::kEnvironmentVariable, "", 1), 0);
  EXPECT_FALSE(ModelCache::FromEnvironment().has_value());
  ASSERT_EQ(unsetenv(ModelCache::kEnvironmentVariable), 0);
  EXPECT_FALSE(ModelCache::FromEnvironment().has_value());
}

TEST(ModelCacheTest, FusionHookIsPreparedNotStored) {
  const fs::path dir = TempDir("cache_fusion");
  const fs::path model = SaveCorpusModel("mlp", dir);
  const ModelCache cache((dir / "cache").string());
  Options options;
  options.enable_tensorexpr_fusion = true;
  int hook_runs = 0;
  options.fusion_hook = [&hook_runs](std::shared_ptr<torch::jit::Graph>&,
                                     const std::vector<c10::IValue>&) { ++hook_runs; };
  corpus::InputRng rng(5);
  const ModelCacheStats before = GetModelCacheStats();
  absl::StatusOr<StaticModule::Ptr> loaded =
      cache.Load(model.string(), options, corpus::ModelNamed("mlp").inputs(rng, 1));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(hook_runs, 1);
  EXPECT_EQ(GetModelCacheStats().misses, before.misses);
  EXPECT_FALSE(fs::exists(cache.directory()));
}

TEST(ModelCacheTest, SeveralProcessesFillTheCacheAtOnce) {
  const fs::path dir = TempDir("cache_concurrent");
  const fs::path model = SaveCorpusModel("conv_bn_residual", dir);
  const std::string cache = (dir / "cache").string();
  const std::string filler = "runtime/package_cache_filler";
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    std::vector<std::string> args = {filler, model.string(), cache};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, filler.c_str(), nullptr, nullptr, argv.data(), environ), 0);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  const std::vector<fs::path> entries = Entries(cache);
  ASSERT_EQ(entries.size(), 1u);  // no temporary file left
  EXPECT_EQ(entries[0].extension(), ".srpkg");
  EXPECT_TRUE(LoadPackage(entries[0].string()).ok());
}

}  // namespace
}  // namespace static_runtime
