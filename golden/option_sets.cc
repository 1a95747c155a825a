#include "golden/option_sets.h"

namespace static_runtime {
namespace golden {

const std::vector<OptionSet>& OptionSets() {
  static const auto* const kOptionSets = [] {
    Options no_out_variants;
    no_out_variants.enable_out_variant = false;
    no_out_variants.optimize_memory = false;
    Options no_memory_planning;
    no_memory_planning.optimize_memory = false;
    Options managed_outputs;
    managed_outputs.manage_output_tensors = true;
    Options no_copy_variants;
    no_copy_variants.use_copy_variants = false;
    Options no_rewrites = no_copy_variants;
    no_rewrites.use_maybe_copy_variants = false;
    no_rewrites.use_variadic_ops = false;
    no_rewrites.fuse_list_unpack = false;
    no_rewrites.hoist_dict_lookups = false;
    no_rewrites.enable_fusion = false;
    no_rewrites.parallel_forks = false;
    Options no_prepacking;
    no_prepacking.prepack_weights = false;
    Options list_unpack_copies;
    list_unpack_copies.fuse_list_unpack = true;
    Options no_inference_mode;
    no_inference_mode.inference_mode = false;
    return new std::vector<OptionSet>{{"defaults", Options()},
                                      {"out_variants_off", no_out_variants},
                                      {"memory_planning_off", no_memory_planning},
                                      {"managed_output_tensors", managed_outputs},
                                      {"copy_variants_off", no_copy_variants},
                                      {"all_rewrites_off", no_rewrites},
                                      {"list_unpack_copies", list_unpack_copies},
                                      {"inference_mode_off", no_inference_mode},
                                      {"prepack_weights_off", no_prepacking}};
  }();
  return *kOptionSets;
}

}  // namespace golden
}  // namespace static_runtime
