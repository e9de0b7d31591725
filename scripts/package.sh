#!/usr/bin/env bash
# Builds the Debian packages from build/ (cmake/Install.cmake has the
# layout): clusterctl_VERSION_ARCH.deb and its debug symbols,
# clusterctl-dbgsym_VERSION_ARCH.ddeb, in build/. Prints the .deb's path.
#
#   scripts/package.sh        then: apt install ./build/clusterctl_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
command -v dpkg-shlibdeps >/dev/null || { echo "package: dpkg-shlibdeps is missing (apt install dpkg-dev)" >&2; exit 1; }
# Only what the package holds (the programs, the man page and completions);
# an up-to-date build/ is reused as it is. CPack itself builds nothing
# (CMAKE_SKIP_INSTALL_ALL_DEPENDENCY in cmake/Install.cmake).
scripts/build.sh clusterctl clusterctl-agent clusterctl-health clusterctl-generated >/dev/null
rm -f build/clusterctl_*.deb build/clusterctl-dbgsym_*.ddeb
(cd build && cpack -G DEB >cpack.log 2>&1) || { tail -20 build/cpack.log >&2; exit 1; }
realpath build/clusterctl_*.deb
