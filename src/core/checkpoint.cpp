#include <pk/core/atomic_file.hpp>
#include <pk/core/checkpoint.hpp>
#include <pk/core/details/descriptor.hpp>
#include <pk/core/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>

namespace pk {

namespace {

constexpr const char* magic = "pk-checkpoint";
// A header names a few dozen options and values; anything much larger is not one of ours.
constexpr std::size_t max_header_bytes = 1 << 20;
constexpr std::size_t max_sections = 1024;

std::uint32_t crc32_of(std::uint32_t crc, const void* data, std::size_t bytes) {
  // crc32_z takes any length; feed it in pieces all the same (z_size_t may be 32 bits).
  const auto* next = static_cast<const Bytef*>(data);
  while (bytes > 0) {
    const std::size_t piece = std::min<std::size_t>(bytes, std::size_t{1} << 30);
    crc = static_cast<std::uint32_t>(::crc32_z(crc, next, static_cast<z_size_t>(piece)));
    next += piece;
    bytes -= piece;
  }
  return crc;
}

std::string hex32(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "%08" PRIx32, value);
  return text;
}

// Names: lower-case letters, digits and ".-_"; values: printable, no line breaks.
bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_')) return false;
  return true;
}
bool valid_value(const std::string& value) {
  for (const char c : value)
    if (static_cast<unsigned char>(c) < 32 || c == 127) return false;
  return true;
}

// Decimal digits from `from` to the end of `text`, as std::to_string writes them: no sign,
// no leading zero. A header is read only in the form it is written, so that what a restart
// checks is what the run wrote.
bool canonical_digits(const std::string& text, std::size_t from) {
  if (from >= text.size() || (text[from] == '0' && text.size() - from > 1)) return false;
  for (std::size_t j = from; j < text.size(); ++j)
    if (text[j] < '0' || text[j] > '9') return false;
  return true;
}

// A whole decimal number in [lo, hi], all of `text`.
bool parse_integer(const std::string& text, std::int64_t lo, std::int64_t hi, std::int64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  const std::size_t digits = text[0] == '-' ? 1 : 0;
  if (!canonical_digits(text, digits) || text == "-0") return false;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || value < lo || value > hi) return false;
  out = value;
  return true;
}
bool parse_unsigned(const std::string& text, std::uint64_t& out) {
  if (text.size() > 20 || !canonical_digits(text, 0)) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  out = value;
  return true;
}
bool parse_hex32(const std::string& text, std::uint32_t& out) {
  if (text.size() != 8) return false;
  std::uint32_t value = 0;
  for (const char c : text) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return false;
    value = value << 4 | static_cast<std::uint32_t>(digit);
  }
  out = value;
  return true;
}

}  // namespace

std::uint32_t crc32(const void* data, std::size_t bytes, std::uint32_t crc) { return crc32_of(crc, data, bytes); }

std::string exact_number(double value) {
  char text[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value || std::isnan(value)) break;
  }
  return text;
}

std::uint64_t CheckpointHeader::payload_bytes() const {
  std::uint64_t total = 0;
  for (const CheckpointSection& s : sections) total += s.bytes;
  return total;
}

const std::string& CheckpointHeader::value(const std::string& name) const {
  for (const auto& [key, text] : values)
    if (key == name) return text;
  throw Error("checkpoint: no value '" + name + "' in the header");
}

double CheckpointHeader::real_value(const std::string& name) const {
  const std::string& text = value(name);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  require(!text.empty() && *end == '\0', "checkpoint: value '", name, "' is not a number: '", text, "'");
  return v;
}

std::int64_t CheckpointHeader::integer_value(const std::string& name) const {
  std::int64_t v = 0;
  require(parse_integer(value(name), std::numeric_limits<std::int64_t>::min() + 1,
                        std::numeric_limits<std::int64_t>::max(), v),
          "checkpoint: value '", name, "' is not a whole number: '", value(name), "'");
  return v;
}

void CheckpointHeader::add_value(const std::string& name, double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  values.emplace_back(name, text);
}

