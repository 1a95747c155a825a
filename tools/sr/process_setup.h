// What `sr` sets up in its own process before a command runs, from flags
// every command that loads a model takes: the OpenBLAS core (--blas-core;
// sr runs itself again with OPENBLAS_CORETYPE set, as OpenBLAS reads it
// once when LibTorch loads), shared libraries of custom operators
// (--op-libraries) and the quantized engine (--quantized-engine).
#ifndef STATIC_RUNTIME_TOOLS_SR_PROCESS_SETUP_H_
#define STATIC_RUNTIME_TOOLS_SR_PROCESS_SETUP_H_

#include <vector>

#include "tools/sr/args.h"

namespace static_runtime {
namespace sr {

// --blas-core, --op-libraries, --quantized-engine.
std::vector<FlagSpec> ProcessFlags();

// Applies the process flags of `args` (`argv` to run sr again). A
// comparison (`bench --against`) takes the best OpenBLAS core unless
// --blas-core or OPENBLAS_CORETYPE chose one. 0 to go on, or an exit code;
// on success with another core it does not return (execv).
int SetUpProcess(const Args& args, char** argv);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_PROCESS_SETUP_H_
