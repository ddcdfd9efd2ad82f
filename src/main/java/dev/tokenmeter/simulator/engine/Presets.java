package dev.tokenmeter.simulator.engine;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Built-in model and accelerator specs; every figure and its source is listed in
 * docs/SIMULATOR.md. Immutable, thread-safe.
 */
public final class Presets {
  private static final long GIB = 1L << 30;
  private static final double TERA = 1e12;
  private static final double GIGA = 1e9;

  private static final String HF = "https://huggingface.co/";
  private static final String CONFIG = "/blob/main/config.json";

  private static final List<ModelSpec> MODELS =
      List.of(
          dense("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct",
              32, 4096, 32, 8, 14336, 128_256, false, 8_030_261_248L, 131_072),
          dense("llama-3.1-70b", "meta-llama/Llama-3.1-70B-Instruct",
              80, 8192, 64, 8, 28672, 128_256, false, 70_553_706_496L, 131_072),
          dense("mistral-7b", "mistralai/Mistral-7B-Instruct-v0.3",
              32, 4096, 32, 8, 14336, 32_768, false, 7_248_023_552L, 32_768),
          new ModelSpec("mixtral-8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1",
              32, 4096, 32, 8, 128, 14336, 32_000, false,
              46_702_792_704L, 12_879_925_248L, 8, 2, 32_768,
              HF + "mistralai/Mixtral-8x7B-Instruct-v0.1" + CONFIG),
          dense("qwen2.5-7b", "Qwen/Qwen2.5-7B-Instruct",
              28, 3584, 28, 4, 18944, 152_064, true, 7_615_616_512L, 32_768),
          dense("qwen2.5-72b", "Qwen/Qwen2.5-72B-Instruct",
              80, 8192, 64, 8, 29568, 152_064, true, 72_706_203_648L, 32_768));

  private static final String A100 =
      "NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)";
  private static final String H100 =
      "NVIDIA H100 Tensor Core GPU datasheet (resources.nvidia.com/en-us-tensor-core)";
  private static final String H200 = "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200)";

  private static final List<GpuSpec> GPUS =
      List.of(
          new GpuSpec("a100-40gb", "NVIDIA A100 40GB SXM", 40 * GIB, 1_555 * GIGA,
              312 * TERA, 0, 624 * TERA, 300 * GIGA, "NVLink 3 (600 GB/s)", A100),
          new GpuSpec("a100-80gb", "NVIDIA A100 80GB SXM", 80 * GIB, 2_039 * GIGA,
              312 * TERA, 0, 624 * TERA, 300 * GIGA, "NVLink 3 (600 GB/s)", A100),
          new GpuSpec("h100-sxm", "NVIDIA H100 SXM5 80GB", 80 * GIB, 3_350 * GIGA,
              989.4 * TERA, 1_978.9 * TERA, 1_978.9 * TERA, 450 * GIGA, "NVLink 4 (900 GB/s)",
              H100),
          new GpuSpec("h100-pcie", "NVIDIA H100 PCIe 80GB", 80 * GIB, 2_000 * GIGA,
              756.5 * TERA, 1_513 * TERA, 1_513 * TERA, 64 * GIGA, "PCIe Gen5 x16 (128 GB/s)",
              H100),
          new GpuSpec("h200", "NVIDIA H200 SXM 141GB", 141 * GIB, 4_800 * GIGA,
              989.4 * TERA, 1_978.9 * TERA, 1_978.9 * TERA, 450 * GIGA, "NVLink 4 (900 GB/s)",
              H200),
          new GpuSpec("l40s", "NVIDIA L40S 48GB", 48 * GIB, 864 * GIGA,
              362.05 * TERA, 733 * TERA, 733 * TERA, 32 * GIGA, "PCIe Gen4 x16 (64 GB/s)",
              "NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s)"),
          new GpuSpec("l4", "NVIDIA L4 24GB", 24 * GIB, 300 * GIGA,
              121 * TERA, 242.5 * TERA, 242.5 * TERA, 32 * GIGA, "PCIe Gen4 x16 (64 GB/s)",
              "NVIDIA L4 datasheet (nvidia.com/en-us/data-center/l4)"),
          new GpuSpec("mi300x", "AMD Instinct MI300X 192GB", 192 * GIB, 5_300 * GIGA,
              1_307.4 * TERA, 2_614.9 * TERA, 2_614.9 * TERA, 448 * GIGA,
              "Infinity Fabric (7 x 128 GB/s)",
              "AMD Instinct MI300X data sheet (amd-instinct-mi300x-data-sheet.pdf)"));

  private Presets() {}

  private static ModelSpec dense(
      String id,
      String repo,
      int layers,
      int hidden,
      int heads,
      int kvHeads,
      int intermediate,
      int vocab,
      boolean bias,
      long params,
      int context) {
    return new ModelSpec(id, repo, layers, hidden, heads, kvHeads, hidden / heads, intermediate,
        vocab, bias, params, params, 1, 1, context, HF + repo + CONFIG);
  }

  /** Every model preset, in a stable order. */
  public static List<ModelSpec> models() {
    return MODELS;
  }

  /** Every accelerator preset, in a stable order. */
  public static List<GpuSpec> gpus() {
    return GPUS;
  }

  /**
   * The model preset with this id (any case).
   *
   * @throws IllegalArgumentException naming the known ids when there is none
   */
  public static ModelSpec model(String id) {
    String key = id.trim().toLowerCase(Locale.ROOT);
    return MODELS.stream()
        .filter(m -> m.id().equals(key))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown model '" + id + "'; presets: "
                        + MODELS.stream().map(ModelSpec::id).collect(Collectors.joining(", "))));
  }

  /**
   * The accelerator preset with this id (any case).
   *
   * @throws IllegalArgumentException naming the known ids when there is none
   */
  public static GpuSpec gpu(String id) {
    String key = id.trim().toLowerCase(Locale.ROOT);
    return GPUS.stream()
        .filter(g -> g.id().equals(key))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown GPU '" + id + "'; presets: "
                        + GPUS.stream().map(GpuSpec::id).collect(Collectors.joining(", "))));
  }
}
