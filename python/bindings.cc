// The C++ half of the Python package (python/static_runtime): a
// prepared model with a pool of runtimes, called with Python arguments bound
// to the model's schema as the JIT binds them, the GIL released while it
// runs. The Python half adds option checking, result objects, compare()
// and the command line.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ATen/Parallel.h"
#include "absl/strings/str_cat.h"
#include "execution/background_work.h"
#include "load/load.h"
#include "oneapi/dnnl/dnnl.h"
#include "options/options.h"
#include "runtime/package.h"
#include "runtime/pool.h"
#include "runtime/reports/explain.h"
#include "runtime/reports/machine.h"
#include "runtime/reports/profile.h"
#include "runtime/static_module.h"
#include "runtime/static_runtime.h"
#include "torch/csrc/jit/python/pybind_utils.h"
#include "torch/csrc/jit/runtime/jit_exception.h"
#include "torch/csrc/utils/pybind.h"
#include "torch/version.h"
#include "verify/option_sets.h"
#include "verify/verify_model.h"

namespace static_runtime {
namespace python {

namespace py = pybind11;
using Clock = std::chrono::steady_clock;

double Micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

// Options from {name: bool} and the plans each kernel cache keeps;
// ValueError names an unknown option or a bad combination or value.
Options OptionsFrom(const std::map<std::string, bool>& given,
                    std::optional<int64_t> shape_plans_per_kernel) {
  Options options;
  if (shape_plans_per_kernel) {
    // (Below 1: ValidateOptions says why.)
    options.shape_plans_per_kernel =
        static_cast<size_t>(std::max<int64_t>(0, *shape_plans_per_kernel));
  }
  for (const auto& [name, value] : given) {
    const BoolOption* option = FindBoolOption(name);
    if (option == nullptr) {
      std::string names;
      for (const BoolOption& o : BoolOptions())
        absl::StrAppend(&names, names.empty() ? "" : ", ", o.name);
      throw py::value_error(absl::StrCat("unknown option '", name, "' (options: ", names, ")"));
    }
    options.*(option->member) = value;
  }
  absl::Status valid = ValidateOptions(options);
  if (!valid.ok()) throw py::value_error(std::string(valid.message()));
  return options;
}

// Positional arguments, each converted to its argument's type as the JIT
// converts a call's (dicts and lists need the type); TypeError names `what`.
std::vector<c10::IValue> Arguments(const py::sequence& values,
                                   const std::vector<c10::TypePtr>& types,
                                   const std::string& what) {
  if (values.size() > types.size()) {
    throw py::type_error(
        absl::StrCat(what, " has ", values.size(), " values for ", types.size(), " arguments"));
  }
  std::vector<c10::IValue> converted;
  for (size_t i = 0; i < values.size(); ++i) {
    try {
      converted.push_back(torch::jit::toIValue(values[i], types[i]));
    } catch (const std::exception& e) {
      throw py::type_error(absl::StrCat(what, "[", i, "]: ", e.what()));
    }
  }
  return converted;
}

// The types of the arguments of `module`'s forward (none without one).
std::vector<c10::TypePtr> ForwardArgumentTypes(const torch::jit::Module& module) {
  std::vector<c10::TypePtr> types;
  const std::string method = ForwardMethodName(module);
  if (module.find_method(method)) {
    const auto& arguments = module.get_method(method).function().getSchema().arguments();
    for (size_t i = 1; i < arguments.size(); ++i) types.push_back(arguments[i].type());
  }
  return types;
}

// The whole-model verdict of `sr verify` (verify/verify_model.h) on
// [(name, positional arguments)]: {"passed", "report" (sr verify's text),
// "json" (its --json)}.
py::dict Verify(const torch::jit::Module& module,
                const std::vector<std::pair<std::string, py::sequence>>& input_sets,
                const std::map<std::string, bool>& options, int rounds, bool frozen,
                const std::string& model_name) {
  if (input_sets.empty()) throw py::value_error("verify needs at least one input set");
  if (rounds < 1) throw py::value_error("rounds must be >= 1");
  verify::VerifyConfig config;
  config.options = OptionsFrom(options, std::nullopt);
  config.is_frozen = frozen;
  config.rounds = rounds;
  const std::vector<c10::TypePtr> types = ForwardArgumentTypes(module);
  for (const auto& [name, values] : input_sets) {
    config.input_sets.push_back(
        {name, Arguments(values, types, absl::StrCat("input set '", name, "'"))});
  }
  verify::VerifyReport report;
  {
    py::gil_scoped_release no_gil;
    report = verify::Verify(module, config);
  }
  py::dict verdict;
  verdict["passed"] = report.passed();
  verdict["report"] = verify::FormatVerifyReport(report, model_name);
  verdict["json"] = verify::VerifyReportJson(report, model_name);
  return verdict;
}

[[noreturn]] void RaiseRunError(const absl::Status& status, std::exception_ptr node_exception);

// {name: value} of every option of `options`.
std::map<std::string, bool> OptionValues(const Options& options) {
  std::map<std::string, bool> values;
  for (const BoolOption& o : BoolOptions()) values[o.name] = options.*(o.member);
  return values;
}

class PyModule {
 public:
  PyModule(StaticModule::Ptr module, size_t max_runtimes, double setup_ms)
      : module_(std::move(module)),
        pool_(std::make_shared<RuntimePool>(module_, max_runtimes)),
        setup_ms_(setup_ms) {}

