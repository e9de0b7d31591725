#!/usr/bin/python3
# SIMULATED nvidia-smi (clusterctl testbed): there is no GPU and no driver.
# It answers the MIG commands the nvidia-mig role and validate's gpu.mig
# run, keeping MIG state in files on the node, with its output shaped as
# real nvidia-smi's (tests/fixtures/captured/SOURCES.md, "The testbed's
# SIMULATED nvidia-smi"), and says it is SIMULATED on stderr every time:
#   nvidia-smi -L
#   nvidia-smi --query-gpu=index,mig.mode.current --format=csv,noheader
#   nvidia-smi [-i N] -mig 0|1
#   nvidia-smi mig [-i N] -lgip | -lgi | -lci | -dci | -dgi | -cgi ID,... [-C]
# Anything else fails as the placeholder always did (exit 9), so no other
# GPU check or tool reads a GPU here. Each call that would change a GPU is
# logged with its time in /var/log/nvidia-smi-simulated.log.
#
# The GPUs are the node's /dev/nvidiaN (the testbed's simulated hardware);
# only an H100 80GB HBM3 (PCI 10de:2330) offers MIG, with the profiles of
# the real -lgip capture. MIG mode is kept in /var/lib (it survives a
# reboot, as a real GPU's does); GPU and compute instances in /run (a
# reboot loses them, as it does on real GPUs). A GPU instance takes the
# first free placement of its profile (a 4-slice one the last, as the
# real 3g.40gb in the -lgi capture) and the lowest free ID of the
# profile's range (the IDs a real H100 gave in the captures: 1g.10gb 7-13,
# 2g.20gb 3-5, 3g.40gb 1-2): SIMULATED, the driver's own choice differs.
import glob
import json
import os
import re
import sys
import uuid

MODE_FILE = "/var/lib/nvidia-smi-simulated/mig-mode.json"
CHANGES_LOG = "/var/log/nvidia-smi-simulated.log"  # each changing call, with its time (what a test orders)
INSTANCES_FILE = "/run/nvidia-smi-simulated/mig-instances.json"
LABEL = "SIMULATED nvidia-smi (clusterctl testbed): no GPU, no driver; MIG state kept in " + MODE_FILE + " and " + INSTANCES_FILE

# H100 80GB HBM3 (tests/fixtures/captured/nvidia-smi-mig-lgip--4xH100-SXM5-80GB--1.txt):
# name, profile ID, instances, memory GiB, P2P, SM, DEC, ENC, CE, JPEG, OFA,
# then the simulation's placement size (memory slices), starts, compute slices and GI IDs.
PROFILES = [
    ("1g.10gb", 19, 7, "9.75", "No", 16, 1, 0, 1, 1, 0, 1, range(7), 1, range(7, 14)),
    ("1g.10gb+me", 20, 1, "9.75", "No", 16, 1, 0, 1, 1, 1, 1, range(7), 1, range(7, 14)),
    ("1g.20gb", 15, 4, "19.62", "No", 26, 1, 0, 1, 1, 0, 2, (0, 2, 4, 6), 1, range(3, 7)),
    ("2g.20gb", 14, 3, "19.62", "No", 32, 2, 0, 2, 2, 0, 2, (0, 2, 4), 2, range(3, 6)),
    ("3g.40gb", 9, 2, "39.50", "No", 60, 3, 0, 3, 3, 0, 4, (0, 4), 3, range(1, 3)),
    ("4g.40gb", 5, 1, "39.50", "No", 64, 4, 0, 4, 4, 0, 4, (0,), 4, range(1, 2)),
    ("7g.80gb", 0, 1, "79.25", "No", 132, 7, 0, 8, 7, 1, 8, (0,), 7, range(0, 1)),
]
MIG_MODELS = {"0x2330": "NVIDIA H100 80GB HBM3"}
OTHER_MODELS = {"0x20b2": "NVIDIA A100-SXM4-80GB", "0x26b9": "NVIDIA L40S"}


