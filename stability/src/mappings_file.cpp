#include "mhcsim/stability/mappings_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "mhcsim/error.h"
#include "mhcsim/json_nesting.h"

namespace mhcsim::stability {
namespace {

[[noreturn]] void fail(const std::string& file, const std::string& where, const std::string& reason) {
  throw InputError(where, reason, {file, 0});
}

std::string element(int64_t l) { return fmt::format("element [{}]", l); }
std::string element(int64_t l, int64_t i) { return fmt::format("element [{}][{}]", l, i); }
std::string element(int64_t l, int64_t i, int64_t j) { return fmt::format("element [{}][{}][{}]", l, i, j); }

void check_shape(const std::string& file, const std::string& where, int64_t layers, int64_t n) {
  if (layers < 1) fail(file, where, "no matrices (expected L x n x n with L >= 1)");
  if (layers > kMaxMappingsLayers)
    fail(file, where, fmt::format("{} matrices, more than the {} supported", layers, kMaxMappingsLayers));
  if (n < 1) fail(file, where, "empty matrix (expected n x n with n >= 1)");
  if (n > kMaxMappingsN) fail(file, where, fmt::format("n = {}, more than the {} supported", n, kMaxMappingsN));
}

// The projections run in the kernels' fp32 (projection.h), so a value is one float32 holds.
double finite_value(const std::string& file, int64_t l, int64_t i, int64_t j, double v) {
  if (!std::isfinite(v)) fail(file, element(l, i, j), fmt::format("{} is not a finite number", v));
  if (std::abs(v) > std::numeric_limits<float>::max())
    fail(file, element(l, i, j),
         fmt::format("{:g} is out of float32's range (|x| <= {:g})", v,
                     static_cast<double>(std::numeric_limits<float>::max())));
  return v;
}

// --- .npy: magic, version, header length, a Python dict literal, then the C-order data. ---

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicBytes = 6;

// The text after `'key':` in the header dict, leading spaces skipped; nullopt when absent.
std::optional<std::string_view> dict_value(std::string_view header, std::string_view key) {
  const std::string quoted = fmt::format("'{}'", key);
  auto at = header.find(quoted);
  if (at == std::string_view::npos) return std::nullopt;
  at = header.find(':', at + quoted.size());
  if (at == std::string_view::npos) return std::nullopt;
  header.remove_prefix(at + 1);
  while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
  return header;
}

struct NpyHeader {
  int item_bytes = 0;  // 4 or 8
  int64_t layers = 0, n = 0;
};

// The text between `open` at the start of `value` and the next `close`; nullopt without them.
std::optional<std::string_view> enclosed(std::optional<std::string_view> value, char open, char close) {
  if (!value || value->empty() || value->front() != open) return std::nullopt;
  const auto end = value->find(close, 1);
  if (end == std::string_view::npos) return std::nullopt;
  return value->substr(1, end - 1);
}

NpyHeader parse_npy_header(std::string_view header, const std::string& file) {
  NpyHeader h;
  const auto descr = enclosed(dict_value(header, "descr"), '\'', '\'');
  if (!descr) fail(file, "header", "no 'descr' string");
  const std::string_view d = *descr;
  if (d == "<f4")
    h.item_bytes = 4;
  else if (d == "<f8")
    h.item_bytes = 8;
  else
    fail(file, "header",
         fmt::format("descr {:?} is not supported (expected '<f4' or '<f8': little-endian float32 or float64)",
                     std::string(d)));
  const auto order = dict_value(header, "fortran_order");
  if (!order || !order->starts_with("False"))
    fail(file, "header", "fortran_order is not False (expected C order; save with np.ascontiguousarray)");
  const auto shape = enclosed(dict_value(header, "shape"), '(', ')');
  if (!shape) fail(file, "header", "no 'shape' tuple");
  const std::string_view tuple = *shape;
  std::vector<int64_t> dims;
  size_t pos = 0;
  while (pos < tuple.size()) {
    while (pos < tuple.size() && (tuple[pos] == ' ' || tuple[pos] == ',')) ++pos;
    if (pos == tuple.size()) break;
    int64_t v = 0;
    size_t digits = 0;
    while (pos < tuple.size() && std::isdigit(static_cast<unsigned char>(tuple[pos])) && digits < 12) {
      v = v * 10 + (tuple[pos++] - '0');
      ++digits;
    }
    if (digits == 0 || (pos < tuple.size() && tuple[pos] != ',' && tuple[pos] != ' '))
      fail(file, "header", fmt::format("shape ({}) is not a tuple of sizes", std::string(tuple)));
    dims.push_back(v);
  }
  if (dims.size() != 3 || dims[1] != dims[2])
    fail(file, "header", fmt::format("shape ({}) is not (L, n, n)", std::string(tuple)));
  check_shape(file, "header", dims[0], dims[1]);
  h.layers = dims[0];
  h.n = dims[1];
  return h;
}

}  // namespace

MappingStack parse_mappings_npy(const std::string& bytes, const std::string& file) {
  if (bytes.size() < kNpyMagicBytes + 4 || bytes.compare(0, kNpyMagicBytes, kNpyMagic) != 0)
    fail(file, "header", "not a .npy file (no \\x93NUMPY magic)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) fail(file, "header", fmt::format("format version {} is not 1, 2 or 3", major));
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) fail(file, "header", "truncated before the header length");
  uint64_t header_len = 0;
  for (size_t k = 0; k < length_bytes; ++k) header_len |= uint64_t{static_cast<unsigned char>(bytes[8 + k])} << (8 * k);
  const size_t data_at = 8 + length_bytes + header_len;
  if (data_at > bytes.size())
    fail(file, "header", fmt::format("header of {} bytes runs past the end of the file", header_len));
  const NpyHeader h = parse_npy_header(std::string_view(bytes).substr(8 + length_bytes, header_len), file);
  const auto count = static_cast<uint64_t>(h.layers * h.n * h.n);
  const uint64_t want = count * static_cast<uint64_t>(h.item_bytes);
  if (bytes.size() - data_at != want)
    fail(file, "data",
         fmt::format("{} bytes, expected {} for shape ({}, {}, {}) of float{}", bytes.size() - data_at, want, h.layers,
                     h.n, h.n, h.item_bytes * 8));
  MappingStack out(h.n, h.layers);
  const char* data = bytes.data() + data_at;
  // Little-endian on disk; this build's hosts (x86-64, aarch64 Linux) are little-endian too.
  static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");
  for (uint64_t k = 0; k < count; ++k) {
    double v = 0;
    if (h.item_bytes == 4) {
      float f = 0;
      std::memcpy(&f, data + k * 4, 4);
      v = f;
    } else {
      std::memcpy(&v, data + k * 8, 8);
    }
    const auto nn = static_cast<uint64_t>(h.n * h.n);
    out.values[k] = finite_value(file, static_cast<int64_t>(k / nn), static_cast<int64_t>(k % nn) / h.n,
                                 static_cast<int64_t>(k % nn) % h.n, v);
  }
  return out;
}

MappingStack parse_mappings_json(const std::string& text, const std::string& file) {
  const nlohmann::json doc = parse_json_bounded(text, {file, 0});
  if (!doc.is_array())
    fail(file, "top level", fmt::format("expected an array of L matrices (L x n x n), got {}", doc.type_name()));
  const auto layers = static_cast<int64_t>(doc.size());
  if (layers < 1) fail(file, "top level", "no matrices (expected L x n x n with L >= 1)");
  if (!doc[0].is_array())
    fail(file, element(0), fmt::format("expected an array of n rows, got {}", doc[0].type_name()));
  const auto n = static_cast<int64_t>(doc[0].size());
  check_shape(file, element(0), layers, n);
  MappingStack out(n, layers);
  for (int64_t l = 0; l < layers; ++l) {
    const auto& m = doc[static_cast<size_t>(l)];
    if (!m.is_array()) fail(file, element(l), fmt::format("expected an array of {} rows, got {}", n, m.type_name()));
    if (static_cast<int64_t>(m.size()) != n)
      fail(file, element(l), fmt::format("{} rows, expected {} (n from element [0])", m.size(), n));
    for (int64_t i = 0; i < n; ++i) {
      const auto& row = m[static_cast<size_t>(i)];
      if (!row.is_array())
        fail(file, element(l, i), fmt::format("expected an array of {} numbers, got {}", n, row.type_name()));
      if (static_cast<int64_t>(row.size()) != n)
        fail(file, element(l, i), fmt::format("{} values, expected {} (a square n x n matrix)", row.size(), n));
      for (int64_t j = 0; j < n; ++j) {
        const auto& x = row[static_cast<size_t>(j)];
        if (!x.is_number()) fail(file, element(l, i, j), fmt::format("expected a number, got {}", x.type_name()));
        out.layer(l)[i * n + j] = finite_value(file, l, i, j, x.get<double>());
      }
    }
  }
  return out;
}

MappingStack read_mappings_file(const std::filesystem::path& path) {
  const std::string bytes =
      read_input_file(path, {.what = "mappings file", .max_bytes = kMaxMappingsFileBytes, .raise_flag = {}, .key = {}});
  if (bytes.compare(0, kNpyMagicBytes, kNpyMagic) == 0) return parse_mappings_npy(bytes, path.string());
  return parse_mappings_json(bytes, path.string());
}

}  // namespace mhcsim::stability
