// clusterctl: the controller's entry point. Wires the real services (system
// clock, file system probe, standard streams) and runs the command line.
#include "controller/cli/app.h"
#include "controller/state/filesystem_check.h"

int main(int argc, char** argv) {
  clusterctl::SystemClock clock;
  clusterctl::SystemFilesystemProbe filesystem;
  clusterctl::Services services;
  services.clock = &clock;
  services.filesystem = &filesystem;
  return clusterctl::RunCommandLine(argc, argv, services);
}
