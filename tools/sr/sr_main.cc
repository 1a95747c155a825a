// sr: run, benchmark, check and explain a TorchScript model on the static
// runtime.
//
//   bazel run //tools:sr -- bench [MODEL.pt] [--inputs=FILE | --input-spec=SPEC]
//   bazel run //tools:sr -- explain [MODEL.pt] [--dot=FILE]
//
// Errors print one line on stderr and exit non-zero (1: the model or its
// inputs; 2: the command line).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "ATen/Context.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "load/load.h"
#include "runtime/model_cache.h"
#include "runtime/package.h"
#include "runtime/reports/explain.h"
#include "runtime/reports/machine.h"
#include "runtime/reports/profile.h"
#include "server/model_signature.h"
#include "server/open_inference.pb.h"
#include "server/read_file.h"
#include "server/server.h"
#include "server/tensor_codec.h"
#include "tools/intra_op_threads.h"
#include "tools/sr/args.h"
#include "tools/sr/bench.h"
#include "tools/sr/default_model.h"
#include "tools/sr/gate.h"
#include "tools/sr/input_spec.h"
#include "tools/sr/inputs_file.h"
#include "tools/sr/load_bench.h"
#include "tools/sr/loadgen.h"
#include "tools/sr/plan_svg.h"
#include "tools/sr/serve.h"
#include "tools/sr/verify.h"
#include "torch/csrc/jit/serialization/pickle.h"