  static PyModule FromScriptModule(const torch::jit::Module& module, bool frozen,
                                   const std::map<std::string, bool>& options,
                                   std::optional<int64_t> shape_plans_per_kernel,
                                   const py::list& sample_inputs, size_t max_runtimes) {
    const Options parsed = OptionsFrom(options, shape_plans_per_kernel);
    const std::vector<c10::IValue> samples =
        Arguments(sample_inputs, ForwardArgumentTypes(module), "sample_inputs");
    const auto start = Clock::now();
    absl::StatusOr<StaticModule::Ptr> prepared =
        StaticModule::FromModule(module, frozen, parsed, samples);
    return Created(std::move(prepared), max_runtimes, start);
  }

  static PyModule FromGraph(const std::shared_ptr<torch::jit::Graph>& graph,
                            const std::map<std::string, bool>& options,
                            std::optional<int64_t> shape_plans_per_kernel,
                            const py::list& sample_inputs, size_t max_runtimes) {
    const Options parsed = OptionsFrom(options, shape_plans_per_kernel);
    std::vector<c10::TypePtr> types;
    for (const torch::jit::Value* input : graph->inputs()) types.push_back(input->type());
    const std::vector<c10::IValue> samples = Arguments(sample_inputs, types, "sample_inputs");
    const auto start = Clock::now();
    absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromGraph(graph, parsed, samples);
    return Created(std::move(prepared), max_runtimes, start);
  }

  // Another pool of `max_runtimes` over the same prepared model.
  PyModule WithPool(size_t max_runtimes) const {
    return PyModule(module_, max_runtimes, setup_ms_);
  }

  py::object Call(const py::args& args, const py::kwargs& kwargs) {
    const std::vector<c10::IValue> stack = Bind(args, kwargs);
    absl::StatusOr<c10::IValue> result;
    std::exception_ptr node_exception;
    {
      py::gil_scoped_release no_gil;
      result = pool_->Run(stack, {}, &node_exception);
    }
    if (!result.ok()) RaiseRunError(result.status(), node_exception);
    return torch::jit::toPyObject(*std::move(result));
  }

  // A torch.futures.Future of the call, run on LibTorch's inter-op pool (as
  // PyTorch's runAsync); wait() gives the result or raises the failing
  // node's exception as it was thrown (its message unchanged).
  py::object RunAsync(const py::tuple& args, const py::dict& kwargs) {
    std::vector<c10::IValue> stack = Bind(args, kwargs);
    auto future = c10::make_intrusive<c10::ivalue::Future>(c10::AnyType::get());
    at::launch([pool = pool_, stack = std::move(stack), future] {
      try {
        future->markCompleted((*pool)(stack));
      } catch (...) {
        future->setError(std::current_exception());
      }
    });
    return torch::jit::toPyObject(c10::IValue(future));
  }

