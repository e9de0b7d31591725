/* SIMULATED pyxis (clusterctl testbed): a SPANK plugin that registers the
 * srun/sbatch/salloc options NVIDIA's pyxis adds (so `srun --help` lists
 * them, and Slurm parses them as it would pyxis's), and refuses any job or
 * step that uses one: the testbed has no container runtime (its enroot is
 * SIMULATED), so nothing may pretend to run a container. Written for the
 * clusterctl testbed from pyxis's documented option list; it holds none of
 * pyxis's code. Built by tests/testbed/lib/container_repo.sh against the
 * build machine's spank.h (Debian's libslurm-dev, the nodes' Slurm release:
 * Slurm refuses a plugin built for another release). */
#include <slurm/spank.h>
#include <stddef.h>

SPANK_PLUGIN(pyxis, 1);

/* The first pyxis option the user gave, or NULL. */
static const char *given_option;

static int note_option(int val, const char *optarg, int remote);

#define PYXIS_OPTION(name, arginfo, usage, has_arg) \
  { (char *)(name), (char *)(arginfo), (char *)("[pyxis] " usage " (SIMULATED on this testbed)"), (has_arg), 0, note_option }

static struct spank_option options[] = {
    PYXIS_OPTION("container-image", "[USER@][REGISTRY#]IMAGE[:TAG]|PATH",
                 "the image to use for the container filesystem: an enroot URI or a squashfs file", 1),
    PYXIS_OPTION("container-mounts", "SRC:DST[:FLAGS][,SRC:DST...]", "bind mount[s] inside the container", 1),
    PYXIS_OPTION("container-workdir", "PATH", "working directory inside the container", 1),
    PYXIS_OPTION("container-name", "NAME", "name to use for saving and loading the container on the host", 1),
    PYXIS_OPTION("container-save", "PATH", "save the container state to a squashfs file", 1),
    PYXIS_OPTION("container-mount-home", NULL, "bind mount the user's home directory", 0),
    PYXIS_OPTION("no-container-mount-home", NULL, "do not bind mount the user's home directory", 0),
    PYXIS_OPTION("container-remap-root", NULL, "ask to be remapped to root inside the container", 0),
    PYXIS_OPTION("no-container-remap-root", NULL, "do not remap to root inside the container", 0),
    PYXIS_OPTION("container-entrypoint", NULL, "execute the entrypoint from the container image", 0),
    PYXIS_OPTION("no-container-entrypoint", NULL, "do not execute the entrypoint from the container image", 0),
    PYXIS_OPTION("container-writable", NULL, "make the container filesystem writable", 0),
    PYXIS_OPTION("container-readonly", NULL, "make the container filesystem read-only", 0),
    PYXIS_OPTION("container-env", "NAME[,NAME...]", "names of environment variables to keep from the host", 1),
    SPANK_OPTIONS_TABLE_END};

static int note_option(int val, const char *optarg, int remote) {
  (void)optarg;
  (void)remote;
  if (given_option == NULL && val >= 0 && (size_t)val < sizeof options / sizeof options[0] - 1)
    given_option = options[val].name;
  return 0;
}

/* Options exist where users give them (srun, sbatch, salloc) and where the
 * step runs (slurmstepd); slurmd and the job script contexts have none. */
int slurm_spank_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  spank_context_t context = spank_context();
  if (context != S_CTX_LOCAL && context != S_CTX_REMOTE && context != S_CTX_ALLOCATOR) return 0;
  for (int i = 0; options[i].name != NULL; i++) {
    options[i].val = i;
    if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS) {
      slurm_error("SIMULATED pyxis: could not register --%s", options[i].name);
      return -1;
    }
  }
  return 0;
}

/* A job or step that asked for a container fails here, before anything runs. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  (void)sp;
  (void)ac;
  (void)av;
  if (given_option == NULL) return 0;
  slurm_error("SIMULATED: pyxis is not available on this testbed (--%s given): the clusterctl testbed's "
              "pyxis and enroot are placeholders with no container runtime; no container was started",
              given_option);
  return -1;
}