namespace static_runtime {
namespace sr {
namespace {

// Every flag of every command; the runtime options' flags (BoolOptions(),
// with Options' own defaults) come last but --help.
const std::vector<FlagSpec>& Flags() {
  static const auto* const kFlags = [] {
    auto* flags = new std::vector<FlagSpec>{
        {"builtin", FlagKind::kString, "ads",
         "the embedded model used without a model file: ads or op_dense"},
        {"inputs", FlagKind::kString, "", "inputs: a file written by torch.save (tuple or list)"},
        {"input_spec", FlagKind::kString, "",
         "random inputs, e.g. 'f32[8,64];i64[32]{0..999};int=3' (see README)"},
        {"seed", FlagKind::kInt, "0", "seed for --input-spec"},
        {"seeds", FlagKind::kInt, "2", "verify: seeds per --input-spec alternative"},
        {"iters", FlagKind::kInt, "200", "timed calls per side and thread"},
        {"warmup", FlagKind::kInt, "20", "untimed calls per side and thread first"},
        {"threads", FlagKind::kInt, "1",
         "concurrent callers (static runtime through a pool); loadgen: clients"},
        {"intra_op_threads", FlagKind::kInt, "1", "intra-op threads (ATen's and OpenBLAS's)"},
        {"frozen", FlagKind::kBool, "false", "the model is already frozen"},
        {"json", FlagKind::kString, "",
         "bench, verify: also write the report as JSON to this file"},
        {"time_jit", FlagKind::kBool, "true",
         "bench: time the JIT too (false: it only checks the outputs, and the other sides run "
         "back to back)"},
        {"against", FlagKind::kString, "",
         "bench: also time pytorch-sr (PyTorch's own Static Runtime) and/or, joined by +, "
         "static:OPTION=VALUE,... (this runtime with other options), interleaved"},
        {"baseline", FlagKind::kString, "", "gate: the reference reports (sr bench --json)"},
        {"current", FlagKind::kString, "", "gate: the reports to judge"},
        {"max_regression", FlagKind::kDouble, "5", "gate: allowed growth of a ratio, percent"},
        {"dot", FlagKind::kString, "", "explain: also write the graph for Graphviz to this file"},
        {"trace", FlagKind::kString, "", "profile: write one run as a Chrome/Perfetto trace"},
        {"svg", FlagKind::kString, "", "plan: write the memory plan as an SVG picture"},
        {"model_out", FlagKind::kString, "", "export: write the model (torch.jit.save format)"},
        {"out", FlagKind::kString, "", "compile: the package to write (also -o FILE)"},
        {"rounds", FlagKind::kInt, "5", "load: interleaved rounds of each way of loading"},
        {"rate", FlagKind::kDouble, "0",
         "throughput, loadgen: calls per second, all callers together (0: back to back)"},
        {"seconds", FlagKind::kDouble, "3", "throughput, loadgen: how long to call, timed"},
        {"repository", FlagKind::kString, "",
         "serve: the model repository, a folder of NAME/model.pt or NAME/model.srpkg (and "
         "optional NAME/config.json)"},
        {"grpc", FlagKind::kString, "",
         "serve: gRPC address HOST:PORT, or PORT for 127.0.0.1:PORT (0: any free port); "
         "loadgen: the server's"},
        {"model", FlagKind::kString, "",
         "loadgen: the model's name on the server (default: the model file's folder name)"},
        {"server_live_only", FlagKind::kBool, "false",
         "loadgen: send ServerLive calls instead of the model's inputs (the transport's own "
         "round trip)"},
        {"max_requests", FlagKind::kInt, "0",
         "loadgen: send at most this many requests (0: only --seconds bounds them)"},
        {"http", FlagKind::kString, "",
         "serve: HTTP address HOST:PORT, or PORT for 127.0.0.1:PORT (0: any free port)"},
        {"engine", FlagKind::kString, "static",
         "serve: what runs the models: static (this runtime) or jit (the TorchScript JIT)"},
        {"cache_dir", FlagKind::kString, "",
         "serve: where prepared models are kept between restarts (default: "
         "REPOSITORY/.sr_cache; none: no cache)"},
        {"token_file", FlagKind::kString, "",
         "serve: a file holding the bearer token every request but health checks must carry"},
        {"tls_cert", FlagKind::kString, "", "serve: PEM certificate: HTTPS and gRPC over TLS"},
        {"tls_key", FlagKind::kString, "", "serve: PEM private key of --tls-cert"},
        {"http_threads", FlagKind::kInt, "16", "serve: HTTP connection threads"},
        {"shutdown_seconds", FlagKind::kDouble, "10",
         "serve: on SIGTERM, how long requests in flight get to finish"},
        {"max_request_bytes", FlagKind::kInt, "67108864", "serve: the largest request accepted"},
        {"max_tensors", FlagKind::kInt, "256", "serve: the most tensors a request may hold"},
        {"max_elements", FlagKind::kInt, "67108864",
         "serve: the most elements one tensor of a request may hold"},
        {"packed_weights", FlagKind::kBool, "false",
         "compile, load: the package also stores the oneDNN-packed weights (a faster first run, a "
         "larger package "
         "and a slower load)"},
        {"source", FlagKind::kString, "",
         "bench on a package: the model it was compiled from, for the JIT's side and the output "
         "check"},
        {"inputs_out", FlagKind::kString, "", "export: write the inputs (torch.save format)"},
        {"blas_core", FlagKind::kString, "",
         "run OpenBLAS (ATen's, the JIT's and PyTorch SR's matrix products) on this core: a name "
         "OPENBLAS_CORETYPE takes (Prescott, Haswell, SkylakeX, Cooperlake, Zen, ...) or best, "
         "the most capable one this CPU runs; sr runs itself again with OPENBLAS_CORETYPE set. "
         "Default for bench --against: best, unless OPENBLAS_CORETYPE is set"},
        {"op_libraries", FlagKind::kString, "",
         "shared libraries of custom operators, comma-separated, loaded before the model as "
         "Python's torch.ops.load_library loads them: torchvision's _C.so for a detection "
         "model's torchvision::nms and roi_align"},
        {"quantized_engine", FlagKind::kString, "",
         "the quantized engine (onednn, qnnpack, ...) set before a model loads: a quantized "
         "model's weights are packed for the engine current when it loads, so give the one it "
         "was saved for. Default: LibTorch's"},
    };
    const Options defaults;
    for (const BoolOption& flag : BoolOptions()) {
      flags->push_back(
          {flag.name, FlagKind::kBool, defaults.*flag.member ? "true" : "false", flag.help});
    }
    flags->push_back({"help", FlagKind::kBool, "false", "this text"});
    return flags;
  }();
  return *kFlags;
}

// --inputs, --input-spec, or the embedded model's spec.
absl::StatusOr<std::vector<c10::IValue>> LoadInputs(const Args& args) {
  if (args.Given("inputs")) return LoadInputsFile(args.String("inputs"));
  const char* builtin_spec =
      args.String("builtin") == "op_dense" ? kOpDenseInputSpec : kDefaultInputSpec;
  return ParseInputSpec(
      args.Given("input_spec") ? args.String("input_spec") : std::string(builtin_spec),
      args.Int("seed"));
}

// True if the model named on the command line is a compiled package.
bool IsPackage(const Args& args) {
  return !args.positional().empty() && absl::EndsWith(args.positional()[0], ".srpkg");
}

// The model named on the command line, or the embedded one.
absl::StatusOr<torch::jit::Module> LoadModel(const Args& args, std::string& name) {
  if (args.positional().empty()) {
    if (args.String("builtin") == "op_dense") {
      name = "builtin op_dense";
      return OpDenseModel();
    }
    if (args.String("builtin") != "ads") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown --builtin=", args.String("builtin"), " (ads or op_dense)"));
    }
    name = "default (ads ranking)";
    return DefaultModel();
  }
  name = args.positional()[0];
  return LoadModuleFromFile(name);
}

// The static module of a command that takes no inputs: the package's, or
// prepared from the model named on the command line (or the embedded one).
absl::StatusOr<StaticModule::Ptr> LoadStaticModule(const Args& args, const Options& options,
                                                   std::string& name) {
  if (IsPackage(args)) {
    name = args.positional()[0];
    return LoadPackage(name);
  }
  ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(args, name));
  return StaticModule::FromModule(module, args.Bool("frozen"), options);
}

Options OptionsFrom(const Args& args) {
  Options options;
  for (const BoolOption& flag : BoolOptions()) options.*flag.member = args.Bool(flag.name);
  return options;
}

// `options` with the changes of `changes` ("parallel_forks=false,
// enable_fusion=false"; '-' and '_' alike in names).
absl::StatusOr<Options> ChangedOptions(Options options, absl::string_view changes) {
  for (absl::string_view change : absl::StrSplit(changes, ',', absl::SkipEmpty())) {
    const std::pair<std::string, std::string> name_value = absl::StrSplit(change, '=');
    const std::string name = absl::StrReplaceAll(name_value.first, {{"-", "_"}});
    const std::string& value = name_value.second;
    const BoolOption* flag = FindBoolOption(name);
    if (flag == nullptr || (value != "true" && value != "false")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--against=static: takes OPTION=true|false,... with an option flag's name, not '", change,
          "'"));
    }
    options.*(flag->member) = value == "true";
  }
  return options;
}