  // Times `main_runs` calls after `warmup_runs` (at least one) on one
  // runtime, then as many observed runs timing each node
  // (reports::ProfileRuns, what `sr profile` runs). PyTorch's
  // IndividualMetrics fields (milliseconds; per node and per node kind, per
  // run; total_time is the nodes' sum per run) and ours: ms_per_iter (the
  // mean unobserved run), kernel_per_node_type, memory.
  py::dict Benchmark(const py::tuple& args, const py::dict& kwargs, int warmup_runs,
                     int main_runs) {
    if (warmup_runs < 0 || main_runs < 1) {
      throw py::value_error("warmup_runs must be >= 0 and main_runs >= 1");
    }
    const std::vector<c10::IValue> stack = Bind(args, kwargs);
    absl::StatusOr<reports::ProfileReport> report;
    {
      py::gil_scoped_release no_gil;
      report = reports::ProfileRuns(module_, stack, std::max(0, warmup_runs - 1), main_runs,
                                    /*by_node=*/true);
    }
    if (!report.ok()) throw std::runtime_error(std::string(report.status().message()));
    const double runs = main_runs;
    py::dict out;
    out["setup_time"] = setup_ms_;
    out["first_iter_time"] = report->first_run_us / 1000;
    out["ms_per_iter"] = report->mean_run_us / 1000;
    out["total_time"] = report->kernel_us_per_run / 1000;
    out["memory_alloc_time"] = report->allocate_us / 1000;
    out["memory_dealloc_time"] = report->release_us / 1000;
    // Outputs are handed over, never deallocated by the run.
    out["output_dealloc_time"] = 0.0;
    py::list time_per_node;
    for (const reports::NodeProfile& node : report->nodes) {
      time_per_node.append(node.total_us / 1000 / runs);
    }
    out["time_per_node"] = time_per_node;
    // By node kind, as PyTorch's (fused groups together).
    std::map<std::string, reports::NodeKindProfile> by_kind;
    double node_total = 0;
    for (const reports::NodeKindProfile& entry : report->kinds) {
      reports::NodeKindProfile& kind = by_kind[entry.node_kind];
      kind.total_us += entry.total_us;
      kind.calls += entry.calls;
      kind.kernel_kind = entry.kernel_kind;
      node_total += entry.total_us;
    }
    py::dict time_per_node_type, percent_per_node_type, instances_per_node_type,
        kernel_per_node_type;
    py::set out_nodes;
    for (const auto& [kind, stats] : by_kind) {
      time_per_node_type[py::str(kind)] = stats.total_us / 1000 / runs;
      percent_per_node_type[py::str(kind)] = node_total > 0 ? 100 * stats.total_us / node_total : 0;
      instances_per_node_type[py::str(kind)] = stats.calls / static_cast<size_t>(main_runs);
      kernel_per_node_type[py::str(kind)] = stats.kernel_kind;
      if (stats.kernel_kind == NodeKindName(NodeKind::kOutVariant)) out_nodes.add(py::str(kind));
    }
    out["time_per_node_type"] = time_per_node_type;
    out["percent_per_node_type"] = percent_per_node_type;
    out["instances_per_node_type"] = instances_per_node_type;
    out["kernel_per_node_type"] = kernel_per_node_type;
    out["out_nodes"] = out_nodes;
    const KernelCounts& counts = module_->kernel_counts();
    out["out_nodes_count"] = counts.out_variant;
    out["total_nodes_count"] = counts.total();
    out["memory"] = MemoryDict(report->memory);
    return out;
  }

  // The memory of the runtimes that serve this module's calls, after one
  // more call on these arguments when given: the largest arena's runtime's
  // stats, how many runtimes were read and their arenas' total; and what
  // the module's kernel caches hold.
  py::dict MemoryStats(const py::args& args, const py::kwargs& kwargs) {
    if (!args.empty() || !kwargs.empty()) Call(args, kwargs);
    std::vector<static_runtime::MemoryStats> runtimes;
    {
      py::gil_scoped_release no_gil;
      runtimes = pool_->IdleRuntimesMemoryStats();
    }
    static_runtime::MemoryStats largest;
    size_t total_arena_bytes = 0;
    for (const static_runtime::MemoryStats& stats : runtimes) {
      total_arena_bytes += stats.intermediates.arena_bytes;
      if (stats.intermediates.arena_bytes >= largest.intermediates.arena_bytes) largest = stats;
    }
    py::dict out = MemoryDict(largest);
    out["runtimes"] = runtimes.size();
    out["total_arena_bytes"] = total_arena_bytes;
    // What the kernels, shared by every runtime, hold.
    const KernelCacheStats caches = module_->KernelCaches();
    out["prepared_weight_bytes"] = caches.prepared_weight_bytes;
    out["prepared_weights"] = caches.prepared_weights;
    out["shape_plans"] = caches.shape_plans;
    out["shape_plans_made"] = caches.shape_plans_made;
    out["shape_plans_evicted"] = caches.shape_plans_evicted;
    return out;
  }

  py::dict KernelCountsDict() const {
    const KernelCounts& counts = module_->kernel_counts();
    py::dict out;
    out["out_variant"] = counts.out_variant;
    out["native"] = counts.native;
    out["fallback"] = counts.fallback;
    return out;
  }

  std::string ExplainText() const { return reports::Explain(*module_); }

