// sr bench: the model on the static runtime and on the JIT (and, asked,
// PyTorch's Static Runtime or this runtime with other options), interleaved.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tools/sr/bench.h"
#include "tools/sr/command.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

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

int BenchMain(const Args& args) {
  RunSetup setup;
  if (int code = PrepareRun(args, "bench", setup)) return code;
  BenchConfig config;
  config.iters = args.Int("iters");
  config.warmup = args.Int("warmup");
  config.threads = args.Int("threads");
  config.turn = args.Int("turn");
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

}  // namespace

Command BenchCommand() {
  return {
      "bench",
      "bench [MODEL.pt | MODEL.srpkg --source=MODEL.pt] [flags]",
      "runs MODEL.pt (a torch.jit.save archive; without one, an embedded ads-ranking model) on "
      "the static runtime and on the TorchScript JIT, interleaved, and prints latency, the "
      "output check, memory and kernel statistics.",
      Join(
          {
              {"iters", FlagKind::kInt, "200", "timed calls per side and thread"},
              {"warmup", FlagKind::kInt, "20", "untimed calls per side and thread first"},
              {"threads", FlagKind::kInt, "1",
               "concurrent callers (the static runtime through a pool)"},
              {"turn", FlagKind::kInt, "1",
               "calls each side makes in a row before the next side's (1: call by call; more: "
               "each side runs on caches it warmed, as a process of its own does)"},
              {"json", FlagKind::kString, "", "also write the report as JSON to this file"},
              {"time_jit", FlagKind::kBool, "true",
               "time the JIT too (false: it only checks the outputs, and the other sides run "
               "back to back)"},
              {"against", FlagKind::kString, "",
               "also time pytorch-sr (PyTorch's own Static Runtime) and/or, joined by +, "
               "static:OPTION=VALUE,... (this runtime with other options), interleaved"},
              {"source", FlagKind::kString, "",
               "on a package: the model it was compiled from, for the JIT's side and the output "
               "check"},
          },
          RunFlags()),
      BenchMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