def fail(message, code=9):
    sys.stdout.flush()
    print(message, file=sys.stderr)
    sys.exit(code)


def gpus():
    """[(index, bus id, model name, offers MIG)] of the node's simulated GPUs."""
    functions = []
    for path in sorted(glob.glob("/sys/bus/pci/devices/*")):
        try:
            vendor = open(path + "/vendor").read().strip()
            klass = open(path + "/class").read().strip()
            device = open(path + "/device").read().strip()
        except OSError:
            continue
        if vendor == "0x10de" and klass.startswith("0x0302"):
            functions.append((os.path.basename(path), device))
    count = len(glob.glob("/dev/nvidia[0-9]*"))
    out = []
    for index, (bus, device) in enumerate(functions[:count]):
        bus_id = "0000" + bus.upper() if len(bus) == 12 else bus.upper()
        name = MIG_MODELS.get(device) or OTHER_MODELS.get(device, "NVIDIA GPU")
        out.append((index, bus_id, name, device in MIG_MODELS))
    return out


def load(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def save(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".new", "w") as f:
        json.dump(value, f)
    os.replace(path + ".new", path)


def selected(args, all_gpus):
    """The GPUs -i names (index), or all."""
    if "-i" not in args:
        return all_gpus
    at = args.index("-i")
    wanted = args[at + 1] if at + 1 < len(args) else ""
    chosen = [g for g in all_gpus if str(g[0]) == wanted]
    if not chosen:
        fail("No devices were found")  # real nvidia-smi's words for an unknown -i
    del args[at:at + 2]
    return chosen


def uuid_of(*parts):
    return str(uuid.uuid5(uuid.NAMESPACE_DNS, "simulated." + ".".join(str(p) for p in parts) + "." + os.uname().nodename))


def mig_on(gpu):
    return gpu[3] and load(MODE_FILE, {}).get(str(gpu[0]), False)


def list_gpus(all_gpus):
    instances = load(INSTANCES_FILE, [])
    for index, _, name, _ in all_gpus:
        print("GPU %d: %s (UUID: GPU-%s)" % (index, name, uuid_of("gpu", index)))
        if not mig_on(all_gpus[index]):
            continue
        mine = sorted((gi for gi in instances if gi["gpu"] == index and gi["ci"]), key=lambda gi: gi["id"])
        for device, gi in enumerate(mine):
            print("  MIG %-12sDevice %2d: (UUID: MIG-%s)" % (gi["profile"], device, uuid_of("mig", index, gi["id"])))


def query(args, all_gpus):
    if args != ["--query-gpu=index,mig.mode.current", "--format=csv,noheader"]:
        fail("SIMULATED nvidia-smi: this query is not simulated")
    for gpu in all_gpus:
        print("%d, %s" % (gpu[0], ("Enabled" if mig_on(gpu) else "Disabled") if gpu[3] else "[N/A]"))


def set_mode(args, all_gpus):
    chosen = selected(args, all_gpus)
    value = args[args.index("-mig") + 1] if args.index("-mig") + 1 < len(args) else ""
    if value not in ("0", "1"):
        fail("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.")
    modes = load(MODE_FILE, {})
    for index, bus_id, _, offers in chosen:
        if not offers:
            print("Unable to %s MIG Mode for GPU %s: Not Supported" % ("enable" if value == "1" else "disable", bus_id))
            sys.exit(3)
        if value == "0" and any(gi["gpu"] == index for gi in load(INSTANCES_FILE, [])):
            print("Unable to disable MIG Mode for GPU %s: In use by another client" % bus_id)
            sys.exit(19)
        modes[str(index)] = value == "1"
        print("%s MIG Mode for GPU %s" % ("Enabled" if value == "1" else "Disabled", bus_id))
    save(MODE_FILE, modes)
    print("All done.")


def table_head(title, *columns):
    """A MIG table's rule, title, column lines and '=' line, its width the columns'; returns the rule."""
    width = len(columns[0])
    rule = "+" + "-" * width + "+"
    print(rule)
    print("| %-*s|" % (width - 1, title))
    for line in columns:
        print("|" + line + "|")
    print("|" + "=" * width + "|")
    return rule


def lgip(chosen):
    instances = load(INSTANCES_FILE, [])
    rule = table_head("GPU instance profiles:",
                      " GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  ",
                      "                              Free/Total   GiB              CE    JPEG  OFA  ")
    for gpu in chosen:
        for p in PROFILES:
            free = sum(1 for start in p[12] if fits(instances, gpu[0], p, start))
            free = min(free, p[2] - sum(1 for gi in instances if gi["gpu"] == gpu[0] and gi["profile"] == p[0]))
            print("|%4d  MIG %-14s%2d     %-3s        %-11s%-7s%-7d%-6d%-4d|" % (gpu[0], p[0], p[1], "%d/%d" % (free, p[2]), p[3], p[4], p[5], p[6], p[7]))
            print("|%61s%-6d%-6d%-4d|" % ("", p[8], p[9], p[10]))
            print(rule)


def slices(instances, gpu):
    used, compute = set(), 0
    for gi in instances:
        if gi["gpu"] == gpu:
            used.update(range(gi["start"], gi["start"] + gi["size"]))
            compute += gi["compute"]
    return used, compute


def fits(instances, gpu, profile, start):
    used, compute = slices(instances, gpu)
    return compute + profile[13] <= 7 and not used & set(range(start, start + profile[11])) and start + profile[11] <= 8


def create(chosen, ids, with_compute):
    instances = load(INSTANCES_FILE, [])
    for gpu in chosen:
        for wanted in ids:
            profile = next((p for p in PROFILES if str(p[1]) == wanted or p[0] == wanted), None)
            if profile is None:
                fail("Unable to create a GPU instance on GPU %2d using profile %s: Invalid Argument\n"
                     "Failed to create GPU instances: Invalid Argument" % (gpu[0], wanted), 2)
            starts = reversed(profile[12]) if profile[11] == 4 else profile[12]
            start = next((s for s in starts if fits(instances, gpu[0], profile, s)), None)
            taken = {gi["id"] for gi in instances if gi["gpu"] == gpu[0]}
            gi_id = next((i for i in profile[14] if i not in taken), None)
            if start is None or gi_id is None:
                save(INSTANCES_FILE, instances)
                fail("Unable to create a GPU instance on GPU %2d using profile %d: Insufficient Resources\n"
                     "Failed to create GPU instances: Insufficient Resources" % (gpu[0], profile[1]), 2)
            gi = {"gpu": gpu[0], "profile": profile[0], "pid": profile[1], "id": gi_id, "start": start,
                  "size": profile[11], "compute": profile[13], "ci": with_compute}
            instances.append(gi)
            print("Successfully created GPU instance ID %2d on GPU %2d using profile MIG %s (ID %2d)" % (gi_id, gpu[0], profile[0], profile[1]))
            if with_compute:
                print("Successfully created compute instance ID  0 on GPU %2d GPU instance ID %2d using profile MIG %s (ID  0)" % (gpu[0], gi_id, profile[0]))
    save(INSTANCES_FILE, instances)


def destroy(chosen, compute):
    instances = load(INSTANCES_FILE, [])
    indexes = {g[0] for g in chosen}
    mine = sorted((gi for gi in instances if gi["gpu"] in indexes and (gi["ci"] or not compute)), key=lambda gi: (gi["gpu"], gi["id"]))
    if not mine:
        fail("No %s instances found: Not Found" % ("compute" if compute else "GPU"), 6)
    for gi in mine:
        if compute:
            gi["ci"] = False
            print("Successfully destroyed compute instance ID  0 from GPU %2d GPU instance ID %2d" % (gi["gpu"], gi["id"]))
        else:
            if gi["ci"]:
                fail("Unable to destroy GPU instance ID %2d from GPU %2d: In use by another client\n"
                     "Failed to destroy GPU instances: In use by another client" % (gi["id"], gi["gpu"]), 19)
            instances.remove(gi)
            print("Successfully destroyed GPU instance ID %2d from GPU %2d" % (gi["id"], gi["gpu"]))
    save(INSTANCES_FILE, instances)


def lgi(chosen, compute):
    instances = sorted((gi for gi in load(INSTANCES_FILE, []) if gi["gpu"] in {g[0] for g in chosen} and (gi["ci"] or not compute)),
                       key=lambda gi: (gi["gpu"], gi["profile"], gi["id"]))
    if not instances:
        fail("No %s instances found: Not Found" % ("compute" if compute else "GPU"), 6)
    if not compute:
        rule = table_head("GPU instances:", " GPU   Name             Profile  Instance   Placement  ",
                          "                          ID       ID       Start:Size ")
        for gi in instances:
            print("|%4d  MIG %-13s%5d%9d%13s     |" % (gi["gpu"], gi["profile"], gi["pid"], gi["id"], "%d:%d" % (gi["start"], gi["size"])))
            print(rule)
        return
    rule = table_head("Compute instances:", " GPU     GPU       Name             Profile   Instance   Placement  ",
                      "       Instance                       ID        ID       Start:Size ",
                      "         ID                                                         ")
    for gi in instances:
        ci_profile = next(p for p in PROFILES if p[0] == gi["profile"])[13]
        ci_pid = {1: 0, 2: 1, 3: 2, 4: 3, 7: 4}[ci_profile]
        print("|%4d%7d       MIG %-13s%5d%10d%13s     |" % (gi["gpu"], gi["id"], gi["profile"], ci_pid, 0, "0:%d" % ci_profile))
        print(rule)


def mig(args, all_gpus):
    explicit = "-i" in args
    chosen = selected(args, all_gpus)
    enabled = [g for g in chosen if mig_on(g)]
    if not enabled or (explicit and len(enabled) != len(chosen)):
        fail("No MIG-enabled devices found.", 6)
    chosen = enabled
    if args == ["-lgip"]:
        return lgip(chosen)
    if args in (["-lgi"], ["-lci"]):
        return lgi(chosen, args == ["-lci"])
    if args in (["-dci"], ["-dgi"]):
        return destroy(chosen, args == ["-dci"])
    if len(args) >= 2 and args[0] == "-cgi" and args[2:] in ([], ["-C"]) and re.fullmatch(r"[0-9a-z.+]+(,[0-9a-z.+]+)*", args[1]):
        return create(chosen, args[1].split(","), args[2:] == ["-C"])
    fail("SIMULATED nvidia-smi: this mig command is not simulated")


def log_change(args):
    if "-mig" in args or any(a in args for a in ("-cgi", "-dci", "-dgi")):
        import datetime
        with open(CHANGES_LOG, "a") as f:
            f.write("%s nvidia-smi %s\n" % (datetime.datetime.now().strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3], " ".join(args)))


def main():
    print(LABEL, file=sys.stderr, flush=True)
    args = sys.argv[1:]
    log_change(args)
    all_gpus = gpus()
    if not all_gpus:
        fail("SIMULATED nvidia-smi (clusterctl testbed): there is no GPU and no driver here")
    if args == ["-L"]:
        return list_gpus(all_gpus)
    if args and args[0].startswith("--query-gpu="):
        return query(args, all_gpus)
    if "-mig" in args and "mig" not in args:
        return set_mode(args, all_gpus)
    if args and args[0] == "mig":
        return mig(args[1:], all_gpus)
    fail("SIMULATED nvidia-smi (clusterctl testbed): there is no GPU and no driver here")


if __name__ == "__main__":
    main()
