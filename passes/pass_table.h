// The table of our own graph passes, one row per pass: its name (also the
// directory of its golden cases, golden/passes/<name>/), when preparation runs
// it, the option that turns it on and the function. Preparation
// (passes/prepare.cc) runs the passes from this table, the golden IR tests
// (verify/pass_table.cc) and the property tests find them here, and
// pass_table_test checks the README's pass table against it: adding a pass is
// adding a row.
#ifndef STATIC_RUNTIME_PASSES_PASS_TABLE_H_
#define STATIC_RUNTIME_PASSES_PASS_TABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "options/options.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

enum class PassStage {
  kCleanup,   // after the JIT's own passes (Inline, ConstantPropagation, ...)
  kRewrite,   // the runtime rewrites
  kFinalize,  // after the rewrites: shapes the graph for the runtime
};

struct RewritePass {
  const char* name;
  PassStage stage;
  bool Options::*enabled_by;  // nullptr: always runs
  // Rewrites the graph in place; returns true if it changed.
  bool (*run)(const std::shared_ptr<torch::jit::Graph>&);
};

// Every pass in the order preparation runs them.
const std::vector<RewritePass>& RewritePasses();

// The C++ name of the option that turns `pass` on, or "always".
std::string EnablingOption(const RewritePass& pass);

// Runs the passes of `stage` that `options` turn on, in table order.
void RunPassStage(PassStage stage, const std::shared_ptr<torch::jit::Graph>& graph,
                  const Options& options);

// How many times this process ran RunPassStage for `stage` (preparation runs
// each stage once per graph): tests check that loading a compiled package
// ran no passes.
int64_t PassStageRuns(PassStage stage);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_PASS_TABLE_H_