// A progress bar on stderr once a run has taken 2 s.
std::function<void(double)> ProgressBar() {
  const auto start = std::chrono::steady_clock::now();
  return [start](double fraction) {
    if (std::chrono::steady_clock::now() - start < std::chrono::seconds(2) && fraction < 1) {
      return;
    }
    const int width = 40;
    const int filled = static_cast<int>(fraction * width);
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, ' ') << "] "
              << static_cast<int>(fraction * 100) << "%" << (fraction >= 1 ? "\n" : "")
              << std::flush;
  };
}

int Fail(int code, const std::string& message) {
  std::cerr << "sr: " << message << "\n";
  return code;
}

// What the commands that run a model need.
struct RunSetup {
  std::string model_name;
  torch::jit::Module module;
  // A compiled package given instead of a model file, and its load time.
  StaticModule::Ptr package;
  double package_load_ms = 0;
  std::vector<c10::IValue> inputs;
  Options options;
};

// Checks the command line, loads the model and its inputs; 0 or an exit code.
int PrepareRun(const Args& args, const char* command, RunSetup& setup) {
  if (args.positional().size() > 1) {
    return Fail(2, absl::StrCat(command, " takes at most one model file"));
  }
  if (args.Given("inputs") && args.Given("input_spec")) {
    return Fail(2, "give --inputs or --input-spec, not both");
  }
  if (!args.positional().empty() && !args.Given("inputs") && !args.Given("input_spec")) {
    return Fail(2, "a model file needs --inputs=FILE or --input-spec=SPEC");
  }
  setup.options = OptionsFrom(args);
  absl::Status valid = ValidateOptions(setup.options);
  if (!valid.ok()) return Fail(2, std::string(valid.message()));
  if (IsPackage(args)) {
    setup.model_name = args.positional()[0];
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<StaticModule::Ptr> package = LoadPackage(setup.model_name);
    if (!package.ok()) return Fail(1, std::string(package.status().message()));
    setup.package = *std::move(package);
    setup.package_load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    setup.options = setup.package->options();
    if (args.Given("source")) {
      absl::StatusOr<torch::jit::Module> source = LoadModuleFromFile(args.String("source"));
      if (!source.ok()) return Fail(1, std::string(source.status().message()));
      setup.module = *std::move(source);
    }
  } else {
    absl::StatusOr<torch::jit::Module> module = LoadModel(args, setup.model_name);
    if (!module.ok()) return Fail(1, std::string(module.status().message()));
    setup.module = *std::move(module);
  }
  absl::StatusOr<std::vector<c10::IValue>> inputs = LoadInputs(args);
  if (inputs.ok()) {
    inputs = ArgumentsFromInputs(
        *std::move(inputs), setup.package ? setup.package->schema() : ForwardSchema(setup.module));
  }
  if (!inputs.ok()) return Fail(1, std::string(inputs.status().message()));
  setup.inputs = *std::move(inputs);
  SetIntraOpThreads(args.Int("intra_op_threads"));
  return 0;
}

// Writes `text` to the file named by flag `flag`, if given; 0 or an exit code.
int WriteIfGiven(const Args& args, const char* flag, const std::string& text) {
  if (!args.Given(flag)) return 0;
  std::ofstream file(args.String(flag), std::ios::binary);
  file << text;
  if (!file) return Fail(1, absl::StrCat("cannot write ", args.String(flag)));
  return 0;
}

int Bench(const Args& args) {
  RunSetup setup;
  if (int code = PrepareRun(args, "bench", setup)) return code;
  BenchConfig config;
  config.iters = args.Int("iters");
  config.warmup = args.Int("warmup");
  config.threads = args.Int("threads");
  config.intra_op_threads = args.Int("intra_op_threads");
  config.is_frozen = args.Bool("frozen");
  config.time_jit = args.Bool("time_jit");
  config.options = setup.options;
  for (absl::string_view contestant :
       absl::StrSplit(args.String("against"), '+', absl::SkipEmpty())) {
    if (contestant == "pytorch-sr") {
      config.against_pytorch_sr = true;
    } else if (absl::ConsumePrefix(&contestant, "static:") && !config.other_options) {
      absl::StatusOr<Options> other = ChangedOptions(setup.options, contestant);
      if (!other.ok()) return Fail(2, std::string(other.status().message()));
      config.other_options = *other;
      config.other_name = std::string(contestant);
    } else {
      return Fail(2, absl::StrCat("unknown --against=", args.String("against"),
                                  " (pytorch-sr, static:OPTION=VALUE,... or both joined by +)"));
    }
  }
  if (setup.package) {
    if (!args.Given("source")) {
      return Fail(2,
                  "bench on a package needs --source=MODEL.pt, the model it was compiled from "
                  "(the JIT's side and the output check run it)");
    }
    config.prebuilt = setup.package;
    config.prebuilt_ms = setup.package_load_ms;
  }
  if (isatty(STDERR_FILENO)) config.progress = ProgressBar();
  absl::StatusOr<BenchReport> report = RunBench(setup.module, setup.inputs, config);
  if (!report.ok()) return Fail(1, std::string(report.status().message()));
  std::cout << "model: " << setup.model_name << "\n" << FormatReport(*report);
  return WriteIfGiven(args, "json", ReportJson(*report, setup.model_name));
}

