// What one command printed on a node, and the evidence that explains a
// verdict on it: the lines that say why a tool failed, picked by what they
// mean (a CUDA or NCCL failure, a crash, an error line) with a line of
// context each, then the output's last lines. The tail alone is often MPI or
// Slurm boilerplate printed after the line that says why.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clusterctl {

struct ToolOutput {
  int exit_code = 0;    // -1 when killed by a signal or when the node did not answer
  int signal = 0;       // the signal that ended it, 0 if none
  bool started = true;  // false: the program does not exist there
  std::string out;
  std::string err;
  bool timed_out = false;
  bool truncated = false;  // the agent cut the output at its limit (16 MiB a stream)
  // A probe read again after its settle command (ProbeSpec::settle) and still
  // not settled: what that command printed, for the verdict's evidence.
  std::string settle_out;
  std::string Both() const { return out + (err.empty() ? "" : "\n" + err); }
  // Ran, finished in time and exited 0.
  bool Succeeded() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

// The output of a command that did not run (started false): no reading.
const ToolOutput& NotRunOutput();

// "exit 2", "killed by signal 11 (SIGSEGV)", "timed out", "not installed".
std::string ExitDescription(const ToolOutput& output);

// A line that by itself says why a run failed: CUDA/NCCL failures, crashes,
// out-of-memory, error lines. Launcher boilerplate ("Primary job terminated
// normally", "mpirun detected that one or more processes exited") is not.
bool IsCauseLine(std::string_view line);
// Of those, the specific kind (a CUDA or NCCL failure, a crash): when one is
// present the generic error lines around it are context, not causes.
bool IsSpecificCauseLine(std::string_view line);

// Evidence for a failed tool: the cause lines (specific ones first; the same
// text printed by many ranks kept once), each with the line before and after
// it, then the last lines of the output; at most `max_lines`, in output order
// within each part. Only the output's last 256 KiB is read (a node may send
// 16 MiB).
std::vector<std::string> CauseEvidence(const std::string& output, size_t max_lines = 12);

// The first specific cause line, else the first cause line, else "", in the
// output's last 256 KiB.
std::string FirstCause(const std::string& output);

// Removes a launcher's per-rank prefix from an output line: mpirun
// --tag-output ("[1,0]<stdout>:"), srun --label ("0: ", " 12: ").
std::string_view StripRankPrefix(std::string_view line);

}  // namespace clusterctl
