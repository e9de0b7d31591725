# Project-wide warning flags, applied through an interface target so third-party
# headers are not affected.
add_library(clusterctl_warnings INTERFACE)
target_compile_options(clusterctl_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wformat=2)
