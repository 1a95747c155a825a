// The record layout of a compiled package (runtime/package.h): the record
// names, the format's name, the limits a reader enforces, and the kernel
// listing both the writer (runtime/package_writer.cc) and the reader
// (runtime/package_reader.cc) compare. Internal to runtime/.
#ifndef STATIC_RUNTIME_RUNTIME_PACKAGE_FORMAT_H_
#define STATIC_RUNTIME_RUNTIME_PACKAGE_FORMAT_H_

#include <cstdint>
#include <string>

#include "runtime/plan.h"

namespace static_runtime {
namespace package_format {

inline constexpr char kFormatName[] = "static_runtime package";
inline constexpr char kMetadata[] = "metadata.json";
inline constexpr char kGraph[] = "graph.ir";
inline constexpr char kSchema[] = "schema.txt";
inline constexpr char kKernels[] = "kernels.txt";
inline constexpr char kMemoryPlan[] = "memory_plan.json";
inline constexpr char kValues[] = "values";  // values.pkl and values/<n>
inline constexpr char kPacks[] = "packed";   // packed.json and packed/<n>
// Managed tensor sizes beyond this are refused as malformed.
inline constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 48;

// One line per node, in plan order: position, kernel kind, operator.
std::string KernelLines(const BlockPlan& block);

}  // namespace package_format
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_PACKAGE_FORMAT_H_
