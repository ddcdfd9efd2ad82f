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
              80, 8192, 64, 8, 29568, 152_064, true, 72_706_203_648L, 32_768),
          // 2026 fleets: totals counted from the configs' shapes (HfConfigs; the published
          // totals in docs/PLANNER.md), MTP layers and vision towers not counted
          hf("deepseek-v3", "deepseek-ai/DeepSeek-V3", 61, 7168, 128, 128, 192, 2048, 129_280,
              false, 671_026_419_200L, 37_552_297_472L, 256, 8, 163_840,
              new Architecture("DeepseekV3ForCausalLM", 512, 64, 128, 128, 1, 3, 0, 0,
                  Precision.FP8, false, false, 1536)),
          hf("deepseek-r1", "deepseek-ai/DeepSeek-R1", 61, 7168, 128, 128, 192, 2048, 129_280,
              false, 671_026_419_200L, 37_552_297_472L, 256, 8, 163_840,
              new Architecture("DeepseekV3ForCausalLM", 512, 64, 128, 128, 1, 3, 0, 0,
                  Precision.FP8, false, false, 1536)),
          hf("gpt-oss-120b", "openai/gpt-oss-120b", 36, 2880, 64, 8, 64, 2880, 201_088, true,
              116_829_156_672L, 5_711_982_912L, 128, 4, 131_072,
              new Architecture("GptOssForCausalLM", 0, 0, 0, 0, 0, 0, 18, 128, Precision.MXFP4,
                  true, false)),
          hf("gpt-oss-20b", "openai/gpt-oss-20b", 24, 2880, 64, 8, 64, 2880, 201_088, true,
              20_914_757_184L, 4_187_440_704L, 32, 4, 131_072,
              new Architecture("GptOssForCausalLM", 0, 0, 0, 0, 0, 0, 12, 128, Precision.MXFP4,
                  true, false)),
          hf("qwen3-235b-a22b", "Qwen/Qwen3-235B-A22B", 94, 4096, 64, 4, 128, 1536, 151_936,
              false, 235_093_634_560L, 22_190_763_520L, 128, 8, 40_960,
              family("Qwen3MoeForCausalLM")),
          hf("qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B", 48, 2048, 32, 4, 128, 768, 151_936, false,
              30_532_122_624L, 3_353_032_704L, 128, 8, 40_960, family("Qwen3MoeForCausalLM")),
          hf("qwen3-32b", "Qwen/Qwen3-32B", 64, 5120, 64, 8, 128, 25600, 151_936, false,
              32_762_123_264L, 32_762_123_264L, 1, 1, 40_960, family("Qwen3ForCausalLM")),
          hf("llama-4-scout", "meta-llama/Llama-4-Scout-17B-16E-Instruct", 48, 5120, 40, 8, 128,
              8192, 202_048, false, 107_769_861_120L, 17_172_894_720L, 16, 1, 10_485_760,
              new Architecture("Llama4ForConditionalGeneration", 0, 0, 0, 0, 1, 0, 36, 8192,
                  Precision.BF16, false, false)),
          hf("llama-4-maverick", "meta-llama/Llama-4-Maverick-17B-128E-Instruct", 48, 5120, 40, 8,
              128, 8192, 202_048, false, 400_711_848_960L, 17_184_691_200L, 128, 1, 1_048_576,
              new Architecture("Llama4ForConditionalGeneration", 0, 0, 0, 0, 1, 24, 36, 8192,
                  Precision.BF16, false, false)),
          hf("gemma-3-27b", "google/gemma-3-27b-it", 62, 5376, 32, 16, 128, 21504, 262_208, false,
              27_009_346_304L, 27_009_346_304L, 1, 1, 131_072,
              new Architecture("Gemma3ForConditionalGeneration", 0, 0, 0, 0, 0, 0, 52, 1024,
                  Precision.BF16, false, true)));

  private static final String A100 =
      "NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)";
  private static final String H100 =
      "NVIDIA H100 Tensor Core GPU datasheet (resources.nvidia.com/en-us-tensor-core)";
  private static final String H200 = "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200)";
  private static final String B200 = "NVIDIA HGX B200 datasheet; dense per-GPU figures at 1000 W"
      + " as tabulated at glennklockwood.com/garden/processors/B200";
  private static final String B300 = "NVIDIA HGX B300 datasheet; dense per-GPU figures as"
      + " tabulated at glennklockwood.com/garden/processors/B300 (FP4 dense 13.1 PFLOPS)";
  private static final String GB200 = "NVIDIA GB200 NVL72 datasheet, divided by 72 GPUs (13.4 TB"
      + " HBM3e, 576 TB/s); dense figures at 1200 W from glennklockwood.com/garden/processors/B200";
  private static final String MI355X = "AMD Instinct MI355X data sheet (288 GB HBM3E, 8 TB/s;"
      + " 2.5 / 5.0 / 10.1 PFLOPS dense FP16 / FP8 / MXFP4; boston.co.uk and aiwiki.ai reproduce it)";
  private static final String RTX_PRO_6000 = "NVIDIA RTX PRO 6000 Blackwell Server Edition"
      + " datasheet (96 GB GDDR7, 512-bit at 28 Gbps = 1,792 GB/s; 4,000 AI TOPS FP4 with"
      + " sparsity, halved for dense; FP8 and BF16 each half the rate above)";

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
              "AMD Instinct MI300X data sheet (amd-instinct-mi300x-data-sheet.pdf)"),
          // 2026 fleets; fp4 = dense FP4 tensor peak (NVFP4 / MXFP4), 0 where there is none
          blackwell("b200", "NVIDIA B200 (HGX, 1000 W) 180GB", 180 * GIB, 8_000 * GIGA,
              2_250 * TERA, 4_500 * TERA, 9_000 * TERA, 900 * GIGA, "NVLink 5 (1.8 TB/s)", B200),
          blackwell("b300", "NVIDIA B300 (HGX, Blackwell Ultra) 288GB", 288 * GIB, 8_000 * GIGA,
              2_250 * TERA, 4_500 * TERA, 13_125 * TERA, 900 * GIGA, "NVLink 5 (1.8 TB/s)", B300),
          blackwell("gb200", "NVIDIA GB200 NVL72 (per GPU, 1200 W) 186GB", 186 * GIB, 8_000 * GIGA,
              2_500 * TERA, 5_000 * TERA, 10_000 * TERA, 900 * GIGA,
              "NVLink 5 (1.8 TB/s, 72-GPU domain)", GB200),
          new GpuSpec("mi325x", "AMD Instinct MI325X 256GB", 256 * GIB, 6_000 * GIGA,
              1_307.4 * TERA, 2_614.9 * TERA, 2_614.9 * TERA, 448 * GIGA,
              "Infinity Fabric (7 x 128 GB/s)",
              "AMD Instinct MI325X data sheet (amd.com/en/products/accelerators/instinct/mi300/mi325x)"),
          new GpuSpec("mi355x", "AMD Instinct MI355X 288GB", 288 * GIB, 8_000 * GIGA,
              2_516.6 * TERA, 5_033.2 * TERA, 5_033.2 * TERA, 537.6 * GIGA,
              "Infinity Fabric (7 x 153.6 GB/s)", MI355X, 0, 0, 10_066.3 * TERA),
          new GpuSpec("h20", "NVIDIA H20 96GB", 96 * GIB, 4_000 * GIGA,
              148 * TERA, 296 * TERA, 296 * TERA, 450 * GIGA, "NVLink 4 (900 GB/s)",
              "NVIDIA H20 product brief as reproduced at willitrunai.com/gpus/h20-96gb and"
                  + " zangshuxian.com (148 TFLOPS FP16, 296 FP8/INT8 dense, 4.0 TB/s)"),
          new GpuSpec("rtx-pro-6000", "NVIDIA RTX PRO 6000 Blackwell Server 96GB",
              96 * GIB, 1_792 * GIGA, 503.8 * TERA, 1_007.6 * TERA, 1_007.6 * TERA, 64 * GIGA,
              "PCIe Gen5 x16 (128 GB/s)", RTX_PRO_6000, 0, 0, 2_015.2 * TERA));

  private Presets() {}

  private static GpuSpec blackwell(String id, String name, long memory, double bandwidth,
      double bf16, double fp8, double fp4, double link, String interconnect, String source) {
    return new GpuSpec(id, name, memory, bandwidth, bf16, fp8, fp8, link, interconnect, source, 0,
        0, fp4);
  }

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

  private static ModelSpec hf(String id, String repo, int layers, int hidden, int heads,
      int kvHeads, int headDim, int intermediate, int vocab, boolean bias, long params,
      long active, int experts, int perToken, int context, Architecture architecture) {
    return new ModelSpec(id, repo, layers, hidden, heads, kvHeads, headDim, intermediate, vocab,
        bias, params, active, experts, perToken, context, HF + repo + CONFIG, architecture);
  }

  private static Architecture family(String name) {
    return new Architecture(name, 0, 0, 0, 0, 0, 0, 0, 0, Precision.BF16, false, false);
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
