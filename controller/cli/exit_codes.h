// Process exit codes: the contract in docs/cli.md and DESIGN section 3.
#pragma once

namespace clusterctl {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;      // a host failed or was unreachable, or a check failed
inline constexpr int kExitUsage = 2;       // usage error, invalid inventory or role; nothing touched
inline constexpr int kExitStateBusy = 3;   // the state store is held by another run

}  // namespace clusterctl