void CheckpointHeader::add_value(const std::string& name, std::int64_t value) {
  values.emplace_back(name, std::to_string(value));
}

std::string format_checkpoint_header(const CheckpointHeader& h) {
  std::string text = std::string(magic) + " " + std::to_string(h.version) + "\n";
  const auto line = [&](const std::string& key, const std::string& value) {
    require(valid_value(value), "checkpoint: the ", key, " '", value, "' holds a control character");
    text += key + " " + value + "\n";
  };
  line("program", h.program);
  line("space", h.space);
  line("ranks", std::to_string(h.ranks));
  line("part", h.part);
  line("step", std::to_string(h.step));
  for (const auto& [name, value] : h.options) {
    require(valid_name(name), "checkpoint: bad option name '", name, "'");
    line("option", name + " " + value);
  }
  for (const auto& [name, value] : h.values) {
    require(valid_name(name), "checkpoint: bad value name '", name, "'");
    line("value", name + " " + value);
  }
  for (const CheckpointSection& s : h.sections) {
    require(valid_name(s.name), "checkpoint: bad section name '", s.name, "'");
    line("section", s.name + " " + std::to_string(s.bytes));
  }
  line("payload-crc32", hex32(h.payload_crc32));
  text += "header-crc32 " + hex32(crc32_of(0, text.data(), text.size())) + "\n";
  return text;
}

CheckpointHeader parse_checkpoint_header(const char* data, std::size_t size) {
  CheckpointHeader h;
  std::size_t at = 0;
  int number = 0;
  // The next line, without its '\n'; pk::Error when the buffer ends first.
  const auto next_line = [&]() {
    const std::size_t limit = std::min(size, max_header_bytes);
    const void* found = at < limit ? std::memchr(data + at, '\n', limit - at) : nullptr;
    if (!found) {
      require(size < max_header_bytes, "not a checkpoint (no end of its header in the first MiB)");
      throw Error("the checkpoint is truncated (it ends inside its header)");
    }
    const std::size_t end = static_cast<const char*>(found) - data;
    std::string text(data + at, end - at);
    at = end + 1;
    ++number;
    return text;
  };
  const auto bad = [&](const std::string& what) {
    return Error("checkpoint header line " + std::to_string(number) + ": " + what);
  };
  // "key rest": the key and the rest of the line.
  const auto split = [&](const std::string& text, std::string& key, std::string& rest) {
    const std::size_t space = text.find(' ');
    if (space == std::string::npos) throw bad("expected 'key value'");
    key = text.substr(0, space);
    rest = text.substr(space + 1);
    if (!valid_value(rest)) throw bad("a control character");
  };

  const std::string start = std::string(magic) + " ";
  require(size >= start.size() && std::memcmp(data, start.data(), start.size()) == 0,
          "not a checkpoint (it does not start with '", magic, "')");
  std::string key, rest;
  split(next_line(), key, rest);
  std::int64_t number_value = 0;
  if (key != magic || !parse_integer(rest, 1, 1 << 20, number_value)) throw bad("expected 'pk-checkpoint VERSION'");
  h.version = static_cast<int>(number_value);
  require(h.version == checkpoint_format_version, "the checkpoint has format version ", h.version,
          "; this program reads version ", checkpoint_format_version);
  const auto expect = [&](const char* wanted) {
    split(next_line(), key, rest);
    if (key != wanted) throw bad(std::string("expected '") + wanted + "', found '" + key + "'");
    return rest;
  };
  h.program = expect("program");
  h.space = expect("space");
  if (!parse_integer(expect("ranks"), 1, 1 << 24, number_value)) throw bad("ranks must be a whole number >= 1");
  h.ranks = static_cast<int>(number_value);
  h.part = expect("part");
  if (h.part != "whole" && h.part != "manifest") {
    if (h.part.rfind("rank ", 0) != 0 || !parse_integer(h.part.substr(5), 0, h.ranks - 1, number_value))
      throw bad("part must be 'whole', 'manifest' or 'rank R' with R below ranks");
  }
  if (!parse_integer(expect("step"), 0, std::numeric_limits<std::int64_t>::max(), number_value))
    throw bad("step must be a whole number >= 0");
  h.step = number_value;
  // Options, then values, then sections, as format_checkpoint_header writes them.
  enum LineKind { option_line, value_line, section_line, unknown_line };
  const char* const kinds[] = {"option", "value", "section"};
  LineKind kind = option_line;
  for (;;) {
    split(next_line(), key, rest);
    if (key == "payload-crc32") {
      if (!parse_hex32(rest, h.payload_crc32)) throw bad("payload-crc32 must be 8 hexadecimal digits");
      break;
    }
    const auto this_kind = static_cast<LineKind>(std::find(kinds, kinds + unknown_line, key) - kinds);
    if (this_kind == unknown_line) throw bad("unknown key '" + key + "'");
    if (this_kind < kind) throw bad("'" + key + "' after '" + kinds[kind] + "' lines (out of order)");
    kind = this_kind;
    std::string name, value;
    split(rest, name, value);
    if (!valid_name(name)) throw bad("bad name '" + name + "'");
    if (kind == option_line) {
      h.options.emplace_back(name, value);
    } else if (kind == value_line) {
      h.values.emplace_back(name, value);
    } else {
      std::uint64_t bytes = 0;
      if (!parse_unsigned(value, bytes)) throw bad("section size must be a whole number of bytes");
      if (h.sections.size() >= max_sections) throw bad("too many sections");
      if (bytes > std::numeric_limits<std::uint64_t>::max() - h.payload_bytes()) throw bad("sections too large");
      h.sections.push_back({name, bytes});
    }
  }
  const std::size_t checked = at;
  split(next_line(), key, rest);
  std::uint32_t header_crc = 0;
  if (key != "header-crc32" || !parse_hex32(rest, header_crc)) throw bad("expected 'header-crc32' and 8 hex digits");
  require(header_crc == crc32_of(0, data, checked), "the checkpoint's header is corrupt (its checksum differs)");
  h.header_bytes = at;
  return h;
}

