// clusterctl: the controller's entry point. Wires the real services (system
// clock, file system probe, standard streams, the log on stderr) and runs the
// command line.
#include <csignal>
#include <iostream>

#include "common/log.h"
#include "controller/cli/app.h"
#include "controller/state/filesystem_check.h"

int main(int argc, char** argv) {
  clusterctl::SystemClock clock;
  clusterctl::SystemFilesystemProbe filesystem;
  // Under systemd (the daemon's unit), each line carries its journal priority.
  clusterctl::Logger log(std::cerr, clusterctl::LogLevel::kInfo, clusterctl::StderrIsJournal());
  clusterctl::Services services;
  services.log = &log;
  services.clock = &clock;
  services.filesystem = &filesystem;
  // A closed stdout (`deploy | head -1`, a pager quit early) must never stop
  // a run half way: writes to it fail (EPIPE) and are dropped, the run goes
  // on, is recorded in the state and exits with its own status.
  ::signal(SIGPIPE, SIG_IGN);
  return clusterctl::RunCommandLine(argc, argv, services);
}