int ProfileCommand(const Args& args) {
  RunSetup setup;
  if (int code = PrepareRun(args, "profile", setup)) return code;
  absl::StatusOr<reports::ProfileReport> report =
      setup.package
          ? reports::Profile(setup.package, setup.package_load_ms, setup.inputs, args.Int("iters"))
          : reports::Profile(setup.module, args.Bool("frozen"), setup.options, setup.inputs,
                             args.Int("iters"));
  if (!report.ok()) return Fail(1, std::string(report.status().message()));
  std::cout << "model: " << setup.model_name << "\n" << reports::FormatProfile(*report);
  return WriteIfGiven(args, "trace", report->trace_json);
}

// The compiled package given, or the model prepared with the options.
absl::StatusOr<StaticModule::Ptr> PreparedModule(const Args& args, const RunSetup& setup) {
  if (setup.package) return setup.package;
  return StaticModule::FromModule(setup.module, args.Bool("frozen"), setup.options, setup.inputs);
}

int ThroughputCommand(const Args& args) {
  RunSetup setup;
  if (int code = PrepareRun(args, "throughput", setup)) return code;
  absl::StatusOr<StaticModule::Ptr> static_module = PreparedModule(args, setup);
  if (!static_module.ok()) return Fail(1, std::string(static_module.status().message()));
  ServeConfig config;
  config.threads = args.Int("threads");
  config.calls_per_second = args.Double("rate");
  config.seconds = args.Double("seconds");
  config.warmup = args.Int("warmup");
  absl::StatusOr<ServeReport> report = Serve(*static_module, setup.inputs, config);
  if (!report.ok()) {
    return Fail(report.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                std::string(report.status().message()));
  }
  std::cout << "model: " << setup.model_name << "\n" << FormatServeReport(*report);
  return 0;
}

int ServeCommand(const Args& args) {
  if (!args.positional().empty()) return Fail(2, "serve takes no model file: use --repository");
  if (!args.Given("repository")) return Fail(2, "serve needs --repository=DIR");
  server::ServerOptions options;
  options.repository.directory = args.String("repository");
  const std::string cache = args.String("cache_dir");
  options.repository.cache_directory =
      cache == "none" ? "" : (cache.empty() ? options.repository.directory + "/.sr_cache" : cache);
  const std::string engine = args.String("engine");
  if (engine != "static" && engine != "jit") {
    return Fail(2, absl::StrCat("--engine=", engine, ": give static or jit"));
  }
  options.repository.engine =
      engine == "jit" ? server::EngineKind::kJit : server::EngineKind::kStaticRuntime;
  options.grpc_address = args.String("grpc");
  options.http_address = args.String("http");
  options.tls = {args.String("tls_cert"), args.String("tls_key")};
  if (options.tls.certificate.empty() != options.tls.private_key.empty()) {
    return Fail(2, "give both --tls-cert and --tls-key, or neither");
  }
  if (args.Given("token_file")) {
    absl::StatusOr<std::string> token = server::ReadTokenFile(args.String("token_file"));
    if (!token.ok()) return Fail(2, std::string(token.status().message()));
    options.token = *std::move(token);
  }
  options.http_threads = args.Int("http_threads");
  // Each instance of a model runs on one core (config.json's instances
  // are the parallelism), unless --intra-op-threads says otherwise.
  SetIntraOpThreads(args.Int("intra_op_threads"));
  options.shutdown_seconds = args.Double("shutdown_seconds");
  options.limits.max_request_bytes = args.Int("max_request_bytes");
  options.limits.max_tensors = args.Int("max_tensors");
  options.limits.max_elements = args.Int("max_elements");
  if (options.http_threads < 1 || options.limits.max_request_bytes < 1 ||
      options.limits.max_tensors < 1 || options.limits.max_elements < 1) {
    return Fail(2, "--http-threads and the --max-* limits must be at least 1");
  }
  absl::Status served = server::RunServer(options, std::cout);
  if (!served.ok()) {
    return Fail(served.code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                std::string(served.message()));
  }
  return 0;
}

int PlanCommand(const Args& args) {
  if (!args.Given("svg")) return Fail(2, "plan needs --svg=FILE");
  RunSetup setup;
  if (int code = PrepareRun(args, "plan", setup)) return code;
  absl::StatusOr<StaticModule::Ptr> static_module = PreparedModule(args, setup);
  if (!static_module.ok()) return Fail(1, std::string(static_module.status().message()));
  StaticRuntime runtime(*static_module);
  absl::StatusOr<c10::IValue> result = runtime.Run(setup.inputs);
  if (!result.ok()) return Fail(1, std::string(result.status().message()));
  const MemoryPlanDescription plan = runtime.DescribeMemoryPlan();
  if (plan.tensors.empty()) {
    return Fail(1,
                "the runtime plans no memory for this model (no managed tensors, or "
                "--optimize-memory=false)");
  }
  const ArenaStats& stats = plan.stats;
  std::cout << "model: " << setup.model_name << "\n"
            << absl::StrFormat(
                   "%d managed tensors; arena %d B (%s), storage groups %d B, greedy by "
                   "size %d B, lower bound %d B\nwrote %s\n",
                   stats.managed_tensors, plan.planned_bytes, stats.algorithm,
                   stats.storage_groups_bytes, stats.greedy_by_size_bytes, stats.lower_bound_bytes,
                   args.String("svg"));
  return WriteIfGiven(args, "svg", PlanSvg(plan));
}

