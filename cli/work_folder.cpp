#include "cli/work_folder.h"

#include <fmt/format.h>

#include "cli/plan.h"
#include "reports/json_number.h"
#include "core/error.h"

namespace kc::cli {

namespace fs = std::filesystem;
using nlohmann::json;

WorkFolder::WorkFolder(const fs::path& dir, std::string_view kind, std::string_view noun, std::string_view units,
                       const json& identity)
    : dir_(dir), units_(dir / units) {
  std::error_code ec;
  fs::create_directories(units_, ec);
  if (ec) throw UsageError(fmt::format("--out {}: cannot create {}: {}", dir.string(), units_.string(), ec.message()));
  const fs::path id_file = dir / fmt::format("{}.json", kind);
  if (!fs::exists(id_file)) {
    write_file_whole(id_file, identity.dump(2) + "\n");
    return;
  }
  const json old = read_json_file(id_file, fmt::format("{} description (remove it or use another --out)", kind));
  if (old != identity)
    throw UsageError(fmt::format("--out {} holds another {} ({}); this one is {}: restart with its arguments or use "
                                 "another folder",
                                 dir.string(), noun, old.dump(), identity.dump()));
}

bool WorkFolder::has(const std::string& unit) const { return fs::exists(units_ / unit); }

void WorkFolder::write(const std::string& unit, const json& doc) const {
  json on_disk = doc;
  reports::encode_nonfinite(on_disk);  // (every figure a number or null: reports/json_number.h)
  write_file_whole(units_ / unit, on_disk.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
}

json WorkFolder::read(const std::string& unit) const {
  return read_json_file(units_ / unit,
                        fmt::format("document of {}/ (remove it to grade it again)", units_.filename().string()));
}

}  // namespace kc::cli
