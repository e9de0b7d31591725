// clusterctl-health: validate's node checks as Slurm's HealthCheckProgram
// (docs/health.md). Installed on every compute node by the slurm-health
// role; static like the agent, so it runs whatever the node's libraries.
//   clusterctl-health [--config PATH] [--dry-run]
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "agent/facts/gather.h"
#include "health/health_config.h"
#include "health/health_run.h"
#include "health/node_commands.h"

int main(int argc, char** argv) {
  using namespace clusterctl::health;
  std::string config_path = kDefaultConfigPath;
  HealthRunOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--config" && i + 1 < argc) {
      config_path = argv[++i];
    } else if (arg == "--dry-run") {
      options.dry_run = true;
    } else {
      std::cerr << "usage: clusterctl-health [--config PATH] [--dry-run]\n";
      return 1;
    }
  }
  std::ifstream in(config_path, std::ios::binary);
  if (!in) {
    std::cout << "clusterctl-health: cannot read " << config_path << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  LocalCommands commands;
  return RunHealthCheck(options, text.str(), clusterctl::facts::GatherFacts({}), commands, std::cout);
}