int ExportCommand(const Args& args) {
  if (!args.Given("model_out") || !args.Given("inputs_out")) {
    return Fail(2, "export needs --model-out=FILE and --inputs-out=FILE");
  }
  RunSetup setup;
  if (IsPackage(args)) return Fail(2, "export takes a model file, not a compiled package");
  if (int code = PrepareRun(args, "export", setup)) return code;
  try {
    setup.module.save(args.String("model_out"));
  } catch (const std::exception& e) {
    return Fail(1, std::string(StatusFromException(
                                   e, absl::StrCat("cannot write ", args.String("model_out"), ": "))
                                   .message()));
  }
  const std::vector<char> pickled =
      torch::jit::pickle_save(c10::ivalue::Tuple::create(setup.inputs));
  if (int code = WriteIfGiven(args, "inputs_out", std::string(pickled.begin(), pickled.end()))) {
    return code;
  }
  std::cout << "model: " << setup.model_name << "\nwrote " << args.String("model_out") << " and "
            << args.String("inputs_out") << "\n";
  return 0;
}

// verify's input sets: each file of --inputs (comma separated), and each
// alternative of --input-spec ('|' separated) with --seeds seeds.
absl::StatusOr<std::vector<InputSet>> VerifyInputSets(const Args& args,
                                                      const c10::FunctionSchema& schema) {
  std::vector<InputSet> sets;
  if (args.Given("inputs")) {
    for (absl::string_view file : absl::StrSplit(args.String("inputs"), ',', absl::SkipEmpty())) {
      ASSIGN_OR_RETURN(std::vector<c10::IValue> inputs, LoadInputsFile(std::string(file)));
      ASSIGN_OR_RETURN(inputs, ArgumentsFromInputs(std::move(inputs), schema));
      sets.push_back({std::string(file), std::move(inputs)});
    }
  }
  if (args.Given("input_spec")) {
    if (args.Int("seeds") < 1) return absl::InvalidArgumentError("--seeds must be >= 1");
    for (absl::string_view spec :
         absl::StrSplit(args.String("input_spec"), '|', absl::SkipWhitespace())) {
      for (int seed = 0; seed < args.Int("seeds"); ++seed) {
        ASSIGN_OR_RETURN(std::vector<c10::IValue> inputs,
                         ParseInputSpec(std::string(absl::StripAsciiWhitespace(spec)), seed));
        sets.push_back({absl::StrCat("spec '", absl::StripAsciiWhitespace(spec), "' seed ", seed),
                        std::move(inputs)});
      }
    }
  }
  if (sets.empty()) {
    return absl::InvalidArgumentError(
        "verify needs --inputs=FILE[,FILE...] and/or --input-spec=SPEC");
  }
  return sets;
}

int VerifyCommand(const Args& args) {
  if (args.positional().size() != 1) return Fail(2, "verify takes one model file");
  std::string model_name;
  absl::StatusOr<torch::jit::Module> module = LoadModel(args, model_name);
  if (!module.ok()) return Fail(1, std::string(module.status().message()));
  VerifyConfig config;
  config.options = OptionsFrom(args);
  absl::Status valid = ValidateOptions(config.options);
  if (!valid.ok()) return Fail(2, std::string(valid.message()));
  config.is_frozen = args.Bool("frozen");
  absl::StatusOr<std::vector<InputSet>> input_sets = VerifyInputSets(args, ForwardSchema(*module));
  if (!input_sets.ok()) {
    return Fail(input_sets.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                std::string(input_sets.status().message()));
  }
  config.input_sets = *std::move(input_sets);
  SetIntraOpThreads(args.Int("intra_op_threads"));
  const VerifyReport report = Verify(*module, config);
  std::cout << FormatVerifyReport(report, model_name);
  if (int code = WriteIfGiven(args, "json", VerifyReportJson(report, model_name))) return code;
  return report.passed() ? 0 : 1;
}

int GateCommand(const Args& args) {
  if (!args.Given("baseline") || !args.Given("current")) {
    return Fail(2, "gate needs --baseline=FILE[,FILE...] and --current=FILE[,FILE...]");
  }
  const double max_regression = args.Double("max_regression");
  if (!(max_regression >= 0)) return Fail(2, "--max-regression must be >= 0 (percent)");
  auto files = [&](const char* flag) -> std::vector<std::string> {
    return absl::StrSplit(args.String(flag), ',', absl::SkipEmpty());
  };
  absl::StatusOr<std::map<std::string, double>> baseline = ReadRatios(files("baseline"));
  if (!baseline.ok()) return Fail(2, std::string(baseline.status().message()));
  absl::StatusOr<std::map<std::string, double>> current = ReadRatios(files("current"));
  if (!current.ok()) return Fail(2, std::string(current.status().message()));
  const GateResult result = Gate(*baseline, *current, max_regression);
  std::cout << FormatGate(result, max_regression);
  return result.passed ? 0 : 1;
}

