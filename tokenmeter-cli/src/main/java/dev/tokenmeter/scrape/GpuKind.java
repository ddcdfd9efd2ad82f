package dev.tokenmeter.scrape;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The GPU exporters whose series {@code --gpu-metrics} reads, per GPU, in tokenmeter's units
 * ({@link GpuReading.Gpu}). Names, units and labels (docs/METRICS.md, "GPU power and energy"):
 *
 * <ul>
 *   <li>{@link #DCGM}: NVIDIA's dcgm-exporter, its default counters ({@code
 *       etc/default-counters.csv} of NVIDIA/dcgm-exporter; docs.nvidia.com/datacenter/dcgm,
 *       "DCGM Exporter Metrics"): power in W, GPU utilisation in %, framebuffer used in MiB, SM
 *       clock in MHz, the profiling ratios SM and DRAM active (0..1), and the total energy since
 *       boot in mJ. A GPU is the {@code gpu} label (its index) and its {@code UUID}.
 *   <li>{@link #AMD}: AMD's device-metrics-exporter (ROCm/device-metrics-exporter, {@code
 *       docs/configuration/metricslist.md}), with or without its optional {@code amd_} prefix:
 *       package power in W ({@code gpu_package_power}, else {@code gpu_power_usage}, else {@code
 *       gpu_average_package_power}), GFX activity and UMC (memory controller) activity in %, used
 *       VRAM in MB (read as MiB), the system clock ({@code gpu_clock{clock_type=
 *       "GPU_CLOCK_TYPE_SYSTEM"}}) in MHz and the energy consumed in µJ. A GPU is its {@code
 *       gpu_id} label (and {@code serial_number}).
 * </ul>
 */
public enum GpuKind {
  DCGM("DCGM"),
  AMD("AMD device-metrics-exporter"),
  /** {@code --gpu-metrics nvml}: nvidia-smi's own query ({@link NvidiaSmi}). */
  NVIDIA_SMI("nvidia-smi"),
  /** The simulator's power model (simulate). */
  MODEL("model");

  private enum Field { POWER, UTIL, MEMORY, CLOCK, SM_ACTIVE, DRAM_ACTIVE, ENERGY }

  private record Series(Field field, double scale) {}

  private static final Map<String, Series> DCGM_SERIES = Map.of(
      "DCGM_FI_DEV_POWER_USAGE", new Series(Field.POWER, 1),
      "DCGM_FI_DEV_GPU_UTIL", new Series(Field.UTIL, 1),
      "DCGM_FI_DEV_FB_USED", new Series(Field.MEMORY, 1),
      "DCGM_FI_DEV_SM_CLOCK", new Series(Field.CLOCK, 1),
      "DCGM_FI_PROF_SM_ACTIVE", new Series(Field.SM_ACTIVE, 1),
      "DCGM_FI_PROF_DRAM_ACTIVE", new Series(Field.DRAM_ACTIVE, 1),
      "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", new Series(Field.ENERGY, 1e-3)); // mJ

  /** AMD names without the optional {@code amd_} prefix; power names in the order they are preferred. */
  private static final Map<String, Series> AMD_SERIES = Map.of(
      "gpu_package_power", new Series(Field.POWER, 1),
      "gpu_power_usage", new Series(Field.POWER, 1),
      "gpu_average_package_power", new Series(Field.POWER, 1),
      "gpu_gfx_activity", new Series(Field.UTIL, 1),
      "gpu_used_vram", new Series(Field.MEMORY, 1),
      "gpu_clock", new Series(Field.CLOCK, 1),
      "gpu_umc_activity", new Series(Field.DRAM_ACTIVE, 0.01), // % to 0..1
      "gpu_energy_consumed", new Series(Field.ENERGY, 1e-6)); // µJ
  private static final List<String> AMD_POWER =
      List.of("gpu_package_power", "gpu_power_usage", "gpu_average_package_power");

  private final String displayName;

  GpuKind(String displayName) {
    this.displayName = displayName;
  }

