// libFuzzer target: the checkpoint format (pk/core/checkpoint.hpp) as --restart reads it.
// The first byte picks how: bit 0 mends the header's checksum and bit 1 the payload's before
// reading (random bytes almost never pass a CRC-32, and the fields behind it must be fuzzed
// too); bit 2 reads through CheckpointReader from a file, payload and all, instead of parsing
// the header from memory. A header that parses must be written back to the same text and
// must describe its own run (require_same_run); any difference is a crash.
#include <pk/core/checkpoint.hpp>
#include <pk/core/error.hpp>

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The 8 hexadecimal digits after the first "\n<key> " in text, replaced by `crc`.
void mend(std::string& text, const char* key, std::uint32_t crc) {
  const std::size_t at = text.find("\n" + std::string(key) + " ");
  if (at == std::string::npos) return;
  const std::size_t digits = at + 2 + std::strlen(key);
  if (digits + 8 > text.size()) return;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", crc);
  text.replace(digits, 8, hex);
}

void mend_checksums(std::string& file, bool header, bool payload) {
  const std::size_t crc_line = file.find("\nheader-crc32 ");
  if (crc_line == std::string::npos) return;
  const std::size_t end = file.find('\n', crc_line + 1);
  if (payload && end != std::string::npos) {
    const std::string rest = file.substr(end + 1);
    mend(file, "payload-crc32", pk::crc32(rest.data(), rest.size()));
  }
  if (header) mend(file, "header-crc32", pk::crc32(file.data(), crc_line + 1));
}

void require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz-checkpoint: %s\n", what);
  std::abort();
}

void check_round_trip(const pk::CheckpointHeader& h, const std::string& file) {
  const std::string text = pk::format_checkpoint_header(h);
  require(text.size() == h.header_bytes && file.compare(0, text.size(), text) == 0,
          "a parsed header is written back differently");
  const pk::CheckpointHeader again = pk::parse_checkpoint_header(text.data(), text.size());
  require(again.header_bytes == h.header_bytes && again.payload_bytes() == h.payload_bytes(),
          "a written header parses differently");
  pk::require_same_run(h, h, "fuzz.ckpt");
  for (const auto& [name, value] : h.values) {
    try {
      h.real_value(name);
      h.integer_value(name);
    } catch (const pk::Error&) {  // a value that is not a number, refused as it would be
    }
  }
}

// The file CheckpointReader reads, one per process, removed when the process ends.
struct ScratchFile {
  std::string path = "/tmp/fuzz-checkpoint." + std::to_string(::getpid());
  ~ScratchFile() { std::remove(path.c_str()); }
};

void read_file(const std::string& file) {
  static const ScratchFile scratch;
  const std::string& path = scratch.path;
  std::FILE* out = std::fopen(path.c_str(), "wb");
  require(out != nullptr, "cannot write the temporary file");
  require(std::fwrite(file.data(), 1, file.size(), out) == file.size() && std::fclose(out) == 0,
          "cannot write the temporary file");
  pk::CheckpointReader reader(path);
  std::vector<char> section;
  for (const pk::CheckpointSection& s : reader.header().sections) {
    section.resize(s.bytes);
    reader.read(section.data(), section.size());
  }
  reader.finish();
  check_round_trip(reader.header(), file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int how = data[0];
  std::string file(reinterpret_cast<const char*>(data + 1), size - 1);
  mend_checksums(file, how & 1, how & 2);
  try {
    if (how & 4) {
      read_file(file);
    } else {
      check_round_trip(pk::parse_checkpoint_header(file.data(), file.size()), file);
    }
  } catch (const pk::Error&) {  // a refusal: the program prints it and exits with 2
  }
  return 0;
}
