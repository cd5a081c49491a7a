// A main for a libFuzzer target outside libFuzzer: feeds it every file of
// the folders (or files) named on the command line, in name order. The main
// build links each reader's fuzz target with this and only the sources of
// cmake/ReaderSources.cmake, and ctest replays the seed corpus through it,
// so the reader stays linkable alone and the corpus keeps passing under
// GCC between the nightly fuzz runs. A run that read no file fails.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& p) {
  if (!std::filesystem::is_directory(p)) return {p};
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(p))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  int replayed = 0;
  for (int i = 1; i < argc; ++i)
    for (const auto& file : inputs_of(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "cannot read %s\n", file.c_str());
        return 1;
      }
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  std::printf("replayed %d inputs\n", replayed);
  return replayed > 0 ? 0 : 1;
}
