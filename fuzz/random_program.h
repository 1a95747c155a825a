// Random well-typed TorchScript programs for the differential property
// "static runtime == JIT interpreter" (fuzz/random_graph_test.cc).
//
// A ProgramSpec is plain numbers: what RapidCheck generates and shrinks.
// BuildProgram interprets it against a table of ops with dtype and shape rules
// (elementwise and broadcasting, comparisons and where, dtype conversions,
// reductions, views and slices, lists from chunk/split/literals with cat,
// stack and indexing, in-place ops on values the program owns, matmul and
// linear with parameters, If blocks, loops, scalars from sizes and items,
// reads of strides and contiguity). Some rules emit the shapes that bugs in
// alias, lifetime and rewrite rules need: loops that swap their carried
// values or make one a view of the other, a value of a pointwise chain used
// inside it and after it with its inside use last in its use list.
// Each gene names an op and the numbers that pick its operands and arguments
// among the values of the right kind; a gene whose op finds no such operand is
// skipped, so every spec, and every spec RapidCheck shrinks it to, is a valid
// program. Sizes are symbolic in the batch size B, so one program runs at
// several batch sizes.
#ifndef STATIC_RUNTIME_FUZZ_RANDOM_PROGRAM_H_
#define STATIC_RUNTIME_FUZZ_RANDOM_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "load/load.h"

namespace static_runtime {
namespace fuzz {

struct Gene {
  uint32_t op = 0;  // index into the op table (modulo its size)
  uint32_t a = 0;   // operand and argument choices, each used modulo
  uint32_t b = 0;   // the number of candidates
  uint32_t c = 0;
};

struct ProgramSpec {
  std::vector<Gene> inputs;             // one tensor input each: dtype, rank, sizes
  std::vector<Gene> body;               // one statement each (or none when skipped)
  std::vector<uint32_t> extra_outputs;  // values returned besides the unused
  int64_t small_batch = 1;
  int64_t large_batch = 4;
};

// A tensor input: its dtype and its size per dimension, size = per_batch * B
// + fixed.
struct InputSpec {
  at::ScalarType dtype;
  std::vector<std::pair<int64_t, int64_t>> dims;  // {per_batch, fixed}
};

struct Program {
  std::string source;                   // TorchScript `def forward(self, ...)`, one comment per
                                        // statement with its dtype and symbolic shape
  std::vector<NamedTensor> parameters;  // `self.<name>` tensors
  std::vector<InputSpec> inputs;
  std::vector<std::string> ops;  // the op of each statement, in order

  // Inputs at batch size `batch`: normal floats, integers in [-3, 3], bools.
  std::vector<c10::IValue> MakeInputs(uint64_t seed, int64_t batch) const;
};

Program BuildProgram(const ProgramSpec& spec);

// Every op name BuildProgram can put into Program::ops.
const std::vector<std::string>& OpNames();

}  // namespace fuzz
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_FUZZ_RANDOM_PROGRAM_H_
