#include "load/pickle_check.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace static_runtime {
namespace {

class Walker {
 public:
  explicit Walker(absl::string_view pickle) : pickle_(pickle) {}

  absl::Status Walk() {
    while (at_ < pickle_.size()) {
      const size_t start = at_;
      const auto opcode = static_cast<uint8_t>(pickle_[at_++]);
      if (opcode == '.') {  // STOP: one result, no open mark
        if (depth_ == 1 && marks_.empty()) return absl::OkStatus();
        return absl::InvalidArgumentError(
            absl::StrFormat("malformed pickle: STOP at offset %d with %d values and %d marks left",
                            start, depth_, marks_.size()));
      }
      if (!Step(opcode)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "malformed pickle: opcode 0x%02x at offset %d is unknown, runs past the end "
            "(%d bytes), names a memo entry that does not exist or takes more values than "
            "the stack holds",
            opcode, start, pickle_.size()));
      }
    }
    return absl::InvalidArgumentError("malformed pickle: no STOP opcode");
  }

 private:
  // Skips `n` bytes; false if fewer are left.
  bool Skip(uint64_t n) {
    if (n > pickle_.size() - at_) return false;
    at_ += n;
    return true;
  }

  // A little-endian unsigned integer of `width` bytes into `value`; false
  // if fewer are left. (An out-parameter rather than std::optional: GCC 12
  // warns of a maybe-uninitialized optional here under -O1.)
  bool Read(int width, uint64_t& value) {
    if (static_cast<uint64_t>(width) > pickle_.size() - at_) return false;
    value = 0;
    for (int i = 0; i < width; ++i) {
      value |= static_cast<uint64_t>(static_cast<uint8_t>(pickle_[at_ + i])) << (8 * i);
    }
    at_ += width;
    return true;
  }

  // A payload preceded by its length in `width` bytes.
  bool SkipSized(int width) {
    uint64_t size = 0;
    return Read(width, size) && Skip(size);
  }

  bool SkipLine() {
    const size_t end = pickle_.find('\n', at_);
    if (end == absl::string_view::npos) return false;
    at_ = end + 1;
    return true;
  }

  // A memo entry stored at an index of `width` bytes: the next one, or one
  // already stored.
  bool Put(int width) {
    uint64_t index = 0;
    if (!Read(width, index) || index > memo_size_) return false;
    if (index == memo_size_) ++memo_size_;
    return true;
  }

  // A memo entry read at an index of `width` bytes: one already stored.
  bool Get(int width) {
    uint64_t index = 0;
    return Read(width, index) && index < memo_size_;
  }

  // The stack effect of an opcode that takes `pops` values and leaves
  // `pushes`; false if the stack (above the last mark) holds fewer.
  bool Effect(uint64_t pops, uint64_t pushes) {
    const uint64_t floor = marks_.empty() ? 0 : marks_.back();
    if (depth_ - floor < pops) return false;
    depth_ += pushes - pops;
    return true;
  }

  // Pops everything above the last mark and the mark; `below` values must
  // lie under the mark (the list or dict APPENDS and SETITEMS add to).
  bool PopToMark(uint64_t below, uint64_t pushes) {
    if (marks_.empty() || marks_.back() < below) return false;
    depth_ = marks_.back() + pushes;
    marks_.pop_back();
    return true;
  }

  bool Step(uint8_t opcode) {
    switch (opcode) {
      case 0x80:  // PROTO
        return Skip(1);
      case 0x95:  // FRAME
        return Skip(8);
      case '(':  // MARK
        marks_.push_back(depth_);
        return true;
      case ')':
      case ']':
      case '}':
      case 'N':
      case 0x88:
      case 0x89:  // empty containers, constants
        return Effect(0, 1);
      case 'K':  // BININT1
        return Skip(1) && Effect(0, 1);
      case 'M':  // BININT2
        return Skip(2) && Effect(0, 1);
      case 'J':  // BININT
        return Skip(4) && Effect(0, 1);
      case 'G':  // BINFLOAT
        return Skip(8) && Effect(0, 1);
      case 0x8a:
      case 0x8c:
      case 'U':
      case 'C':  // LONG1, SHORT_BINUNICODE/STRING/BYTES
        return SkipSized(1) && Effect(0, 1);
      case 0x8b:
      case 'X':
      case 'T':
      case 'B':  // LONG4, BINUNICODE, BINSTRING, BINBYTES
        return SkipSized(4) && Effect(0, 1);
      case 0x8d:
      case 0x8e:  // BINUNICODE8, BINBYTES8
        return SkipSized(8) && Effect(0, 1);
      case 'c':  // GLOBAL: module and name lines
        return SkipLine() && SkipLine() && Effect(0, 1);
      case 'P':
      case 'I':
      case 'L':
      case 'F':
      case 'S':
      case 'V':  // one line
        return SkipLine() && Effect(0, 1);
      case 'h':  // BINGET
        return Get(1) && Effect(0, 1);
      case 'j':  // LONG_BINGET
        return Get(4) && Effect(0, 1);
      case 'q':  // BINPUT
        return Put(1) && Effect(1, 1);
      case 'r':  // LONG_BINPUT
        return Put(4) && Effect(1, 1);
      case 0x94:  // MEMOIZE
        ++memo_size_;
        return Effect(1, 1);
      case 't':
      case 'l':
      case 'd':  // TUPLE, LIST, DICT
        return PopToMark(0, 1);
      case 'e':
      case 'u':  // APPENDS, SETITEMS
        return PopToMark(1, 0);
      case 0x85:
      case 'Q':  // TUPLE1, BINPERSID
        return Effect(1, 1);
      case 0x86:
      case 'a':
      case 'R':
      case 'b':
      case 0x81:
      case 0x93:
        // TUPLE2, APPEND, REDUCE, BUILD, NEWOBJ, STACK_GLOBAL
        return Effect(2, 1);
      case 0x87:
      case 's':  // TUPLE3, SETITEM
        return Effect(3, 1);
      default:
        return false;
    }
  }

  absl::string_view pickle_;
  size_t at_ = 0;
  uint64_t memo_size_ = 0;
  uint64_t depth_ = 0;           // values on the stack
  std::vector<uint64_t> marks_;  // the depth at each open mark
};

}  // namespace

absl::Status CheckPickle(absl::string_view pickle) { return Walker(pickle).Walk(); }

}  // namespace static_runtime