  // Writes the prepared model as a compiled package (runtime/package.h).
  void SavePackage(const std::string& path, const std::string& source) const {
    PackageSource package_source;
    package_source.path = source;
    const absl::Status saved = static_runtime::SavePackage(*module_, path, package_source);
    if (!saved.ok()) throw std::runtime_error(std::string(saved.message()));
  }

 private:
  static PyModule Created(absl::StatusOr<StaticModule::Ptr> prepared, size_t max_runtimes,
                          Clock::time_point start) {
    if (!prepared.ok()) {
      throw std::runtime_error(
          absl::StrCat("static_runtime cannot run the model: ", prepared.status().message()));
    }
    if (max_runtimes < 1) throw py::value_error("max_runtimes must be >= 1");
    return PyModule(*std::move(prepared), max_runtimes, Micros(Clock::now() - start) / 1000);
  }

  // The arguments bound to the model's schema, as the JIT binds a call;
  // TypeError when they do not fit.
  std::vector<c10::IValue> Bind(const py::tuple& args, const py::dict& kwargs) const {
    try {
      return torch::jit::createStackForSchema(
          module_->schema(), args, py::reinterpret_borrow<py::kwargs>(kwargs), c10::nullopt);
    } catch (const std::exception& e) {
      throw py::type_error(e.what());
    }
  }

  static py::dict MemoryDict(const static_runtime::MemoryStats& stats) {
    py::dict out;
    out["managed_tensors"] = stats.intermediates.managed_tensors;
    out["reused_tensors"] = stats.intermediates.reused_tensors;
    out["arena_bytes"] = stats.intermediates.arena_bytes;
    const std::string algorithm = stats.intermediates.algorithm;
    out["planning_algorithm"] = algorithm;
    out["planned_arena_bytes"] = algorithm == "storage_groups"
                                     ? stats.intermediates.storage_groups_bytes
                                     : stats.intermediates.greedy_by_size_bytes;
    out["lower_bound_bytes"] = stats.intermediates.lower_bound_bytes;
    out["replans"] = stats.intermediates.replans;
    out["unmanaged_values"] = stats.unmanaged_values;
    out["output_tensors"] = stats.output_tensors;
    out["output_buffer_bytes"] = stats.output_buffer_bytes;
    out["output_slab_tensors"] = stats.output_slab_tensors;
    out["output_slab_bytes"] = stats.output_slab_bytes;
    return out;
  }

  StaticModule::Ptr module_;
  std::shared_ptr<RuntimePool> pool_;
  double setup_ms_;
};

// static_runtime.ModelError: what a model's own `raise` gives, a
// torch.jit.Error (as the JIT raises) that is also a RuntimeError (as
// PyTorch's Static Runtime raises).
PyObject* model_error = nullptr;

// The Python exception for a status without a node's exception (and for a
// forked call's error, which carries its status code): LibTorch's errors are
// RuntimeErrors, as the JIT raises them.
PyObject* ExceptionTypeFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOutOfRange:
      return PyExc_IndexError;
    case absl::StatusCode::kResourceExhausted:
      return PyExc_MemoryError;
    case absl::StatusCode::kAborted:
      return model_error;
    case absl::StatusCode::kUnimplemented:
      return PyExc_NotImplementedError;
    default:
      return PyExc_RuntimeError;
  }
}

// Raises the failing node's exception as the JIT's Python binding would
// (c10::IndexError as IndexError, std::out_of_range as IndexError, ...),
// its message first and unchanged; after a newline, which node failed at
// which source line (for a forked call's error, the wait).
[[noreturn]] void RaiseRunError(const absl::Status& status, std::exception_ptr node_exception) {
  PyObject* type = ExceptionTypeFor(status.code());
  std::string message(status.message());
  if (node_exception != nullptr) {
    try {
      std::rethrow_exception(node_exception);
    } catch (const torch::jit::JITException& e) {
      type = model_error;  // "builtins.Exception: message", as the JIT's Python error ends
      const c10::optional<std::string> class_name = e.getPythonClassName();
      message = class_name ? absl::StrCat(*class_name, ": ", e.what()) : std::string(e.what());
    } catch (const c10::IndexError& e) {
      type = PyExc_IndexError;
      message = e.what_without_backtrace();
    } catch (const c10::ValueError& e) {
      type = PyExc_ValueError;
      message = e.what_without_backtrace();
    } catch (const c10::TypeError& e) {
      type = PyExc_TypeError;
      message = e.what_without_backtrace();
    } catch (const c10::NotImplementedError& e) {
      type = PyExc_NotImplementedError;
      message = e.what_without_backtrace();
    } catch (const c10::Error& e) {
      type = PyExc_RuntimeError;
      message = e.what_without_backtrace();
    } catch (const std::out_of_range& e) {
      type = PyExc_IndexError;
      message = e.what();
    } catch (const std::invalid_argument& e) {
      type = PyExc_ValueError;
      message = e.what();
    } catch (const std::bad_alloc& e) {
      type = PyExc_MemoryError;
      message = e.what();
    } catch (const std::exception& e) {
      message = e.what();
    }
    // "node 3 (aten::add) at file.py:12:8 `return a + b`" of the status's
    // "<that> failed: <the message>; inputs: ...".
    const absl::string_view context = status.message();
    absl::StrAppend(&message, "\n", context.substr(0, context.find(" failed: ")));
  }
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

}  // namespace python
}  // namespace static_runtime

