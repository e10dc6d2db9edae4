"""python -m gpuprim info [--json]: what `gpuprim info` prints (each GPU's properties that matter, the CPU backend)."""
import json
import sys

from . import info


def _yn(v):
    return "yes" if v else "no"


def main(argv):
    if not argv or argv[0] != "info" or any(a not in ("--json",) for a in argv[1:]):
        print("usage: python -m gpuprim info [--json]", file=sys.stderr)
        return 2
    i = info()
    if "--json" in argv:
        print(json.dumps(i))
        return 0
    if not i["gpus"]:
        print("No GPU: %s" % i.get("gpu_error", "none found"))
    for d in i["gpus"]:
        print("GPU %d: %s" % (d["device"], d["name"]))
        print("  uuid               %s" % d["uuid"])
        print("  compute capability %d.%d (sm_%d%d), %d SMs" % (d["cc_major"], d["cc_minor"], d["cc_major"],
                                                              d["cc_minor"], d["sm_count"]))
        print("  clocks             SM %.0f MHz, memory %.0f MHz" % (d["clock_khz"] / 1e3, d["mem_clock_khz"] / 1e3))
        print("  memory             %.1f GiB (%.1f GiB free), %d-bit bus, %.0f GB/s theoretical"
              % (d["total_mem_bytes"] / 2**30, d["free_mem_bytes"] / 2**30, d["mem_bus_width_bits"],
                 d["mem_bandwidth_gbs"]))
        print("  L2 cache           %.1f MiB (persisting max %.1f MiB)" % (d["l2_bytes"] / 2**20,
                                                                          d["persisting_l2_max_bytes"] / 2**20))
        print("  shared memory      %d KiB per block, %d KiB per SM, %d KiB per block opt-in"
              % (d["smem_per_block"] // 1024, d["smem_per_sm"] // 1024, d["smem_per_block_optin"] // 1024))
        print("  copy engines       %d" % d["async_engines"])
        print("  launch             cluster %s, cooperative %s; memory pools %s"
              % (_yn(d["cluster_launch"]), _yn(d["cooperative_launch"]), _yn(d["memory_pools"])))
        print("  driver / runtime   %d.%d / %d.%d" % (d["driver_version"] // 1000, d["driver_version"] % 1000 // 10,
                                                      d["runtime_version"] // 1000, d["runtime_version"] % 1000 // 10))
    c = i["cpu"]
    print("CPU backend")
    print("  model              %s" % c["model"])
    print("  logical cores      %d (OpenMP threads %d)" % (c["cores"], c["threads"]))
    print("  memory             %.1f GiB total" % (c["memory_bytes"] / 2**30))
    print("gpuprim %s" % i["version"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
