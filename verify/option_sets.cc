#include "verify/option_sets.h"

#include <initializer_list>
#include <utility>

#include "passes/pass_table.h"

namespace static_runtime {
namespace golden {
namespace {

// The default options with each of `changes` made.
Options DefaultsWith(std::initializer_list<std::pair<bool Options::*, bool>> changes) {
  Options options;
  for (const auto& [member, value] : changes) options.*member = value;
  return options;
}

// Every option that turns on one of our passes (the pass table's cleanup and
// rewrite stages) off, and forks run inline.
Options AllRewritesOff() {
  Options options = DefaultsWith({{&Options::parallel_forks, false}});
  for (const RewritePass& pass : RewritePasses()) {
    if (pass.stage != PassStage::kFinalize && pass.enabled_by != nullptr) {
      options.*pass.enabled_by = false;
    }
  }
  return options;
}

}  // namespace

const std::vector<OptionSet>& OptionSets() {
  static const auto* const kOptionSets = new std::vector<OptionSet>{
      {"defaults", Options()},
      {"out_variants_off",
       DefaultsWith({{&Options::enable_out_variant, false}, {&Options::optimize_memory, false}})},
      {"memory_planning_off", DefaultsWith({{&Options::optimize_memory, false}})},
      {"managed_output_tensors", DefaultsWith({{&Options::manage_output_tensors, true}})},
      {"output_allocations_apart", DefaultsWith({{&Options::group_output_allocations, false}})},
      {"copy_variants_off", DefaultsWith({{&Options::use_copy_variants, false}})},
      {"all_rewrites_off", AllRewritesOff()},
      {"list_unpack_copies", DefaultsWith({{&Options::fuse_list_unpack, true}})},
      {"inference_mode_off", DefaultsWith({{&Options::inference_mode, false}})},
      {"prepack_weights_off", DefaultsWith({{&Options::prepack_weights, false}})},
      {"poisoned_memory", DefaultsWith({{&Options::poison_recycled_memory, true}})}};
  return *kOptionSets;
}

}  // namespace golden
}  // namespace static_runtime
