#include "load/archive_check.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "zlib.h"

namespace static_runtime {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50;
constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kSmallMax = 0xffffffff;

// Little-endian reads that fail (nullopt) past the end of the bytes.
class Reader {
 public:
  explicit Reader(absl::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  std::optional<T> Read(uint64_t offset) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) return std::nullopt;
    T value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      value |= static_cast<T>(static_cast<uint8_t>(bytes_[offset + i])) << (8 * i);
    }
    return value;
  }
  std::optional<absl::string_view> Slice(uint64_t offset, uint64_t size) const {
    if (offset > bytes_.size() || bytes_.size() - offset < size) return std::nullopt;
    return bytes_.substr(offset, size);
  }
  uint64_t size() const { return bytes_.size(); }

 private:
  absl::string_view bytes_;
};

struct Entry {
  std::string name;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0;
  uint64_t uncompressed = 0;
  uint64_t local_header = 0;
};

absl::Status Damaged(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("damaged archive: ", what));
}

// CRC-32 of the entry's data, inflating deflated entries.
std::optional<uint32_t> DataCrc(absl::string_view data, const Entry& entry) {
  if (entry.method == 0) {
    if (data.size() != entry.uncompressed) return std::nullopt;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (uint64_t done = 0; done < data.size();) {
      const uInt chunk = static_cast<uInt>(std::min<uint64_t>(data.size() - done, 1u << 30));
      crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data() + done), chunk);
      done += chunk;
    }
    return static_cast<uint32_t>(crc);
  }
  if (entry.method != 8) return std::nullopt;
  z_stream stream;
  std::memset(&stream, 0, sizeof(stream));
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return std::nullopt;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  std::vector<Bytef> buffer(1 << 16);
  uLong crc = crc32(0L, Z_NULL, 0);
  uint64_t produced = 0;
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = buffer.data();
    stream.avail_out = static_cast<uInt>(buffer.size());
    result = inflate(&stream, Z_NO_FLUSH);
    const uint64_t got = buffer.size() - stream.avail_out;
    crc = crc32(crc, buffer.data(), static_cast<uInt>(got));
    produced += got;
    if (produced > entry.uncompressed) break;
  }
  inflateEnd(&stream);
  if (result != Z_STREAM_END || produced != entry.uncompressed) return std::nullopt;
  return static_cast<uint32_t>(crc);
}

// Replaces 0xffffffff fields by their 64-bit values from the zip64 extra field.
bool ApplyZip64(absl::string_view extra, Entry& entry) {
  const Reader reader(extra);
  for (uint64_t at = 0; at + 4 <= extra.size();) {
    const uint16_t id = *reader.Read<uint16_t>(at);
    const uint16_t size = *reader.Read<uint16_t>(at + 2);
    if (id == 0x0001) {
      uint64_t field = at + 4;
      for (uint64_t* value : {&entry.uncompressed, &entry.compressed, &entry.local_header}) {
        if (*value != kSmallMax) continue;
        std::optional<uint64_t> wide = reader.Read<uint64_t>(field);
        if (!wide || field + 8 > at + 4 + size) return false;
        *value = *wide;
        field += 8;
      }
      return true;
    }
    at += 4 + size;
  }
  return entry.uncompressed != kSmallMax && entry.compressed != kSmallMax &&
         entry.local_header != kSmallMax;
}

}  // namespace

absl::Status CheckArchive(absl::string_view bytes) { return IndexArchive(bytes).status(); }

absl::StatusOr<std::vector<ArchiveRecord>> IndexArchive(absl::string_view bytes) {
  std::vector<ArchiveRecord> records;
  const Reader reader(bytes);
  // The end-of-directory record is in the last 64 KiB + 22 bytes.
  std::optional<uint64_t> end;
  for (uint64_t back = 22; back <= std::min<uint64_t>(reader.size(), 65535 + 22); ++back) {
    if (reader.Read<uint32_t>(reader.size() - back) == kEndOfDirectory) {
      end = reader.size() - back;
      break;
    }
  }
  if (!end) return Damaged("no zip directory (not a TorchScript archive, or truncated)");
  uint64_t count = *reader.Read<uint16_t>(*end + 10);
  uint64_t directory = *reader.Read<uint32_t>(*end + 16);
  if (*end >= 20 && reader.Read<uint32_t>(*end - 20) == kZip64Locator) {
    std::optional<uint64_t> zip64_end = reader.Read<uint64_t>(*end - 20 + 8);
    if (!zip64_end || reader.Read<uint32_t>(*zip64_end) != kZip64EndOfDirectory) {
      return Damaged("bad zip64 directory record");
    }
    std::optional<uint64_t> wide_count = reader.Read<uint64_t>(*zip64_end + 32);
    std::optional<uint64_t> wide_directory = reader.Read<uint64_t>(*zip64_end + 48);
    if (!wide_count || !wide_directory) return Damaged("truncated zip64 directory record");
    count = *wide_count;
    directory = *wide_directory;
  }
  if (count == 0) return Damaged("the zip directory lists no entries");
  uint64_t at = directory;
  for (uint64_t i = 0; i < count; ++i) {
    if (reader.Read<uint32_t>(at) != kDirectoryEntry) {
      return Damaged(absl::StrCat("zip directory entry ", i, " is malformed"));
    }
    Entry entry;
    const std::optional<uint16_t> name_size = reader.Read<uint16_t>(at + 28);
    const std::optional<uint16_t> extra_size = reader.Read<uint16_t>(at + 30);
    const std::optional<uint16_t> comment_size = reader.Read<uint16_t>(at + 32);
    const std::optional<absl::string_view> name =
        name_size ? reader.Slice(at + 46, *name_size) : std::nullopt;
    const std::optional<absl::string_view> extra =
        name && extra_size ? reader.Slice(at + 46 + *name_size, *extra_size) : std::nullopt;
    if (!extra || !comment_size)
      return Damaged(absl::StrCat("zip directory entry ", i, " is truncated"));
    entry.name = std::string(*name);
    entry.method = *reader.Read<uint16_t>(at + 10);
    entry.crc = *reader.Read<uint32_t>(at + 16);
    entry.compressed = *reader.Read<uint32_t>(at + 20);
    entry.uncompressed = *reader.Read<uint32_t>(at + 24);
    entry.local_header = *reader.Read<uint32_t>(at + 42);
    if (!ApplyZip64(*extra, entry)) {
      return Damaged(absl::StrCat("entry '", entry.name, "' has a bad zip64 field"));
    }
    at += 46 + *name_size + *extra_size + *comment_size;

    const uint64_t local = entry.local_header;
    const std::optional<uint16_t> local_name = reader.Read<uint16_t>(local + 26);
    const std::optional<uint16_t> local_extra = reader.Read<uint16_t>(local + 28);
    if (reader.Read<uint32_t>(local) != kLocalHeader || !local_name || !local_extra) {
      return Damaged(absl::StrCat("entry '", entry.name, "' has no valid local header"));
    }
    const std::optional<absl::string_view> data =
        reader.Slice(local + 30 + *local_name + *local_extra, entry.compressed);
    if (!data) return Damaged(absl::StrCat("entry '", entry.name, "' is truncated"));
    if (DataCrc(*data, entry) != entry.crc) {
      return Damaged(absl::StrCat("entry '", entry.name, "' does not match its checksum"));
    }
    const bool stored = entry.method == 0;
    records.push_back({entry.name, stored, stored ? *data : absl::string_view()});
  }
  return records;
}

}  // namespace static_runtime
