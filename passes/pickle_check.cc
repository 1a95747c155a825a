#include "passes/pickle_check.h"

#include <cstdint>
#include <optional>

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
      if (opcode == '.') return absl::OkStatus();  // STOP
      if (!Step(opcode)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "malformed pickle: opcode 0x%02x at offset %d is unknown or runs past the end "
            "(%d bytes) or names a memo entry that does not exist",
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

  // A little-endian unsigned integer of `width` bytes.
  std::optional<uint64_t> Read(int width) {
    if (static_cast<uint64_t>(width) > pickle_.size() - at_) return std::nullopt;
    uint64_t value = 0;
    for (int i = 0; i < width; ++i) {
      value |= static_cast<uint64_t>(static_cast<uint8_t>(pickle_[at_ + i])) << (8 * i);
    }
    at_ += width;
    return value;
  }

  // A payload preceded by its length in `width` bytes.
  bool SkipSized(int width) {
    const std::optional<uint64_t> size = Read(width);
    return size && Skip(*size);
  }

  bool SkipLine() {
    const size_t end = pickle_.find('\n', at_);
    if (end == absl::string_view::npos) return false;
    at_ = end + 1;
    return true;
  }

  // A memo entry stored at `index`: the next one, or one already stored.
  bool Put(std::optional<uint64_t> index) {
    if (!index || *index > memo_size_) return false;
    if (*index == memo_size_) ++memo_size_;
    return true;
  }

  bool Get(std::optional<uint64_t> index) { return index && *index < memo_size_; }

  bool Step(uint8_t opcode) {
    switch (opcode) {
      // No argument.
      case '(':
      case ')':
      case 't':
      case 0x85:
      case 0x86:
      case 0x87:
      case ']':
      case 'a':
      case 'e':
      case 'l':
      case '}':
      case 's':
      case 'u':
      case 'd':
      case 'R':
      case 'b':
      case 0x81:
      case 'Q':
      case 'N':
      case 0x88:
      case 0x89:
      case 0x93:
        return true;
      case 0x94:  // MEMOIZE
        ++memo_size_;
        return true;
      case 0x80:
      case 'K':  // PROTO, BININT1
        return Skip(1);
      case 'M':  // BININT2
        return Skip(2);
      case 'J':  // BININT
        return Skip(4);
      case 'G':
      case 0x95:  // BINFLOAT, FRAME
        return Skip(8);
      case 'q':  // BINPUT
        return Put(Read(1));
      case 'r':  // LONG_BINPUT
        return Put(Read(4));
      case 'h':  // BINGET
        return Get(Read(1));
      case 'j':  // LONG_BINGET
        return Get(Read(4));
      case 0x8a:
      case 0x8c:
      case 'U':
      case 'C':  // LONG1, SHORT_BINUNICODE/STRING/BYTES
        return SkipSized(1);
      case 0x8b:
      case 'X':
      case 'T':
      case 'B':  // LONG4, BINUNICODE, BINSTRING, BINBYTES
        return SkipSized(4);
      case 0x8d:
      case 0x8e:  // BINUNICODE8, BINBYTES8
        return SkipSized(8);
      case 'c':  // GLOBAL: module and name lines
        return SkipLine() && SkipLine();
      case 'P':
      case 'I':
      case 'L':
      case 'F':
      case 'S':
      case 'V':  // one line
        return SkipLine();
      default:
        return false;
    }
  }

  absl::string_view pickle_;
  size_t at_ = 0;
  uint64_t memo_size_ = 0;
};

}  // namespace

absl::Status CheckPickle(absl::string_view pickle) { return Walker(pickle).Walk(); }

}  // namespace static_runtime
