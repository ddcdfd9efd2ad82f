package dev.tokenmeter.cli;

import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.EngineProfile;
import dev.tokenmeter.simulator.engine.GpuSpec;
import dev.tokenmeter.simulator.engine.ModelSpec;
import dev.tokenmeter.simulator.engine.Parallelism;
import dev.tokenmeter.simulator.engine.Precision;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.engine.Speculation;
import dev.tokenmeter.simulator.HfConfigs;
import dev.tokenmeter.simulator.SpecFiles;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The simulated deployment: model, accelerator, GPU count, precisions. Shared by commands. */
final class EngineOptions {
  static final String DEFAULT_MODEL = "llama-3.1-8b";
  static final String DEFAULT_GPU = "h100-sxm";

  @Option(names = "--model", paramLabel = "PRESET", description = "Simulated model (default: llama-3.1-8b; `tokenmeter sim presets` lists them), or hf:ORG/NAME: the config.json of that model in the local Hugging Face cache (HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub; never downloaded).")
  String model;

  @Option(names = "--model-file", paramLabel = "FILE", description = "Simulated model from a file instead of a preset: a Hugging Face config.json (or a model folder holding one; Llama, Mistral, Mixtral, Qwen2/3 dense and MoE, DeepSeek-V2/V3, gpt-oss, Llama 4, Gemma 3), or one object of `tokenmeter sim presets --json`'s models, same fields and units.")
  Path modelFile;

  @Option(names = "--gpu", paramLabel = "PRESET", description = "Simulated accelerator (default: h100-sxm).")
  String gpu;

  @Option(names = "--gpu-file", paramLabel = "FILE", description = "Simulated accelerator from a JSON file instead of a preset: one object of `tokenmeter sim presets --json`'s gpus.")
  Path gpuFile;

  @Option(names = "--gpus", paramLabel = "N", description = "GPUs the model is sharded over, tensor parallel (default: ${DEFAULT-VALUE}; up to 64, up to 512 with --dp-attention or --expert-parallel).")
  int gpus = 1;

  @Option(names = {"--expert-parallel", "--ep"}, paramLabel = "P", description = "Expert parallelism: spread a mixture-of-experts model's routed experts over P ranks (dividing --gpus and the experts); each MoE layer then costs a dispatch and a combine all-to-all, as SGLang and vLLM deploy DeepSeek with DeepEP (default: 1, experts tensor-parallel).")
  Integer expertParallel;

  @Option(names = "--dp-attention", paramLabel = "D", arity = "0..1", fallbackValue = "0", description = "Data-parallel attention: D attention groups (default D: every GPU its own) each hold their own sequences, KV cache and whole attention weights, so an MLA latent cache is no longer replicated and KV capacity grows with D (SGLang's --enable-dp-attention --dp-size D).")
  Integer dpAttention;

  @Option(names = "--precision", paramLabel = "P", description = "Weight precision: bf16, fp16, fp8, int8, int4, fp4 (NVFP4), mxfp4 (default: the checkpoint's: bf16 for most presets, fp8 for deepseek-v3/r1, mxfp4 for gpt-oss).")
  String precision;

  @Option(names = {"--kv-precision", "--kv-dtype"}, paramLabel = "P", description = "KV-cache precision: bf16, fp16, fp8 (default: ${DEFAULT-VALUE}).")
  String kvPrecision = "bf16";

  @Option(names = "--engine", paramLabel = "PROFILE", description = "Serving engine simulated: vllm, sglang, trt-llm, lmdeploy (default: ${DEFAULT-VALUE}; `tokenmeter sim presets` lists the profiles).")
  String engine = "vllm";

  @Option(names = "--no-prefix-caching", negatable = false, description = "Turn the simulated engine's prefix cache off (on by default where the engine has one, as in vLLM V1: prompt blocks already in the KV cache skip prefill; lmdeploy has none).")
  boolean noPrefixCaching;

  @Option(names = "--speculative", paramLabel = "KIND", description = "Speculative decoding: mtp (the model's multi-token-prediction layer, DeepSeek-V3/R1), eagle (an EAGLE head), draft (a draft model, --draft-model); needs --spec-tokens and --acceptance. Each decode step verifies 1 + K positions and emits 1 + sum of R^i (i = 1..K) tokens on average.")
  String speculative;

  @Option(names = "--spec-tokens", paramLabel = "K", description = "Draft tokens proposed per decode step, 1-16 (with --speculative).")
  Integer specTokens;

  @Option(names = "--acceptance", paramLabel = "R", description = "Probability each draft token is accepted, in [0, 1] (with --speculative; it depends on the model, the drafter and the text: measure it on your traffic).")
  Double acceptance;

  @Option(names = "--draft-model", paramLabel = "PRESET", description = "The draft model of --speculative draft: a preset, hf:ORG/NAME or a config.json path.")
  String draftModel;

  // Efficiency factors: null keeps EngineConfig's fitted default (`sim presets` prints them).
  @Option(names = "--mfu", paramLabel = "F", description = "Model FLOPs utilisation of compute-bound work: its share of the GPU's achievable matrix rate (datasheet peak x its measured achievable share), in (0, 1] (default: fitted, see `sim presets`).")
  Double mfu;

