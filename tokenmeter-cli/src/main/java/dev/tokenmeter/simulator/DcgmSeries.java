package dev.tokenmeter.simulator;

import java.util.Locale;

/**
 * The DCGM exporter's series for the simulated GPUs, appended to {@code sim serve}'s {@code
 * /metrics} when the engine model runs on a GPU with power data: names, units, help and labels as
 * dcgm-exporter writes them with its default counters (NVIDIA/dcgm-exporter {@code
 * etc/default-counters.csv}): power in W, total energy since start in mJ, GPU utilisation in %,
 * framebuffer used in MiB, and the profiling ratios SM and DRAM active. The values are the power
 * model's ({@link EngineTiming#gpuNow()}): the known truth against which {@code bench
 * --gpu-metrics} is tested. There is no SM clock: the model has none. Stateless.
 */
final class DcgmSeries {
  private DcgmSeries() {}

  /** The series of {@code g}, one sample per GPU, in Prometheus text format. */
  static String text(EngineTiming.GpuNow g) {
    StringBuilder b = new StringBuilder(1024);
    family(b, "DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", g, g.watts());
    family(b, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", g,
        Math.floor(g.joules() * 1e3));
    family(b, "DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", g, Math.round(g.busy() * 100));
    family(b, "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", g, Math.round(g.memoryUsedMib()));
    family(b, "DCGM_FI_PROF_SM_ACTIVE", "gauge", "The ratio of cycles an SM has at least 1 warp assigned.", g,
        g.smActive());
    family(b, "DCGM_FI_PROF_DRAM_ACTIVE", "gauge", "Ratio of cycles the device memory interface is active sending"
        + " or receiving data.", g, g.dramActive());
    return b.toString();
  }

  private static void family(StringBuilder b, String name, String type, String help, EngineTiming.GpuNow g,
      double value) {
    if (type == null) {
      return;
    }
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    for (int i = 0; i < g.gpus(); i++) {
      b.append(name).append("{gpu=\"").append(i).append("\",UUID=\"GPU-00000000-0000-4000-8000-")
          .append(String.format(Locale.ROOT, "%012d", i)).append("\",device=\"nvidia").append(i)
          .append("\",modelName=\"").append(g.name()).append("\",Hostname=\"tokenmeter-sim\"} ")
          .append(value == Math.rint(value) ? String.valueOf((long) value) : String.format(Locale.ROOT, "%.6g", value))
          .append('\n');
    }
  }
}
