// Build facts recorded in every results document (cmake/BuildInfo.cmake).
#pragma once

namespace kc::build {
extern const char* const kCommit;
extern const char* const kCompiler;
extern const char* const kFlags;
extern const char* const kVersion;
}  // namespace kc::build
