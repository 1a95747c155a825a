// CheckPickle accepts what LibTorch's pickler writes (tensors, containers,
// strings, scalars, memoized repeats) and refuses every truncation, payloads
// longer than what is left, memo indices out of order and unknown opcodes.
#include "load/pickle_check.h"

#include <cstdint>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/serialization/pickle.h"
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
  EXPECT_THAT(std::string(CheckPickle(std::string("\x80\x02X\xff\xff\xff\xff.", 8)).message()),
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

// Memo indices at the boundary: with `count` entries stored, a get of
// count-1 reads the last one, a get of count or count+1 reads nothing; a put
// at count-1 replaces, at count adds the next entry, at count+1 leaves a
// hole. For the one-byte (BINGET, BINPUT) and four-byte (LONG_BINGET,
// LONG_BINPUT) forms.
TEST(PickleCheckTest, MemoIndicesAtTheBoundary) {
  const auto index = [](char opcode, int width, uint32_t value) {
    std::string encoded(1, opcode);
    for (int i = 0; i < width; ++i) encoded.push_back(static_cast<char>(value >> (8 * i)));
    return encoded;
  };
  struct Form {
    char get, put;
    int width;
  };
  for (const Form& form : {Form{'h', 'q', 1}, Form{'j', 'r', 4}}) {
    const char get = form.get, put = form.put;
    const int width = form.width;
    // A list (entry 0), a mark, None (entry 1), the get, APPENDS: count 2.
    const auto with_get = [&](uint32_t i) {
      return absl::StrCat("\x80\x02]", index(put, width, 0), "(N", index(put, width, 1),
                          index(get, width, i), "e.");
    };
    EXPECT_TRUE(CheckPickle(with_get(1)).ok()) << get << " count-1";
    EXPECT_FALSE(CheckPickle(with_get(2)).ok()) << get << " count";
    EXPECT_FALSE(CheckPickle(with_get(3)).ok()) << get << " count+1";
    // None stored at entry 0 (count 1), then stored again at the index.
    const auto with_put = [&](uint32_t i) {
      return absl::StrCat("\x80\x02N", index(put, width, 0), index(put, width, i), ".");
    };
    EXPECT_TRUE(CheckPickle(with_put(0)).ok()) << put << " count-1";
    EXPECT_TRUE(CheckPickle(with_put(1)).ok()) << put << " count";
    EXPECT_FALSE(CheckPickle(with_put(2)).ok()) << put << " count+1";
  }
}

// What LibTorch 1.13's unpickler makes of a pickle.
c10::IValue Unpickle(const std::string& pickle) {
  return torch::jit::unpickle(pickle.data(), pickle.size());
}

// Python's pickler (protocol 2) writes a one-item list with APPEND and a
// one-entry dict with SETITEM; the rewrite uses APPENDS and SETITEMS of one.
TEST(PickleCheckTest, SingularOpcodesBecomePlural) {
  struct Case {
    std::string python, plural;
  };
  const std::vector<Case> cases = {
      // [1]
      {"\x80\x02]q\x00K\x01"
       "a."s,
       "\x80\x02]q\x00(K\x01"
       "e."s},
      // {'a': None}
      {"\x80\x02}q\x00X\x01\x00\x00\x00"
       "aq\x01Ns."s,
       "\x80\x02}q\x00(X\x01\x00\x00\x00"
       "aq\x01Nu."s},
      // [[1]]: the outer item starts before the inner one
      {"\x80\x02]q\x00]q\x01K\x01"
       "aa."s,
       "\x80\x02]q\x00(]q\x01(K\x01"
       "ee."s},
      // ({'k': [2]},): a SETITEM whose value holds an APPEND, in a tuple
      {"\x80\x02}q\x00X\x01\x00\x00\x00kq\x01]q\x02K\x02"
       "as\x85q\x03."s,
       "\x80\x02}q\x00(X\x01\x00\x00\x00kq\x01]q\x02(K\x02"
       "eu\x85q\x03."s},
  };
  for (const Case& c : cases) {
    const absl::StatusOr<std::string> plural = WithPluralOpcodes(c.python);
    ASSERT_TRUE(plural.ok()) << plural.status();
    EXPECT_EQ(*plural, c.plural);
    EXPECT_THROW(Unpickle(c.python), c10::Error);  // what the rewrite is for
  }
  EXPECT_EQ(Unpickle(cases[0].plural).toList().get(0).toInt(), 1);
  EXPECT_TRUE(Unpickle(cases[1].plural).toGenericDict().at("a").isNone());
  EXPECT_EQ(Unpickle(cases[2].plural).toList().get(0).toList().get(0).toInt(), 1);
  const c10::IValue tuple = Unpickle(cases[3].plural);
  EXPECT_EQ(tuple.toTupleRef().elements()[0].toGenericDict().at("k").toList().get(0).toInt(), 2);
  // Without singular opcodes the pickle is unchanged; a malformed one is
  // refused as CheckPickle refuses it.
  const std::string sample = Pickle(Sample());
  EXPECT_EQ(*WithPluralOpcodes(sample), sample);
  EXPECT_FALSE(WithPluralOpcodes("\x80\x02Na."s).ok());
  EXPECT_FALSE(WithPluralOpcodes("\x80\x02]q\x00K\x01a"s).ok());
}

}  // namespace
}  // namespace static_runtime
