// `sr plan --svg`: a picture of a runtime's memory plan. Time (top-level node
// index) runs across, arena offset down; one rectangle per managed tensor,
// labelled with the op that produces it and its size; a dashed line marks the
// lower bound (the most bytes alive at one node).
#ifndef STATIC_RUNTIME_TOOLS_SR_PLAN_SVG_H_
#define STATIC_RUNTIME_TOOLS_SR_PLAN_SVG_H_

#include <string>

#include "runtime/types.h"

namespace static_runtime {
namespace sr {

// `plan` is StaticRuntime::DescribeMemoryPlan() after a run.
std::string PlanSvg(const MemoryPlanDescription& plan);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_PLAN_SVG_H_