  /** {@code "DCGM"}: the source's name in reports. */
  public String displayName() {
    return displayName;
  }

  /** {@code "dcgm"}, {@code "nvidia-smi"}: the name in summary.json. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The kind of {@code wireName}; null for none. */
  public static GpuKind ofWireName(String wireName) {
    for (GpuKind k : values()) {
      if (k.wireName().equals(wireName)) {
        return k;
      }
    }
    return null;
  }

  /** The exporter whose series the scrape has: DCGM's or AMD's power or energy; null for neither. */
  public static GpuKind detect(Exposition e) {
    for (Exposition.Sample s : e.samples()) {
      if (s.name().equals("DCGM_FI_DEV_POWER_USAGE") || s.name().equals("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")) {
        return DCGM;
      }
      String bare = amdName(s.name());
      if (AMD_POWER.contains(bare) || bare.equals("gpu_energy_consumed")) {
        return AMD;
      }
    }
    return null;
  }

  private static String amdName(String name) {
    return name.startsWith("amd_") ? name.substring(4) : name;
  }

  /**
   * The scrape's GPUs at {@code atNanos}, each keyed by {@code prefix} and its labels. A value
   * several series give for one GPU (MIG instances, one clock per die) is their mean; power is the
   * first of the preferred names that the GPU has.
   */
  public GpuReading read(Exposition e, long atNanos, String prefix) {
    Map<String, Series> names = this == DCGM ? DCGM_SERIES : AMD_SERIES;
    Map<String, EnumMap<Field, double[]>> sums = new LinkedHashMap<>(); // per GPU: {sum, n, power rank}
    for (Exposition.Sample s : e.samples()) {
      String name = this == DCGM ? s.name() : amdName(s.name());
      Series series = names.get(name);
      if (series == null || Double.isNaN(s.value())) {
        continue;
      }
      if (this == AMD && name.equals("gpu_clock")) {
        String type = s.labels().get("clock_type");
        if (type != null && !type.equals("GPU_CLOCK_TYPE_SYSTEM")) {
          continue;
        }
      }
      String key = key(s.labels());
      if (key == null) {
        continue;
      }
      EnumMap<Field, double[]> gpu = sums.computeIfAbsent(prefix + key, k -> new EnumMap<>(Field.class));
      double rank = series.field() == Field.POWER && this == AMD ? AMD_POWER.indexOf(name) : 0;
      double[] acc = gpu.get(series.field());
      if (acc == null || rank < acc[2]) {
        gpu.put(series.field(), new double[] {s.value() * series.scale(), 1, rank});
      } else if (rank == acc[2]) {
        acc[0] += s.value() * series.scale();
        acc[1]++;
      }
    }
    Map<String, GpuReading.Gpu> gpus = new LinkedHashMap<>();
    sums.forEach((key, f) -> gpus.put(key, new GpuReading.Gpu(mean(f, Field.POWER), mean(f, Field.UTIL),
        mean(f, Field.MEMORY), mean(f, Field.CLOCK), mean(f, Field.SM_ACTIVE), mean(f, Field.DRAM_ACTIVE),
        mean(f, Field.ENERGY))));
    return new GpuReading(atNanos, gpus);
  }

  private static double mean(EnumMap<Field, double[]> f, Field field) {
    double[] acc = f.get(field);
    return acc == null ? Double.NaN : acc[0] / acc[1];
  }

  /** {@code "0 GPU-5fd4..."}: the GPU's index and id labels; null for a series of no GPU. */
  private String key(Map<String, String> labels) {
    String index = this == DCGM ? labels.get("gpu") : labels.get("gpu_id");
    String id = this == DCGM ? labels.get("UUID") : labels.getOrDefault("serial_number", labels.get("gpu_uuid"));
    List<String> parts = new ArrayList<>(2);
    if (index != null && !index.isEmpty()) {
      parts.add(index);
    }
    if (id != null && !id.isEmpty()) {
      parts.add(id);
    }
    return parts.isEmpty() ? null : String.join(" ", parts);
  }
}