  @Option(names = "--mbu", paramLabel = "F", description = "Memory bandwidth utilisation streaming weights and KV cache, in (0, 1] (default: fitted).")
  Double mbu;

  @Option(names = "--iteration-overhead", paramLabel = "DURATION", description = "Fixed time each engine iteration adds, e.g. 5ms (default: fitted).")
  String iterationOverhead;

  @Option(names = "--per-sequence-overhead", paramLabel = "DURATION", description = "Time each iteration adds per scheduled sequence, e.g. 80us (default: fitted).")
  String perSequenceOverhead;

  /**
   * The deployment these options describe.
   *
   * @throws UsageException for an unknown preset or precision, or a model that does not fit
   */
  EngineConfig config() {
    boolean spread = expertParallel != null || dpAttention != null;
    int maxGpus = spread ? 512 : 64;
    if (gpus < 1 || gpus > maxGpus) {
      throw new UsageException("--gpus must be between 1 and " + maxGpus + ", got " + gpus
          + (spread ? "" : " (up to 512 with --dp-attention or --expert-parallel)"));
    }
    if ((expertParallel != null && expertParallel < 1) || (dpAttention != null && dpAttention < 0)) {
      throw new UsageException("--expert-parallel and --dp-attention take a number of GPUs >= 1");
    }
    try {
      ModelSpec m = model();
      GpuSpec g = gpu();
      EngineConfig c =
          EngineConfig.of(m, g, EngineProfile.of(engine))
              .withTensorParallel(gpus)
              .withPrecision(
                  precision == null ? m.architecture().nativeWeights() : Precision.parse(precision),
                  Precision.parse(kvPrecision))
              .withPrefixCaching(!noPrefixCaching)
              .withSpeculation(speculation())
              .withParallelism(new Parallelism(
                  dpAttention == null ? 1 : dpAttention == 0 ? gpus : dpAttention,
                  expertParallel == null ? 1 : expertParallel));
      c = withEfficiency(c);
      new dev.tokenmeter.simulator.engine.Roofline(c); // fails now if it does not fit
      return c;
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** The --speculative flags as a {@link Speculation}; NONE without them. */
  private Speculation speculation() {
    if (speculative == null) {
      if (specTokens != null || acceptance != null || draftModel != null) {
        throw new UsageException("--spec-tokens, --acceptance and --draft-model go with --speculative mtp|eagle|draft");
      }
      return Speculation.NONE;
    }
    Speculation.Kind kind = switch (speculative.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "mtp" -> Speculation.Kind.MTP;
      case "eagle" -> Speculation.Kind.EAGLE;
      case "draft" -> Speculation.Kind.DRAFT;
      default -> throw new UsageException("--speculative must be mtp, eagle or draft, got '" + speculative + "'");
    };
    if (specTokens == null || acceptance == null) {
      throw new UsageException("--speculative " + kind.id() + " needs --spec-tokens K and --acceptance R"
          + " (e.g. --spec-tokens 3 --acceptance 0.7)");
    }
    ModelSpec draft = null;
    if (draftModel != null) {
      Path file = Path.of(draftModel);
      draft = draftModel.startsWith("hf:") ? HfConfigs.fromCache(draftModel.substring(3), System.getenv())
          : java.nio.file.Files.exists(file) ? SpecFiles.readModel(file) : Presets.model(draftModel);
    }
    return new Speculation(kind, specTokens, acceptance, draft);
  }

  private ModelSpec model() {
    if (model != null && modelFile != null) {
      throw new UsageException("give --model or --model-file, not both");
    }
    if (modelFile != null) {
      return SpecFiles.readModel(modelFile);
    }
    if (model != null && model.startsWith("hf:")) {
      return HfConfigs.fromCache(model.substring(3), System.getenv());
    }
    return Presets.model(model != null ? model : DEFAULT_MODEL);
  }

  private GpuSpec gpu() {
    if (gpu != null && gpuFile != null) {
      throw new UsageException("give --gpu or --gpu-file, not both");
    }
    return gpuFile != null ? SpecFiles.readGpu(gpuFile) : Presets.gpu(gpu != null ? gpu : DEFAULT_GPU);
  }

  /** {@code c} with the efficiency flags given, each checked and named when out of range. */
  private EngineConfig withEfficiency(EngineConfig c) {
    double flops = share("--mfu", mfu, c.mfu());
    double bandwidth = share("--mbu", mbu, c.mbu());
    long overhead = overhead("--iteration-overhead", iterationOverhead, c.iterationOverheadNanos());
    long perSequence =
        overhead("--per-sequence-overhead", perSequenceOverhead, c.perSequenceOverheadNanos());
    return c.withEfficiency(flops, bandwidth, overhead, perSequence);
  }

  private static double share(String option, Double value, double defaultValue) {
    if (value == null) {
      return defaultValue;
    }
    if (!(value > 0 && value <= 1)) {
      throw new UsageException(option + " must be in (0, 1], got " + value);
    }
    return value;
  }

  private static long overhead(String option, String text, long defaultNanos) {
    if (text == null) {
      return defaultNanos;
    }
    try {
      return Durations.parseNanos(option, text); // ≥ 0 by its grammar
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }
}