namespace py = pybind11;
using static_runtime::python::PyModule;

PYBIND11_MODULE(_static_runtime, m) {
  py::module::import("torch");  // its type casters (Tensor, ScriptModule, Graph)
  m.doc() = "C++ half of static_runtime; use the static_runtime package.";
  py::class_<PyModule>(m, "_Module")
      .def_static("from_script_module", &PyModule::FromScriptModule)
      .def_static("from_graph", &PyModule::FromGraph)
      .def("with_pool", &PyModule::WithPool)
      .def("__call__", &PyModule::Call)
      .def("run_async", &PyModule::RunAsync)
      .def("benchmark", &PyModule::Benchmark)
      .def("memory_stats", &PyModule::MemoryStats)
      .def("kernel_counts", &PyModule::KernelCountsDict)
      .def("explain", &PyModule::ExplainText)
      .def("save_package", &PyModule::SavePackage);
  // ModelError(torch.jit.Error, RuntimeError).
  py::tuple bases =
      py::make_tuple(py::module::import("torch.jit").attr("Error"), py::handle(PyExc_RuntimeError));
  static_runtime::python::model_error =
      PyErr_NewExceptionWithDoc("static_runtime.ModelError",
                                "A model's own raise or assert failed (a torch.jit.Error, as the "
                                "JIT raises, and a RuntimeError, as PyTorch's Static Runtime "
                                "raises).",
                                bases.ptr(), nullptr);
  if (static_runtime::python::model_error == nullptr) throw py::error_already_set();
  m.attr("ModelError") = py::handle(static_runtime::python::model_error);
  m.def("option_descriptions", [] {
    std::map<std::string, std::string> descriptions;
    for (const static_runtime::BoolOption& o : static_runtime::BoolOptions())
      descriptions[o.name] = o.help;
    return descriptions;
  });
  // What this extension was built against and with.
  m.def("build_info", [] {
    py::dict info;
    info["libtorch_version"] =
        absl::StrCat(TORCH_VERSION_MAJOR, ".", TORCH_VERSION_MINOR, ".", TORCH_VERSION_PATCH);
    const dnnl_version_t* onednn = dnnl_version();
    info["onednn_version"] = absl::StrCat(onednn->major, ".", onednn->minor, ".", onednn->patch);
#if defined(__clang__)
    info["compiler"] = absl::StrCat("clang ", __clang_version__);
#else
    info["compiler"] = absl::StrCat("gcc ", __VERSION__);
#endif
    info["python"] = absl::StrCat(PY_MAJOR_VERSION, ".", PY_MINOR_VERSION);
    // The matrix kernels this process runs (runtime/reports/machine.h).
    const static_runtime::reports::MachineKernels kernels =
        static_runtime::reports::DescribeMachineKernels();
    info["openblas_core"] = kernels.openblas_core;
    info["best_openblas_core"] = kernels.best_openblas_core;
    info["onednn_isa"] = kernels.onednn_isa;
    return info;
  });
  // The standard option sets every differential check runs under
  // (verify/option_sets.h): [(name, {option: value})].
  m.def("standard_option_sets", [] {
    std::vector<std::pair<std::string, std::map<std::string, bool>>> sets;
    for (const static_runtime::golden::OptionSet& set : static_runtime::golden::OptionSets()) {
      sets.emplace_back(set.name, static_runtime::python::OptionValues(set.options));
    }
    return sets;
  });
  m.def("_verify", &static_runtime::python::Verify);
  m.def("option_defaults", [] { return static_runtime::python::OptionValues({}); });
  // Returns when what calls left to the background (weight layouts) is done.
  m.def("_wait_for_background_work", [] {
    py::gil_scoped_release no_gil;
    static_runtime::WaitForBackgroundWork();
  });
}
