// CheckPickle accepts what LibTorch's pickler writes (tensors, containers,
// strings, scalars, memoized repeats) and refuses every truncation, payloads
// longer than what is left, memo indices out of order and unknown opcodes.
#include "load/pickle_check.h"

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/serialization/pickler.h"

namespace static_runtime {
namespace {

using ::testing::HasSubstr;
using namespace std::string_literals;

std::string Pickle(const c10::IValue& value) {
  std::string out;
  torch::jit::Pickler pickler([&out](const char* data, size_t size) { out.append(data, size); },
                              nullptr, nullptr, nullptr);
  pickler.protocol();
  pickler.pushIValue(value);
  pickler.stop();
  return out;
}

c10::IValue Sample() {
  const at::Tensor weight = at::randn({3, 4});
  c10::Dict<std::string, at::Tensor> dict;
  dict.insert("w", weight);
  return c10::ivalue::Tuple::create(
      {weight, weight, c10::IValue("a string"), c10::IValue(2.5), c10::IValue(int64_t{1} << 40),
       c10::IValue(std::vector<int64_t>{1, 2, 3}), c10::IValue(dict), c10::IValue()});
}

TEST(PickleCheckTest, AcceptsWhatThePicklerWrites) {
  EXPECT_TRUE(CheckPickle(Pickle(Sample())).ok());
  EXPECT_TRUE(CheckPickle(Pickle(c10::IValue(std::string(70000, 'x')))).ok());
}

TEST(PickleCheckTest, RefusesEveryTruncation) {
  const std::string pickle = Pickle(Sample());
  for (size_t size = 0; size < pickle.size(); ++size) {
    EXPECT_FALSE(CheckPickle(absl::string_view(pickle).substr(0, size)).ok()) << size;
  }
}

TEST(PickleCheckTest, RefusesHugeLengthsAndBadMemoIndices) {
  // PROTO 2, BINUNICODE of 0xffffffff bytes, STOP.
  EXPECT_THAT(std::string(CheckPickle(std::string("\x80\x02X\xff\xff\xff\xff.", 9)).message()),
              HasSubstr("opcode 0x58 at offset 2"));
  // NONE, LONG_BINPUT 4000000000 (no entry before it), STOP.
  EXPECT_FALSE(CheckPickle(std::string("\x80\x02Nr\x00\x28\x6b\xee.", 9)).ok());
  // NONE, BINGET 0 with nothing memoized.
  EXPECT_FALSE(CheckPickle(std::string("\x80\x02Nh\x00.", 6)).ok());
  // An unknown opcode.
  EXPECT_FALSE(CheckPickle(std::string("\x80\x02\xff.", 4)).ok());
  // No STOP.
  EXPECT_FALSE(CheckPickle(std::string("\x80\x02N", 3)).ok());
  // BINPUT, TUPLE1, APPEND, SETITEM and REDUCE with too few values; TUPLE
  // and APPENDS without a mark; STOP with two values.
  for (const std::string& body : {"q\x00"s, "\x85"s, "Na"s, "NNs"s, "NR"s, "NNt"s, "]Ne"s, "NN"s}) {
    EXPECT_FALSE(CheckPickle(absl::StrCat("\x80\x02", body, ".")).ok()) << body;
  }
  // The same opcodes with what they need.
  for (const std::string& body : {"Nq\x00"s, "N\x85"s, "]Na"s, "}NNs"s, "NNR"s, "(NNt"s, "](Ne"s}) {
    EXPECT_TRUE(CheckPickle(absl::StrCat("\x80\x02", body, ".")).ok()) << body;
  }
}

}  // namespace
}  // namespace static_runtime
