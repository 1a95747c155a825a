#include "load/pickle_check.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "errors/status_macros.h"

namespace static_runtime {
namespace {

// Where a MARK goes in for an APPEND or SETITEM at `opcode_at` whose first
// operand (the item; the key) starts at `operand_at`.
struct SingularOpcode {
  size_t operand_at, opcode_at;
};

class Walker {
 public:
  // With `singular`, records each APPEND and SETITEM there.
  explicit Walker(absl::string_view pickle, std::vector<SingularOpcode>* singular = nullptr)
      : pickle_(pickle), singular_(singular) {}

  absl::Status Walk() {
    while (at_ < pickle_.size()) {
      opcode_at_ = at_;
      const auto opcode = static_cast<uint8_t>(pickle_[at_++]);
      if (opcode == '.') {  // STOP: one result, no open mark
        if (starts_.size() == 1 && marks_.empty()) return absl::OkStatus();
        return absl::InvalidArgumentError(
            absl::StrFormat("malformed pickle: STOP at offset %d with %d values and %d marks left",
                            opcode_at_, starts_.size(), marks_.size()));
      }
      if (!Step(opcode)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "malformed pickle: opcode 0x%02x at offset %d is unknown, runs past the end "
            "(%d bytes), names a memo entry that does not exist or takes more values than "
            "the stack holds",
            opcode, opcode_at_, pickle_.size()));
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

  // The values on the stack above the last mark.
  uint64_t AboveMark() const { return starts_.size() - (marks_.empty() ? 0 : marks_.back().depth); }

  // The stack effect of an opcode that takes `pops` values and leaves
  // `pushes` (0 or 1); false if the stack (above the last mark) holds fewer.
  // The value left starts where the first value taken did (or at the opcode).
  bool Effect(uint64_t pops, uint64_t pushes) {
    if (AboveMark() < pops) return false;
    const size_t start = pops == 0 ? opcode_at_ : starts_[starts_.size() - pops];
    starts_.resize(starts_.size() - pops);
    if (pushes != 0) starts_.push_back(start);
    return true;
  }

  // Pops everything above the last mark and the mark; `below` values must
  // lie under the mark (the list or dict APPENDS and SETITEMS add to). The
  // value left, if any, starts at the mark.
  bool PopToMark(uint64_t below, uint64_t pushes) {
    if (marks_.empty() || marks_.back().depth < below) return false;
    starts_.resize(marks_.back().depth);
    if (pushes != 0) starts_.push_back(marks_.back().at);
    marks_.pop_back();
    return true;
  }

  // An APPEND (one item) or SETITEM (a key and a value) taking `pops` values.
  bool Singular(uint64_t pops) {
    if (AboveMark() < pops + 1) return false;
    if (singular_ != nullptr) {
      singular_->push_back({starts_[starts_.size() - pops], opcode_at_});
    }
    return Effect(pops + 1, 1);
  }

  bool Step(uint8_t opcode) {
    switch (opcode) {
      case 0x80:  // PROTO
        return Skip(1);
      case 0x95:  // FRAME
        return Skip(8);
      case '(':  // MARK
        marks_.push_back({starts_.size(), opcode_at_});
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
      case 'a':  // APPEND
        return Singular(1);
      case 's':  // SETITEM
        return Singular(2);
      case 0x86:
      case 'R':
      case 'b':
      case 0x81:
      case 0x93:
        // TUPLE2, REDUCE, BUILD, NEWOBJ, STACK_GLOBAL
        return Effect(2, 1);
      case 0x87:  // TUPLE3
        return Effect(3, 1);
      default:
        return false;
    }
  }

  struct Mark {
    uint64_t depth;  // values on the stack below it
    size_t at;       // its offset
  };

  absl::string_view pickle_;
  std::vector<SingularOpcode>* const singular_;
  size_t at_ = 0;
  size_t opcode_at_ = 0;  // the offset of the opcode being walked
  uint64_t memo_size_ = 0;
  std::vector<size_t> starts_;  // the offset each value on the stack starts at
  std::vector<Mark> marks_;     // open marks
};

}  // namespace

absl::Status CheckPickle(absl::string_view pickle) { return Walker(pickle).Walk(); }

std::function<size_t(char*, size_t)> PickleReader(absl::string_view pickle) {
  return [pickle, position = size_t{0}](char* out, size_t size) mutable {
    size = std::min(size, pickle.size() - position);
    std::memcpy(out, pickle.data() + position, size);
    position += size;
    return size;
  };
}

absl::StatusOr<std::string> WithPluralOpcodes(absl::string_view pickle) {
  std::vector<SingularOpcode> singular;
  RETURN_IF_ERROR(Walker(pickle, &singular).Walk());
  // Each edit inserts a MARK at its operand and turns its opcode plural;
  // operands nest, so the insertions are made in offset order.
  std::vector<std::pair<size_t, char>> edits;  // (offset, what goes there)
  for (const SingularOpcode& op : singular) {
    edits.emplace_back(op.operand_at, '(');
    edits.emplace_back(op.opcode_at, pickle[op.opcode_at] == 'a' ? 'e' : 'u');
  }
  std::stable_sort(edits.begin(), edits.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  out.reserve(pickle.size() + singular.size());
  size_t copied = 0;
  for (const auto& [at, byte] : edits) {
    out.append(pickle.data() + copied, at - copied);
    copied = at;
    if (byte == '(') {
      out.push_back('(');
    } else {  // the opcode itself, replaced
      out.push_back(byte);
      copied = at + 1;
    }
  }
  out.append(pickle.data() + copied, pickle.size() - copied);
  return out;
}

}  // namespace static_runtime
