// core/atomic_write.h: outputs land whole or not at all, errors name the user's path, what a
// killed run left is cleaned up, and --force replaces only directories mhcsim wrote.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"

using namespace mhcsim;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("mhcsim_test_atomic_" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  size_t entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(path)) ++n;
    return n;
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// No process has this id (above any pid_max), so its leftovers are stale.
constexpr const char* kGonePid = "99999999";

}  // namespace

TEST_CASE("a written file reports its size and FNV-1a hash, as a manifest records them") {
  TempDir tmp;
  const WrittenFile w = write_file_atomically(tmp.path / "a.txt", "a");
  CHECK(w.bytes == 1);
  CHECK(w.fnv1a64 == 0xaf63dc4c8601ec8cULL);  // FNV-1a 64 of "a", the reference test vector
  const WrittenFile empty = write_file_atomically(tmp.path / "e.txt", "");
  CHECK(empty.bytes == 0);
  CHECK(empty.fnv1a64 == 0xcbf29ce484222325ULL);
  const std::string big(200'000, 'x');  // more than the stream buffer: written in pieces
  CHECK(write_file_atomically(tmp.path / "big.txt", big).bytes == big.size());
  CHECK(read(tmp.path / "big.txt") == big);
}

TEST_CASE("output paths that cannot be written are refused before any work, naming the path") {
  TempDir tmp;
  CHECK_THROWS_WITH(require_output_file("", true, "-o", "sweep"), "-o: empty path (expected a file name)");
  CHECK_THROWS_WITH(require_output_file("out/", true, "-o", "sweep"), Catch::Contains("'out/' names a directory"));
  CHECK_THROWS_WITH(require_output_file("/dev/null", true, "-o", "sweep"),
                    Catch::Contains("'/dev/null' is a character device"));
  CHECK_THROWS_WITH(require_output_file(tmp.path, true, "-o", "sweep"), Catch::Contains("is a directory"));
  std::ofstream(tmp.path / "old.csv") << "old";
  CHECK_THROWS_WITH(require_output_file(tmp.path / "old.csv", false, "-o", "sweep"),
                    Catch::Contains("exists (use --force"));
  // --force replaces only what the same verb wrote: the written_by key in the first bytes (or
  // the caller's own test, e.g. a CSV's manifest).
  CHECK_THROWS_WITH(require_output_file(tmp.path / "old.csv", true, "-o", "sweep"),
                    Catch::Contains("not written by mhcsim sweep"));
  CHECK_NOTHROW(require_output_file(
      tmp.path / "old.csv", true, "-o", [](const fs::path&) { return true; }, "me"));
  write_file_atomically(tmp.path / "ours.json", with_written_by("{\"a\": 1}", "sweep"));
  CHECK(nlohmann::json::parse(read(tmp.path / "ours.json")) ==
        nlohmann::json{{"written_by", written_by("sweep")}, {"a", 1}});
  CHECK_NOTHROW(require_output_file(tmp.path / "ours.json", true, "-o", "sweep"));
  // Another verb's output is not replaced: a trace with --force never overwrites a profile.
  CHECK_THROWS_WITH(require_output_file(tmp.path / "ours.json", true, "-o", "simulate"),
                    Catch::Contains("not written by mhcsim simulate"));
  for (const char* empty : {"{}", "{\n  }"})
    CHECK(nlohmann::json::parse(with_written_by(empty, "search")) ==
          nlohmann::json{{"written_by", written_by("search")}});
  // One that only mentions mhcsim further in is not one mhcsim wrote.
  write_file_atomically(tmp.path / "theirs.json", std::string(600, ' ') + "{\"written_by\": \"mhcsim x 1.0\"}");
  CHECK_FALSE(written_by_mhcsim(tmp.path / "theirs.json", "x"));
  write_file_atomically(tmp.path / "near.json", std::string(10, ' ') + "{\"written_by\": \"mhcsim x 1.0\"}");
  CHECK(written_by_mhcsim(tmp.path / "near.json", "x"));  // the same key in the first bytes is
  // A link to a FIFO is not read (the open would block): not ours, and refused, not hung.
  REQUIRE(::mkfifo((tmp.path / "fifo").c_str(), 0600) == 0);
  fs::create_symlink(tmp.path / "fifo", tmp.path / "link.json");
  CHECK_FALSE(written_by_mhcsim(tmp.path / "link.json", "x"));
  CHECK_THROWS_WITH(require_output_file(tmp.path / "link.json", true, "-o", "x"),
                    Catch::Contains("not written by mhcsim"));
  // The library checks too: a rename onto /dev/null would replace the device node.
  CHECK_THROWS_AS(write_file_atomically("/dev/null", "x"), InputError);
  CHECK(fs::is_character_file("/dev/null"));
}

TEST_CASE("an OS error names the path the user gave and the OS reason, not the temp file") {
  TempDir tmp;
  const fs::path locked = tmp.path / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  const bool enforced = ::access(locked.c_str(), W_OK) != 0;  // root ignores permissions
  if (enforced)
    CHECK_THROWS_WITH(write_file_atomically(locked / "x.json", "y"),
                      (locked / "x.json").string() + ": cannot create (Permission denied)");
  fs::permissions(locked, fs::perms::owner_all);
  // A file in the way of the folder.
  std::ofstream(tmp.path / "file") << "x";
  CHECK_THROWS_WITH(write_file_atomically(tmp.path / "file" / "x.txt", "y"),
                    Catch::Contains("cannot create the output directory") && Catch::Contains("file"));
}

TEST_CASE("a batch lands together: nothing renamed until commit, temporaries removed without it") {
  TempDir tmp;
  const fs::path csv = tmp.path / "s.csv", json = tmp.path / "s.json";
  write_file_atomically(csv, "old csv");
  write_file_atomically(json, "old json");
  {
    OutputBatch batch;
    batch.add(csv, [](std::ostream& o) { o << "new csv"; });
    CHECK_THROWS(batch.add(json, [](std::ostream& o) {
      o << "half";
      throw std::runtime_error("disk full");
    }));
  }  // not committed
  CHECK(read(csv) == "old csv");
  CHECK(read(json) == "old json");
  CHECK(tmp.entries() == 2);
  OutputBatch batch;
  batch.add(csv, [](std::ostream& o) { o << "new csv"; });
  batch.add(json, [](std::ostream& o) { o << "new json"; });
  CHECK(read(csv) == "old csv");
  batch.commit();
  CHECK(read(csv) == "new csv");
  CHECK(read(json) == "new json");
  CHECK(tmp.entries() == 2);
}

TEST_CASE("temporaries of killed runs are removed by the next write; those of live ones kept") {
  TempDir tmp;
  const fs::path gone = tmp.path / (std::string(".out.json.tmp.") + kGonePid);
  const fs::path live = tmp.path / (".out.json.tmp." + std::to_string(::getppid()));
  const fs::path other = tmp.path / (std::string(".other.json.tmp.") + kGonePid);
  for (const auto& p : {gone, live, other}) std::ofstream(p) << "partial";
  write_file_atomically(tmp.path / "out.json", "{}");
  CHECK_FALSE(fs::exists(gone));
  CHECK(fs::exists(live));
  CHECK(fs::exists(other));  // another output's: its own next write cleans it
}

TEST_CASE("output directories: marked, replaced only when mhcsim wrote them, old kept on failure") {
  TempDir tmp;
  const fs::path dir = tmp.path / "report";
  const auto fill = [](const std::string& text) {
    return [text](const fs::path& p) { write_file_atomically(p / "report.md", text); };
  };
  write_directory_atomically(dir, false, fill("one"));
  CHECK(fs::is_regular_file(dir / kOutputMarker));
  CHECK_THROWS_WITH(write_directory_atomically(dir, false, fill("two")), Catch::Contains("exists (use --force"));
  write_directory_atomically(tmp.path / "report/", true, fill("two"));  // a trailing '/' names the same
  CHECK(read(dir / "report.md") == "two");
  CHECK(tmp.entries() == 1);
  // The marker lists what mhcsim put there; anything added since stops --force.
  fs::create_directory(dir / "mine");
  std::ofstream(dir / "mine" / "notes.txt") << "precious";
  CHECK_THROWS_WITH(write_directory_atomically(dir, true, fill("three")), Catch::Contains("holds 'mine'"));
  CHECK(read(dir / "mine" / "notes.txt") == "precious");
  CHECK(read(dir / "report.md") == "two");
  fs::remove_all(dir / "mine");
  write_directory_atomically(dir, true, fill("three"));
  CHECK(read(dir / "report.md") == "three");
  // A file put in it while the new output was being written: judged again, and kept.
  CHECK_THROWS_WITH(write_directory_atomically(dir, true,
                                               [&](const fs::path& p) {
                                                 std::ofstream(dir / "late.txt") << "precious";
                                                 write_file_atomically(p / "report.md", "four");
                                               }),
                    Catch::Contains("changed while mhcsim wrote its replacement (it holds 'late.txt'"));
  CHECK(read(dir / "late.txt") == "precious");
  CHECK(read(dir / "report.md") == "three");
  CHECK(tmp.entries() == 1);  // the new output's temporary is gone
  fs::remove(dir / "late.txt");

  const fs::path user = tmp.path / "user";
  fs::create_directory(user);
  std::ofstream(user / "data.txt") << "precious";
  CHECK_THROWS_WITH(write_directory_atomically(user, true, fill("x")), Catch::Contains("was not written by mhcsim"));
  CHECK(read(user / "data.txt") == "precious");
  // Unless the caller recognises it (a report from before the marker).
  write_directory_atomically(user, true, fill("x"), [](const fs::path& d) { return fs::exists(d / "data.txt"); });
  CHECK_FALSE(fs::exists(user / "data.txt"));

  fs::create_directory(tmp.path / "empty");  // nothing to lose
  CHECK_NOTHROW(write_directory_atomically(tmp.path / "empty", true, fill("x")));
  std::ofstream(tmp.path / "plain") << "x";
  CHECK_THROWS_WITH(write_directory_atomically(tmp.path / "plain", true, fill("x")),
                    Catch::Contains("is a regular file (expected a directory)"));
  CHECK_THROWS_WITH(require_output_directory("", true), Catch::Contains("empty path"));
  CHECK_THROWS_AS(require_output_directory(".", true), InputError);
}

TEST_CASE("a directory replace killed between its two steps is undone by the next run") {
  TempDir tmp;
  const fs::path dir = tmp.path / "report";
  // What the two-step fallback leaves when killed after moving the old output aside: the old
  // one at .report.old.PID, the new one complete at .report.tmp.PID, nothing at report.
  const fs::path aside = tmp.path / (std::string(".report.old.") + kGonePid);
  const fs::path fresh = tmp.path / (std::string(".report.tmp.") + kGonePid);
  for (const auto& d : {aside, fresh}) {
    fs::create_directory(d);
    std::ofstream(d / kOutputMarker) << "";
  }
  std::ofstream(aside / "report.md") << "old";
  CHECK_THROWS_WITH(require_output_directory(dir, false), Catch::Contains("exists"));  // the old one is back
  CHECK(read(dir / "report.md") == "old");
  CHECK(tmp.entries() == 1);
}
