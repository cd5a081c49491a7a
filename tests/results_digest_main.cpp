// kc_results_digest RESULTS.json: prints the digest of a results document
// (tests/results_digest.h), one kernel x dtype per line.
#include <fstream>
#include <iostream>

#include "reports/json_number.h"
#include "tests/results_digest.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: kc_results_digest RESULTS.json\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "kc_results_digest: cannot read " << argv[1] << "\n";
    return 2;
  }
  // (decoded: the digest reads a non-finite figure as the in-memory document holds it)
  nlohmann::json doc = nlohmann::json::parse(in);
  kc::reports::decode_nonfinite(doc);
  const auto digest = kc::testing_support::digest_of_document(doc);
  std::cout << "{\n";
  std::size_t i = 0;
  for (const auto& [key, value] : digest.items())
    std::cout << "  " << nlohmann::json(key).dump() << ": " << value.dump() << (++i < digest.size() ? ",\n" : "\n");
  std::cout << "}\n";
  return 0;
}
