// A resumable work folder, the one protocol of `campaign` and `exhaustive`:
// DIR/<kind>.json names the work the folder holds (its identity), and
// DIR/<units>/ holds one results document per finished unit (a batch, a
// block), each written whole by rename. Run again with the same identity,
// the work continues where it stopped: only missing units are graded.
// Another identity is refused (exit 2), so that units of two different
// works never mix.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kc::cli {

class WorkFolder {
 public:
  // Creates DIR and DIR/units. `kind` names the identity's file
  // ("campaign" for campaign.json), `noun` the work in messages ("holds
  // another sweep").
  WorkFolder(const std::filesystem::path& dir, std::string_view kind, std::string_view noun, std::string_view units,
             const nlohmann::json& identity);

  const std::filesystem::path& dir() const { return dir_; }
  const std::filesystem::path& units() const { return units_; }
  bool has(const std::string& unit) const;
  void write(const std::string& unit, const nlohmann::json& doc) const;
  // A finished unit's document; a damaged one is exit 2 naming the file
  // (remove it to grade the unit again).
  nlohmann::json read(const std::string& unit) const;

 private:
  std::filesystem::path dir_, units_;
};

}  // namespace kc::cli
