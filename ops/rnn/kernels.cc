#include "ops/rnn/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterPackPaddedSequenceKernels(KernelRegistry& registry);  // pack_padded_sequence.cc
namespace ops {

void RegisterLstmKernels(KernelRegistry& registry);      // lstm.cc
void RegisterRnnCellsKernels(KernelRegistry& registry);  // rnn_cells.cc
}  // namespace ops

void RegisterRnnKernels(KernelRegistry& registry) {
  ops::RegisterLstmKernels(registry);
  RegisterPackPaddedSequenceKernels(registry);
  ops::RegisterRnnCellsKernels(registry);
}

}  // namespace static_runtime
