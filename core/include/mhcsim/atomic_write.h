#pragma once
// Every output mhcsim writes (files and report directories) is written under a temporary name
// beside the target (.NAME.tmp.PID), flushed to disk (fsync) and renamed into place, so a
// crash, a kill or a full disk leaves the old output or the new one, never half of one. The
// next write to NAME removes what a killed run left (temporaries whose process is gone).
//
// Errors name the path the caller gave and the OS reason: InputError (exit 2) when the path
// cannot be used (empty, a directory, a device, no permission, an existing output without
// --force, a directory mhcsim did not write); std::runtime_error (exit 1) when writing fails
// (disk full, I/O error).
//
// Fault injection for tests: with MHCSIM_FAULT_AFTER_TEMP_WRITE=NAME in the environment, the
// process kills itself (SIGKILL) when the temporary of an output whose file name is NAME is
// complete and flushed, just before it is renamed into place.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace mhcsim {

// What a written file holds, for manifests (a sweep's JSON records its CSV's).
struct WrittenFile {
  uint64_t bytes = 0;
  uint64_t fnv1a64 = 0;  // FNV-1a 64-bit hash of the bytes
};

// FNV-1a 64-bit, the hash WrittenFile records: extends `h` (kFnv1a64Offset for no bytes yet)
// by `bytes`, for a manifest written while the file it describes is still being written.
inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325;
uint64_t fnv1a64_update(uint64_t h, std::string_view bytes);

using WriteFn = std::function<void(std::ostream&)>;

// Every JSON file mhcsim writes (profiles, traces, sweep and search results) carries
// "written_by": "mhcsim VERB VERSION" in its first bytes, so that --force replaces only those.
std::string written_by(std::string_view verb);  // "mhcsim VERB VERSION"
// A JSON object's text with the written_by key first: `object` is a dumped object ("{...}").
std::string with_written_by(std::string_view object, std::string_view verb);
// Whether the file at `path` is one `mhcsim VERB` wrote: its first 512 bytes (gunzipped for a
// gzip file) hold the written_by key with an "mhcsim VERB " value. Per verb, so that a trace
// written with --force never replaces a calibration profile.
bool written_by_mhcsim(const std::filesystem::path& path, std::string_view verb);
using OwnedFileFn = std::function<bool(const std::filesystem::path&)>;

// `option` names the output as its caller wrote it: a CLI flag ("-o") or a Python keyword
// ("output"); the messages name the replace switch to match (--force, force=True).
// Throws InputError(option, ...) unless `path` can be written as a file: not empty, not a
// directory ("out/"), not a device or FIFO, and not existing unless `replace`; and when
// replacing, a file `owner` wrote, as `owned` tells.
void require_output_file(const std::filesystem::path& path, bool replace, const char* option, const OwnedFileFn& owned,
                         std::string_view owner);
// The same for an output of `mhcsim VERB`: replacing needs written_by_mhcsim(path, verb).
void require_output_file(const std::filesystem::path& path, bool replace, const char* option, std::string_view verb);

// The temporaries of `target` that killed runs left (.NAME.tmp.PID whose process is gone). One
// killed between OutputBatch::commit's renames left a whole manifest whose files are in place.
std::vector<std::filesystem::path> leftover_temporaries(const std::filesystem::path& target);

// Files that belong together (a sweep's CSV and JSON): add() writes each to its temporary now
// (flushed to disk), commit() renames them in the order added. Make the last one a manifest
// that records the others (bytes, hash): a kill between two renames then leaves a manifest
// that disagrees with its files, never one that vouches for half of them. Temporaries not
// committed are removed when the batch is destroyed.
class OutputBatch {
 public:
  OutputBatch() = default;
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  ~OutputBatch();

  // Creates the target's folder when missing. `write` may throw: nothing is renamed then.
  WrittenFile add(const std::filesystem::path& path, const WriteFn& write);
  void commit();

 private:
  struct Pending {
    std::filesystem::path target, temp;
  };
  std::vector<Pending> pending_;
};

// One file: a batch of one.
WrittenFile write_file_atomically(const std::filesystem::path& path, const WriteFn& write);
WrittenFile write_file_atomically(const std::filesystem::path& path, std::string_view contents);
// The same, gzip-compressed when `path` ends in .gz (Chrome traces: Perfetto opens both).
void write_file_atomically_gzip_by_name(const std::filesystem::path& path, const WriteFn& write);

// The file every output directory mhcsim writes holds, so that --force replaces only those: its
// first line says who wrote it, each line after it names an entry mhcsim put there.
inline constexpr const char* kOutputMarker = ".mhcsim-output";
// Says whether an existing directory without the marker's listing is mhcsim's all the same (a
// report from a version that wrote no marker, or one without the listing): only then, besides
// empty directories, is it replaced.
using OwnedFn = std::function<bool(const std::filesystem::path&)>;

// Throws InputError(option, ...) unless `dir` can be written as an output directory: not
// empty, not an existing non-directory, not existing unless `replace`, and when replacing,
// a directory mhcsim wrote and nobody added to since (every entry in the marker's listing), an
// empty one, or one `owned` says is mhcsim's. First puts back an old output that a run killed
// during a two-step replace left aside, and removes its leftovers.
void require_output_directory(const std::filesystem::path& dir, bool replace, const char* option = "-o",
                              const OwnedFn& owned = {});

// Checks `dir` as above, fills a fresh temporary directory beside it with `fill`, adds the
// marker and puts it in place. An existing `dir` is swapped with the new one in one step
// (renameat2 RENAME_EXCHANGE); where the file system cannot, the old one is renamed to
// .NAME.old.PID first and restored by the next run if this one dies before the new one is in
// place. The old one is judged again once moved aside (a file put in it while the new one was
// written), and put back where it fails. On any error the temporary is removed and `dir` is
// left as it was.
void write_directory_atomically(const std::filesystem::path& dir, bool replace,
                                const std::function<void(const std::filesystem::path&)>& fill,
                                const OwnedFn& owned = {}, const char* option = "-o");

}  // namespace mhcsim