int ExplainCommand(const Args& args) {
  if (args.positional().size() > 1) return Fail(2, "explain takes at most one model file");
  const Options options = OptionsFrom(args);
  absl::Status valid = ValidateOptions(options);
  if (!valid.ok()) return Fail(2, std::string(valid.message()));
  std::string model_name;
  absl::StatusOr<StaticModule::Ptr> static_module = LoadStaticModule(args, options, model_name);
  if (!static_module.ok()) {
    // The check's full report: every node the runtime cannot run.
    std::cout << "model: " << model_name << "\n" << static_module.status().message() << "\n";
    return 1;
  }
  std::cout << "model: " << model_name << "\n" << reports::Explain(**static_module);
  return WriteIfGiven(args, "dot", reports::ToDot(**static_module));
}

int CompileCommand(const Args& args) {
  if (args.positional().size() != 1 || IsPackage(args)) {
    return Fail(2, "compile takes one model file (MODEL.pt)");
  }
  if (!args.Given("out")) return Fail(2, "compile needs -o FILE.srpkg (or --out=FILE.srpkg)");
  if (args.Given("inputs") && args.Given("input_spec")) {
    return Fail(2, "give --inputs or --input-spec, not both");
  }
  const Options options = OptionsFrom(args);
  absl::Status valid = ValidateOptions(options);
  if (!valid.ok()) return Fail(2, std::string(valid.message()));
  const std::string path = args.positional()[0];
  absl::StatusOr<std::string> bytes = ReadModelFile(path);
  if (!bytes.ok()) return Fail(1, std::string(bytes.status().message()));
  std::vector<c10::IValue> inputs;  // none: the plan is learned on the first run
  if (args.Given("inputs") || args.Given("input_spec")) {
    absl::StatusOr<std::vector<c10::IValue>> loaded = LoadInputs(args);
    if (!loaded.ok()) return Fail(1, std::string(loaded.status().message()));
    inputs = *std::move(loaded);
  }
  SetIntraOpThreads(args.Int("intra_op_threads"));
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromBytes(*bytes);
  if (!module.ok()) return Fail(1, absl::StrCat("'", path, "' is ", module.status().message()));
  if (!inputs.empty()) {
    absl::StatusOr<std::vector<c10::IValue>> arguments =
        ArgumentsFromInputs(std::move(inputs), ForwardSchema(*module));
    if (!arguments.ok()) return Fail(1, std::string(arguments.status().message()));
    inputs = *std::move(arguments);
  }
  absl::StatusOr<StaticModule::Ptr> static_module =
      StaticModule::FromModule(*module, args.Bool("frozen"), options, inputs);
  if (!static_module.ok()) return Fail(1, std::string(static_module.status().message()));
  const double prepare_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  absl::Status saved = SavePackage(**static_module, args.String("out"), {path, Sha256Hex(*bytes)},
                                   args.Bool("packed_weights"));
  if (!saved.ok()) return Fail(1, std::string(saved.message()));
  const KernelCounts& kernels = (*static_module)->kernel_counts();
  std::cout << "model: " << path << "\n"
            << absl::StrFormat(
                   "prepared in %.1f ms: %d out variant, %d native, %d fallback nodes\n",
                   prepare_ms, kernels.out_variant, kernels.native, kernels.fallback)
            << (inputs.empty()
                    ? "memory plan: learned on the first run (no --inputs given)\n"
                    : absl::StrCat("memory plan: for ", inputs.size(), " inputs (",
                                   absl::StrJoin((*static_module)->planned_inputs(), ", "), ")\n"))
            << "wrote " << args.String("out") << "\n";
  return 0;
}

int LoadgenCommand(const Args& args) {
  if (!args.Given("grpc")) return Fail(2, "loadgen needs --grpc=HOST:PORT, the server's address");
  RunSetup setup;
  if (int code = PrepareRun(args, "loadgen", setup)) return code;
  const c10::FunctionSchema schema =
      setup.package ? setup.package->schema() : ForwardSchema(setup.module);
  absl::StatusOr<std::vector<server::NamedTensor>> inputs =
      server::ModelSignature::Inputs(schema, setup.inputs);
  if (!inputs.ok()) return Fail(2, std::string(inputs.status().message()));
  inference::ModelInferRequest request;
  request.set_model_name(
      args.Given("model")
          ? args.String("model")
          : std::filesystem::path(setup.model_name).parent_path().filename().string());
  for (const server::NamedTensor& input : *inputs) {
    const absl::Status described =
        server::DescribeTensor(input.name, input.tensor, *request.add_inputs());
    if (!described.ok()) return Fail(2, std::string(described.message()));
    request.add_raw_input_contents(server::RawBytes(input.tensor));
  }
  LoadgenConfig config;
  config.address = args.String("grpc");
  config.clients = args.Int("threads");
  config.rate = args.Double("rate");
  config.seconds = args.Double("seconds");
  config.max_requests = args.Int("max_requests");
  config.server_live_only = args.Bool("server_live_only");
  if (args.Given("token_file")) {
    absl::StatusOr<std::string> token = server::ReadTokenFile(args.String("token_file"));
    if (!token.ok()) return Fail(2, std::string(token.status().message()));
    config.token = *std::move(token);
  }
  if (args.Given("tls_cert")) {
    absl::StatusOr<std::string> certificate = server::ReadFile(args.String("tls_cert"));
    if (!certificate.ok()) return Fail(2, std::string(certificate.status().message()));
    config.root_certificate = *certificate;
  }
  absl::StatusOr<LoadgenReport> report = RunLoad(config, request);
  if (!report.ok()) {
    return Fail(report.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                std::string(report.status().message()));
  }
  std::cout << "model: " << request.model_name() << "\n" << FormatLoadgenReport(config, *report);
  return report->ok > 0 ? 0 : 1;
}

