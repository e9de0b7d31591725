# Project-wide warning flags, applied through an interface target so third-party
# headers are not affected.
add_library(clusterctl_warnings INTERFACE)
target_compile_options(clusterctl_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wformat=2
  # Boost.Asio coroutine frames trip a false positive in g++ 12.
  -Wno-mismatched-new-delete)
