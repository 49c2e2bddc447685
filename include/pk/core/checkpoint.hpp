#pragma once
// Checkpoints: what a run needs to continue bit for bit after it stopped, in one versioned
// binary format. A file is a text header, then the payload: binary sections one after
// another, as the header lists them. The header, one "key value" line each:
//
//   pk-checkpoint 1              the format and its version
//   program pk-lbm
//   space openmp                 the execution space the state lives on
//   ranks 2                      processes of the run
//   part rank 1                  whole (a one-process run), manifest or rank R (see below)
//   step 1200                    the run's progress (steps, CG iterations)
//   option tau 0.8               the options that define the run: a restart must give the same
//   value time 0x1.8p+0          state kept as text (floats in hexadecimal: exact)
//   section lattice 3891200      a payload section and its size in bytes
//   payload-crc32 1a2b3c4d       zlib's CRC-32 of the payload
//   header-crc32 5e6f7a8b        of the header's bytes before this line
//
// Files are written through pk::AtomicFile: the previous checkpoint under the same name stays
// whole until the new one is complete on the disk. A run of several ranks writes one file per
// rank, "<path>.<slot>.rank<R>", and then, once every rank's is complete, rank 0 writes the
// manifest "<path>" (part manifest, the values of rank 0's file and slot a or b): each checkpoint takes the slot the
// manifest does not name, so the one it names is never touched.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pk {

class AtomicFile;

inline constexpr int checkpoint_format_version = 1;

struct CheckpointSection {
  std::string name;
  std::uint64_t bytes = 0;
};

struct CheckpointHeader {
  int version = checkpoint_format_version;
  std::string program, space;
  int ranks = 1;
  std::string part = "whole";  // "whole", "manifest" or "rank R"
  std::int64_t step = 0;
  std::vector<std::pair<std::string, std::string>> options, values;  // in order
  std::vector<CheckpointSection> sections;
  std::uint32_t payload_crc32 = 0;
  std::size_t header_bytes = 0;  // the header's length in the file (parse_checkpoint_header)

  std::uint64_t payload_bytes() const;
  // A value the header holds; pk::Error naming it when it is missing or malformed.
  const std::string& value(const std::string& name) const;
  double real_value(const std::string& name) const;
  std::int64_t integer_value(const std::string& name) const;
  void add_value(const std::string& name, double value);  // exact: a hexadecimal float
  void add_value(const std::string& name, std::int64_t value);
};

// zlib's CRC-32 of `bytes` bytes, continuing `crc` (a file's content in a run's options).
std::uint32_t crc32(const void* data, std::size_t bytes, std::uint32_t crc = 0);

// The shortest text that reads back as `value` exactly (a run's options).
std::string exact_number(double value);

// The header at the start of `size` bytes: parsed, its own checksum checked, every field
// validated (names, numbers, sizes). Throws pk::Error with one line saying what is wrong
// (not a checkpoint, another format version, truncated, corrupt, a malformed line); never
// reads outside the buffer. Suited to fuzzing.
CheckpointHeader parse_checkpoint_header(const char* data, std::size_t size);

// The header's text, checksums included, as parse_checkpoint_header reads it back.
std::string format_checkpoint_header(const CheckpointHeader& header);

// Throws pk::Error when `found` (read from `path`) is not a checkpoint of the run `expected`
// describes: another program, space, rank count or part, or an option that differs (named,
// with both values).
void require_same_run(const CheckpointHeader& found, const CheckpointHeader& expected, const std::string& path);

// Writes a checkpoint: the header's sections say what the payload holds; write() it in order,
// in pieces of any size, then commit(). pk::Error on any failure; the file appears only on
// commit().
class CheckpointWriter {
 public:
  CheckpointWriter(const std::string& path, CheckpointHeader header);
  ~CheckpointWriter();
  void write(const void* data, std::size_t bytes);
  void commit();
  std::uint64_t bytes() const { return header_.header_bytes + header_.payload_bytes(); }

 private:
  CheckpointHeader header_;
  std::unique_ptr<AtomicFile> file_;
  std::uint64_t written_ = 0;
  std::uint32_t crc_;
};

// Reads a checkpoint: the header on construction (pk::Error when the file is missing, not a
// checkpoint, of another version, corrupt, or shorter or longer than its sections), then the
// payload in order; finish() checks that all of it was read and its checksum.
class CheckpointReader {
 public:
  explicit CheckpointReader(const std::string& path);
  ~CheckpointReader();
  const CheckpointHeader& header() const { return header_; }
  const std::string& path() const { return path_; }
  void read(void* data, std::size_t bytes);
  void finish();

 private:
  std::string path_;
  CheckpointHeader header_;
  int fd_ = -1;
  std::uint64_t read_ = 0;
  std::uint32_t crc_;
};

// The file of rank `rank` in checkpoint slot `slot` ("a" or "b") of a run of several ranks.
std::string checkpoint_rank_path(const std::string& path, const std::string& slot, int rank);

// The checkpoints of a run under one path: one file for one process, or a file per rank
// and the manifest. `agree(body)` runs body on every rank and throws the same pk::Error on
// every rank when it failed on one (pk::mpi::collectively); one process passes {}.
class CheckpointFiles {
 public:
  using Agree = std::function<void(const std::function<void()>&)>;
  CheckpointFiles(std::string path, int ranks, int rank, Agree agree = {});

  // Collective. Writes this rank's checkpoint: `header` (its part is filled in here), then
  // payload(writer). Returns false, writing nothing, when the checkpoint under this path
  // is already of this step (the one a restart read, or the last one written).
  bool write(CheckpointHeader header, const std::function<void(CheckpointWriter&)>& payload);

  // Collective. The header of the checkpoint at `restart` (the manifest of several ranks'),
  // checked as read() checks it, its payload not read: what a solver needs to know before
  // it is built.
  CheckpointHeader peek(const std::string& restart, CheckpointHeader expected) const;

  // Collective. Reads this rank's part of the checkpoint at `restart`: pk::Error (agreed)
  // unless it is of the run `expected` describes (require_same_run); then payload(reader)
  // and reader.finish(). Returns its header.
  CheckpointHeader read(const std::string& restart, CheckpointHeader expected,
                        const std::function<void(CheckpointReader&)>& payload);

  const std::string& path() const { return path_; }
  int written() const { return written_; }                  // checkpoints written so far
  std::uint64_t last_bytes() const { return last_bytes_; }  // this rank's, in the last one
  double last_seconds() const { return last_seconds_; }     // its wall time, every rank done

 private:
  void agree(const std::function<void()>& body) const;
  std::string path_;
  int ranks_, rank_;
  Agree agree_;
  std::string slot_;  // the slot the manifest names ("": none yet)
  std::int64_t last_step_ = -1;
  int written_ = 0;
  std::uint64_t last_bytes_ = 0;
  double last_seconds_ = 0;
};

}  // namespace pk