int LoadCommand(const Args& args) {
  if (args.positional().size() != 1 || IsPackage(args)) {
    return Fail(2, "load takes one model file (MODEL.pt)");
  }
  RunSetup setup;
  if (int code = PrepareRun(args, "load", setup)) return code;
  const char* scratch = std::getenv("TMPDIR");
  absl::StatusOr<LoadReport> report = MeasureLoad(
      setup.model_name, setup.options, setup.inputs, args.Int("rounds"),
      scratch != nullptr && *scratch != '\0' ? scratch : "/tmp", args.Bool("packed_weights"));
  if (!report.ok()) return Fail(1, std::string(report.status().message()));
  std::cout << "model: " << setup.model_name << "\n" << FormatLoadReport(*report);
  return 0;
}

// Every command: its usage line (after "sr "), what it does, and its
// function. The usage text, the dispatch and the unknown-command error come
// from this one table.
struct Command {
  const char* name;
  const char* usage;
  const char* description;
  int (*run)(const Args&);
};

const std::vector<Command>& Commands() {
  static const auto* const kCommands = new std::vector<Command>{
      {"bench", "bench [MODEL.pt | MODEL.srpkg --source=MODEL.pt] [flags]",
       "runs MODEL.pt (a torch.jit.save archive; without one, an embedded ads-ranking model) on "
       "the static runtime and on the TorchScript JIT, interleaved, and prints latency, the "
       "output check, memory and kernel statistics.",
       Bench},
      {"profile", "profile [MODEL.pt | MODEL.srpkg] [--trace=FILE.json] [flags]",
       "shows time per node kind, the phases of a run and the runtime's overhead per node.",
       ProfileCommand},
      {"explain", "explain [MODEL.pt | MODEL.srpkg] [--dot=FILE] [flags]",
       "prints the prepared graph, each node's kernel kind and why a node runs in fallback, or "
       "why the model cannot run.",
       ExplainCommand},
      {"plan", "plan [MODEL.pt | MODEL.srpkg] --svg=FILE [flags]",
       "draws the memory plan after a run.", PlanCommand},
      {"compile", "compile MODEL.pt [--inputs=FILE | --input-spec=SPEC] -o MODEL.srpkg [flags]",
       "prepares MODEL.pt once and writes it as a compiled package (prepared graph, constants, "
       "kernel choices and the memory plan for the given inputs) that loads without running any "
       "pass; bench, profile, explain and plan take a package (MODEL.srpkg) in place of a "
       "model, with the options it was compiled with.",
       CompileCommand},
      {"serve",
       "serve --repository=DIR [--grpc=HOST:PORT] [--http=HOST:PORT] [--engine=static|jit] "
       "[flags]",
       "serves the repository's models on the Open Inference Protocol (KServe v2) over gRPC "
       "and HTTP until SIGTERM (docs/serving.md).",
       ServeCommand},
      {"loadgen",
       "loadgen MODEL.pt --inputs=FILE | --input-spec=SPEC --grpc=HOST:PORT [--model=NAME] "
       "[--threads=N | --rate=R] [--seconds=S] [--max-requests=N]",
       "sends the model's inputs to a running server over gRPC (loopback only), closed loop "
       "with N clients or open loop at R requests per second, and prints throughput and "
       "latency percentiles.",
       LoadgenCommand},
      {"throughput",
       "throughput [MODEL.pt | MODEL.srpkg] [--threads=N] [--rate=CALLS_PER_S] [--seconds=S]",
       "calls the model from N caller threads sharing a runtime pool, in process, back to back "
       "or at a fixed rate, and prints calls per second, latency and the CPU the process "
       "burned.",
       ThroughputCommand},
      {"load", "load MODEL.pt --inputs=FILE | --input-spec=SPEC [--rounds=N] [flags]",
       "times how long MODEL.pt takes to become ready: prepared, from a compiled package and "
       "through the model cache, interleaved.",
       LoadCommand},
      {"export", "export [MODEL.pt] --model-out=FILE --inputs-out=FILE [flags]",
       "writes the model and its inputs as files Python loads with torch.jit.load and "
       "torch.load (for tools/compare_pytorch_sr.py).",
       ExportCommand},
      {"verify",
       "verify MODEL.pt --inputs=FILE[,FILE...] | --input-spec=SPEC[|SPEC...] [--seeds=N]",
       "checks the model against the JIT under every option set, on every input set, and exits "
       "0 only if every check passes.",
       VerifyCommand},
      {"gate", "gate --baseline=FILE[,FILE...] --current=FILE[,FILE...] [--max-regression=PCT]",
       "compares benchmark JSON reports (sr bench --json) by their static / JIT ratios and "
       "exits 1 on a regression beyond --max-regression percent or a missing model.",
       GateCommand},
  };
  return *kCommands;
}

std::string Usage() {
  std::string usage;
  for (const Command& command : Commands()) {
    absl::StrAppend(&usage, usage.empty() ? "usage: sr " : "       sr ", command.usage, "\n");
  }
  absl::StrAppend(&usage, "\n");
  for (const Command& command : Commands()) {
    absl::StrAppend(&usage, command.name, " ", command.description, "\n");
  }
  absl::StrAppend(&usage, "\nflags:\n", FlagHelp(Flags()));
  return usage;
}

