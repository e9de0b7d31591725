// How much slower a build under AddressSanitizer runs the unit tests. The
// few tests with a time bound (hang guards: "a hostile node cannot stall
// the run", never speed targets, which live in bench/) multiply their
// bound by it, so the same test guards the release build at its real bound
// and the sanitizer build without a false failure: ASan's shadow memory and
// quarantine make the 16 MiB outputs of the hostile-node suite 3-4x slower.
#pragma once

namespace clusterctl::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kSanitizerSlowdown = 4;
#else
inline constexpr int kSanitizerSlowdown = 1;
#endif

}  // namespace clusterctl::testing