void require_same_run(const CheckpointHeader& found, const CheckpointHeader& expected, const std::string& path) {
  const std::string in = "--restart " + path + ": ";
  require(found.program == expected.program, in, "a checkpoint of ", found.program, ", not of ", expected.program);
  require(found.space == expected.space, in, "a checkpoint of a run on ", found.space, "; this run is on ",
          expected.space, " (restart on the same space)");
  require(found.ranks == expected.ranks, in, "a checkpoint of a run on ", found.ranks,
          found.ranks == 1 ? " rank" : " ranks", "; this run has ", expected.ranks, " (restart on as many ranks)");
  require(found.part == expected.part, in, "holds part '", found.part, "', expected '", expected.part, "'");
  const auto find = [](const CheckpointHeader& h, const std::string& name) -> const std::string* {
    for (const auto& [key, value] : h.options)
      if (key == name) return &value;
    return nullptr;
  };
  for (const auto& [name, value] : expected.options) {
    const std::string* had = find(found, name);
    require(had != nullptr, in, "the checkpoint does not record --", name, " (another program version?)");
    require(*had == value, in, "the checkpoint's run has --", name, " ", *had, ", this command line --", name, " ",
            value, ": a restart must define the same run");
  }
  for (const auto& [name, value] : found.options)
    require(find(expected, name) != nullptr, in, "the checkpoint records --", name,
            ", which this program does not know (another program version?)");
}

CheckpointWriter::CheckpointWriter(const std::string& path, CheckpointHeader header)
    : header_(std::move(header)), file_(std::make_unique<AtomicFile>(path)), crc_(crc32_of(0, nullptr, 0)) {
  // The checksums are fixed-width: the header written now with zeros keeps its length when
  // commit() writes it again with them.
  const std::string text = format_checkpoint_header(header_);
  header_.header_bytes = text.size();
  file_->write(text.data(), text.size());
}