// --blas-core: OpenBLAS reads OPENBLAS_CORETYPE once, when LibTorch loads
// it (before main), so sr runs itself again with the variable set, then
// checks OpenBLAS took the core. 0 to go on, or an exit code.
int UseBlasCore(const std::string& wanted, char** argv) {
  const std::string core = wanted == "best" ? reports::BestOpenBlasCore() : wanted;
  const char* current = std::getenv("OPENBLAS_CORETYPE");
  if (current == nullptr || core != current) {
    if (setenv("OPENBLAS_CORETYPE", core.c_str(), /*overwrite=*/1) != 0) {
      return Fail(1, "--blas-core: cannot set OPENBLAS_CORETYPE");
    }
    execv("/proc/self/exe", argv);
    return Fail(1, absl::StrCat("--blas-core: cannot run sr again: ", std::strerror(errno)));
  }
  const reports::MachineKernels kernels = reports::DescribeMachineKernels();
  if (kernels.openblas_core.empty()) {
    return Fail(2, "--blas-core: LibTorch's BLAS is not OpenBLAS");
  }
  if (!absl::EqualsIgnoreCase(kernels.openblas_core, core)) {
    return Fail(2, absl::StrCat("--blas-core=", wanted, ": OpenBLAS runs ", kernels.openblas_core,
                                " instead of ", core,
                                " (a core it does not know, or one this CPU cannot run; this "
                                "CPU runs up to ",
                                kernels.best_openblas_core, ")"));
  }
  return 0;
}

// --quantized-engine: LibTorch's engine by its name (c10::QEngine's, any
// case); an engine this LibTorch lacks is an error listing the ones it has.
// --op-libraries: each library registers its operators with the JIT when it
// loads, and stays loaded.
absl::Status LoadOpLibraries(const std::string& paths) {
  for (absl::string_view path : absl::StrSplit(paths, ',', absl::SkipEmpty())) {
    if (dlopen(std::string(path).c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("--op-libraries: cannot load ", path, ": ", dlerror()));
    }
  }
  return absl::OkStatus();
}

absl::Status UseQuantizedEngine(const std::string& wanted) {
  std::vector<std::string> names;
  for (const at::QEngine engine : at::globalContext().supportedQEngines()) {
    const std::string name = c10::toString(engine);
    if (absl::EqualsIgnoreCase(name, wanted)) {
      at::globalContext().setQEngine(engine);
      return absl::OkStatus();
    }
    names.push_back(absl::AsciiStrToLower(name));
  }
  return absl::InvalidArgumentError(absl::StrCat("--quantized-engine=", wanted,
                                                 ": this LibTorch has the engines ",
                                                 absl::StrJoin(names, ", ")));
}

int Main(int argc, char** argv) {
  std::vector<std::string> arguments(argv, argv + argc);
  for (size_t i = 0; i + 1 < arguments.size(); ++i) {  // -o FILE is --out=FILE
    if (arguments[i] == "-o") {
      arguments[i] = "--out=" + arguments[i + 1];
      arguments.erase(arguments.begin() + i + 1);
    }
  }
  absl::StatusOr<Args> args = Args::Parse(arguments, Flags());
  if (!args.ok()) return Fail(2, std::string(args.status().message()));
  // A comparison is fair by default: the JIT and PyTorch SR run their matrix
  // products on the best OpenBLAS core this CPU runs, unless the user chose
  // one (--blas-core or OPENBLAS_CORETYPE).
  const bool comparing = args->command() == "bench" && args->Given("against");
  if (args->Given("blas_core")) {
    if (int code = UseBlasCore(args->String("blas_core"), argv)) return code;
  } else if (comparing && std::getenv("OPENBLAS_CORETYPE") == nullptr && !args->Bool("help")) {
    // (Only where LibTorch's BLAS is an OpenBLAS on a lesser core.)
    const reports::MachineKernels kernels = reports::DescribeMachineKernels();
    if (!kernels.openblas_core.empty() &&
        !absl::EqualsIgnoreCase(kernels.openblas_core, kernels.best_openblas_core)) {
      if (int code = UseBlasCore("best", argv)) return code;
    }
  }
  if (absl::Status loaded = LoadOpLibraries(args->String("op_libraries")); !loaded.ok()) {
    return Fail(2, std::string(loaded.message()));
  }
  if (args->Given("quantized_engine")) {
    if (absl::Status used = UseQuantizedEngine(args->String("quantized_engine")); !used.ok()) {
      return Fail(2, std::string(used.message()));
    }
  }
  if (args->Bool("help") || args->command() == "help") {
    std::cout << Usage();
    return 0;
  }
  std::vector<std::string> names;
  for (const Command& command : Commands()) {
    if (args->command() == command.name) return command.run(*args);
    names.push_back(command.name);
  }
  if (args->command().empty()) return Fail(2, "no command given (try: sr bench --help)");
  return Fail(2, absl::StrCat("unknown command '", args->command(),
                              "' (commands: ", absl::StrJoin(names, ", "), ")"));
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime

int main(int argc, char** argv) {
  try {
    return static_runtime::sr::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "sr: " << static_runtime::StatusFromException(e, "").message() << "\n";
    return 1;
  }
}