CheckpointWriter::~CheckpointWriter() = default;

void CheckpointWriter::write(const void* data, std::size_t bytes) {
  require(written_ + bytes <= header_.payload_bytes(), "checkpoint '", file_->path(),
          "': more payload than its sections hold");
  crc_ = crc32_of(crc_, data, bytes);
  file_->write(data, bytes);
  written_ += bytes;
}

void CheckpointWriter::commit() {
  require(written_ == header_.payload_bytes(), "checkpoint '", file_->path(), "': ", written_,
          " bytes of payload, its ", "sections hold ", header_.payload_bytes());
  header_.payload_crc32 = crc_;
  const std::string text = format_checkpoint_header(header_);
  require(text.size() == header_.header_bytes, "checkpoint '", file_->path(), "': the header changed its length");
  file_->write_at(0, text.data(), text.size());
  file_->commit();
}

CheckpointReader::CheckpointReader(const std::string& path) : path_(path), crc_(crc32_of(0, nullptr, 0)) {
  const std::string in = "--restart " + path + ": ";
  // Closed here if this constructor throws (no destructor runs then), else handed to fd_.
  Details::Descriptor opened{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  require(opened.fd >= 0, in, "cannot be opened: ", std::strerror(errno));
  struct stat status {};
  require(::fstat(opened.fd, &status) == 0 && S_ISREG(status.st_mode), in, "not a regular file");
  std::vector<char> start(std::min<std::uint64_t>(static_cast<std::uint64_t>(status.st_size), max_header_bytes));
  std::size_t got = 0;
  while (got < start.size()) {
    const ::ssize_t n = ::read(opened.fd, start.data() + got, start.size() - got);
    if (n < 0 && errno == EINTR) continue;
    require(n > 0, in, "cannot be read: ", std::strerror(n < 0 ? errno : EIO));
    got += static_cast<std::size_t>(n);
  }
  try {
    header_ = parse_checkpoint_header(start.data(), start.size());
  } catch (const Error& e) {
    throw Error(in + e.what());
  }
  const std::uint64_t expected = header_.header_bytes + header_.payload_bytes();
  const auto size = static_cast<std::uint64_t>(status.st_size);
  require(size >= expected, in, "the checkpoint is truncated (", size, " bytes, its header lists ", expected, ")");
  require(size == expected, in, "the checkpoint has ", size - expected, " bytes after its payload (corrupt)");
  require(::lseek(opened.fd, static_cast<::off_t>(header_.header_bytes), SEEK_SET) >= 0, in, "cannot be read");
  fd_ = std::exchange(opened.fd, -1);
}

CheckpointReader::~CheckpointReader() {
  if (fd_ >= 0) ::close(fd_);
}

void CheckpointReader::read(void* data, std::size_t bytes) {
  require(read_ + bytes <= header_.payload_bytes(), "--restart ", path_, ": the program read past the payload");
  char* next = static_cast<char*>(data);
  std::size_t left = bytes;
  while (left > 0) {
    const ::ssize_t n = ::read(fd_, next, left);
    if (n < 0 && errno == EINTR) continue;
    require(n > 0, "--restart ", path_, ": cannot be read: ", n < 0 ? std::strerror(errno) : "it ended early");
    next += n;
    left -= static_cast<std::size_t>(n);
  }
  crc_ = crc32_of(crc_, data, bytes);
  read_ += bytes;
}

void CheckpointReader::finish() {
  require(read_ == header_.payload_bytes(), "--restart ", path_, ": ", header_.payload_bytes() - read_,
          " bytes of payload were not read (another program version?)");
  require(crc_ == header_.payload_crc32, "--restart ", path_, ": the checkpoint is corrupt (its payload checksum is ",
          hex32(crc_), ", its header says ", hex32(header_.payload_crc32), ")");
}

std::string checkpoint_rank_path(const std::string& path, const std::string& slot, int rank) {
  return path + "." + slot + ".rank" + std::to_string(rank);
}

CheckpointFiles::CheckpointFiles(std::string path, int ranks, int rank, Agree agree)
    : path_(std::move(path)), ranks_(ranks), rank_(rank), agree_(std::move(agree)) {}

void CheckpointFiles::agree(const std::function<void()>& body) const {
  if (agree_)
    agree_(body);
  else
    body();
}

bool CheckpointFiles::write(CheckpointHeader header, const std::function<void(CheckpointWriter&)>& payload) {
  if (header.step == last_step_) return false;
  const auto start = std::chrono::steady_clock::now();
  const std::string folder = std::filesystem::path(path_).parent_path().string();
  agree([&] {
    if (!folder.empty()) make_directories(folder);
  });
  header.ranks = ranks_;
  if (ranks_ == 1) {
    header.part = "whole";
    agree([&] {
      CheckpointWriter writer(path_, header);
      payload(writer);
      writer.commit();
      last_bytes_ = writer.bytes();
    });
  } else {
    if (slot_.empty()) {  // a manifest already there (an earlier run's): keep the files it names
      std::string found;
      try {
        found = CheckpointReader(path_).header().value("slot");
      } catch (const Error&) {  // none, or not a manifest: no files to keep
      }
      slot_ = found;
    }
    const std::string slot = slot_ == "a" ? "b" : "a";  // never the slot the manifest names
    CheckpointHeader manifest = header;
    header.part = "rank " + std::to_string(rank_);
    agree([&] {
      CheckpointWriter writer(checkpoint_rank_path(path_, slot, rank_), header);
      payload(writer);
      writer.commit();
      last_bytes_ = writer.bytes();
    });
    // Every rank's file is complete: the manifest may name them.
    manifest.part = "manifest";
    manifest.values.emplace_back("slot", slot);
    manifest.sections.clear();
    agree([&] {
      if (rank_ != 0) return;
      CheckpointWriter writer(path_, manifest);
      writer.commit();
    });
    slot_ = slot;
  }
  last_step_ = header.step;
  ++written_;
  last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return true;
}

CheckpointHeader CheckpointFiles::peek(const std::string& restart, CheckpointHeader expected) const {
  expected.ranks = ranks_;
  expected.part = ranks_ > 1 ? "manifest" : "whole";
  CheckpointHeader found;
  agree([&] {
    const CheckpointReader reader(restart);
    require_same_run(reader.header(), expected, restart);
    found = reader.header();
  });
  return found;
}

CheckpointHeader CheckpointFiles::read(const std::string& restart, CheckpointHeader expected,
                                       const std::function<void(CheckpointReader&)>& payload) {
  expected.ranks = ranks_;
  CheckpointHeader found;
  std::string slot;
  agree([&] {
    std::string piece = restart;
    if (ranks_ > 1) {
      const CheckpointReader manifest(restart);
      expected.part = "manifest";
      require_same_run(manifest.header(), expected, restart);
      slot = manifest.header().value("slot");
      require(slot == "a" || slot == "b", "--restart ", restart, ": the manifest names slot '", slot, "', not a or b");
      piece = checkpoint_rank_path(restart, slot, rank_);
      expected.part = "rank " + std::to_string(rank_);
      expected.step = manifest.header().step;
    } else {
      expected.part = "whole";
    }
    CheckpointReader reader(piece);
    require_same_run(reader.header(), expected, piece);
    require(ranks_ == 1 || reader.header().step == expected.step, "--restart ", piece, ": of step ",
            reader.header().step, ", the manifest says ", expected.step, " (files of different checkpoints)");
    payload(reader);
    reader.finish();
    found = reader.header();
  });
  std::error_code ec;
  if (std::filesystem::weakly_canonical(restart, ec) == std::filesystem::weakly_canonical(path_, ec)) {
    // Checkpoints go on under the same path: the next takes the other slot.
    slot_ = slot;
    last_step_ = found.step;
  }
  return found;
}

}  // namespace pk
