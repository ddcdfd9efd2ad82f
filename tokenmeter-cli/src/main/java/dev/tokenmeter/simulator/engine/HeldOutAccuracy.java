package dev.tokenmeter.simulator.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How far a prediction of the fitted engine model can be trusted: the accuracy study's
 * leave-one-source-out errors (docs/SIMULATOR.md, Accuracy), over every source and for each source
 * behind an engine profile, so that {@code simulate} prints its error bars beside its numbers.
 * {@code AccuracyFitTest} recomputes every figure here and fails when one differs from the study
 * (to the printed 0.1 point), so a refit cannot leave them stale. Stateless.
 *
 * <pre>
 * design notes
 * - Held out, not in sample: each source's errors come from the factors fitted without it, the
 *   nearest the study gets to a deployment the fit never saw (a new user's).
 * - Which sources stand behind a run: those simulated with its engine profile on its platform
 *   (CUDA or ROCm). The pooled medians are over every figure of every source, as the doc's
 *   headline; a source without a figure of a kind has none listed.
 * - A profile and platform no source measures (SGLang or TensorRT-LLM on ROCm) gets a line saying
 *   so: its factors are the CUDA fit's plus the ROCm extra fitted on vLLM, untested.
 * </pre>
 */
public final class HeldOutAccuracy {

  /** The figures the study compares, with the names {@code simulate} prints. */
  public enum Quantity {
    TPOT("TPOT/ITL", "tpot"),
    THROUGHPUT("output throughput", "output_throughput"),
    TTFT("TTFT", "ttft"),
    TAIL("p99s", "p99");

    private final String label;
    private final String jsonName;

    Quantity(String label, String jsonName) {
      this.label = label;
      this.jsonName = jsonName;
    }

    /** How {@code simulate} names it: {@code "TPOT/ITL"}. */
    public String label() {
      return label;
    }

    /** How summary.json and {@code sim presets --json} name it: {@code "tpot"}. */
    public String jsonName() {
      return jsonName;
    }
  }

  /**
   * Held-out absolute errors of one kind of figure.
   *
   * @param figures how many published figures
   * @param medianPercent median |predicted − published| / published, %
   * @param p90Percent 90th percentile of the same, %
   */
  public record Figure(int figures, double medianPercent, double p90Percent) {}

  /**
   * One source of the study, held out.
   *
   * @param key the source's key in published-points.json
   * @param profile the engine profile its points are simulated with
   * @param platform the platform of its GPUs
   * @param figures its held-out errors by quantity; a quantity it does not publish is absent
   */
  public record Source(String key, String profile, Platform platform, Map<Quantity, Figure> figures) {
    public Source {
      figures = Map.copyOf(figures);
    }
  }

  /** Every source's figures together (the doc's headline table). */
  public static final Map<Quantity, Figure> POOLED = Map.of(
      Quantity.TPOT, new Figure(145, 8.1, 37.9),
      Quantity.THROUGHPUT, new Figure(267, 8.8, 73.1),
      Quantity.TTFT, new Figure(104, 25.0, 78.0),
      Quantity.TAIL, new Figure(163, 10.4, 36.3));

  /** Each source held out (the doc's "By source, held out" table), in the study's order. */
  public static final List<Source> SOURCES = List.of(
      new Source("nim", "trt-llm", Platform.CUDA, Map.of(
          Quantity.TPOT, new Figure(9, 1.6, 4.5),
          Quantity.THROUGHPUT, new Figure(9, 4.7, 5.9),
          Quantity.TTFT, new Figure(9, 6.5, 117.8))),
      new Source("trtllm-0.9", "trt-llm", Platform.CUDA, Map.of(
          Quantity.THROUGHPUT, new Figure(32, 24.3, 94.0),
          Quantity.TTFT, new Figure(16, 20.6, 63.0))),
      new Source("rocm-vllm", "vllm", Platform.ROCM, Map.of(
          Quantity.THROUGHPUT, new Figure(16, 84.4, 138.7))),
      new Source("trtllm-0.6", "trt-llm", Platform.CUDA, Map.of(
          Quantity.THROUGHPUT, new Figure(15, 15.3, 96.2),
          Quantity.TTFT, new Figure(10, 10.9, 28.7))),
      new Source("trtllm-ifb", "trt-llm", Platform.CUDA, Map.of(
          Quantity.THROUGHPUT, new Figure(47, 7.4, 26.1))),
      new Source("datacrunch-sglang", "sglang", Platform.CUDA, Map.of(
          Quantity.TPOT, new Figure(5, 77.7, 318.0),
          Quantity.THROUGHPUT, new Figure(10, 30.1, 55.8),
          Quantity.TTFT, new Figure(5, 36.6, 65.4))),
      new Source("silybench", "vllm", Platform.CUDA, Map.of(
          Quantity.TPOT, new Figure(79, 7.7, 10.1),
          Quantity.THROUGHPUT, new Figure(79, 6.9, 14.0),
          Quantity.TAIL, new Figure(158, 9.9, 37.2))),
      new Source("rtx4090-vllm", "vllm", Platform.CUDA, Map.of(
          Quantity.THROUGHPUT, new Figure(5, 0.8, 3.0),
          Quantity.TTFT, new Figure(10, 108.2, 287.1),
          Quantity.TAIL, new Figure(5, 22.4, 31.3))),
      new Source("gpustack-vllm", "vllm", Platform.CUDA, Map.of(
          Quantity.TPOT, new Figure(7, 7.2, 34.9),
          Quantity.THROUGHPUT, new Figure(8, 13.4, 249.9),
          Quantity.TTFT, new Figure(8, 49.6, 85.3))),
      new Source("gpustack-sglang", "sglang", Platform.CUDA, Map.of(
          Quantity.TPOT, new Figure(5, 22.9, 153.5),
          Quantity.THROUGHPUT, new Figure(6, 51.4, 87.7),
          Quantity.TTFT, new Figure(6, 47.1, 76.3))),
      new Source("lmdeploy", "lmdeploy", Platform.CUDA, Map.of(
          Quantity.TPOT, new Figure(40, 16.9, 45.2),
          Quantity.THROUGHPUT, new Figure(40, 13.7, 30.8),
          Quantity.TTFT, new Figure(40, 16.7, 62.5))));

  /**
   * Errors on published figures of models no fit has seen, simulated at the committed calibration.
   *
   * @param figures how many published figures
   * @param medianPercent median |predicted − published| / published, %
   * @param p90Percent 90th percentile of the same, %
   * @param medianSignedPercent median (predicted − published) / published, %: its sign says which
   *     way the predictions lean
   */
  public record UnseenFigure(int figures, double medianPercent, double p90Percent, double medianSignedPercent) {}

  /**
   * One model no fit has seen, served by one engine profile (docs/ACCURACY.md, Models the fit never
   * saw; {@code UnseenModelsTest} checks every figure against its study).
   *
   * @param model the model preset
   * @param profile the engine profile its source ran
   * @param figures its errors by quantity; a quantity its source does not publish is absent
   */
  public record Unseen(String model, String profile, Map<Quantity, UnseenFigure> figures) {
    public Unseen {
      figures = Map.copyOf(figures);
    }
  }

  /** Every figure of every model no fit has seen. */
  public static final Map<Quantity, UnseenFigure> UNSEEN_POOLED = Map.of(
      Quantity.TPOT, new UnseenFigure(20, 45.1, 71.5, -34.8),
      Quantity.THROUGHPUT, new UnseenFigure(26, 125.4, 271.9, 125.4),
      Quantity.TTFT, new UnseenFigure(26, 58.6, 79.1, -58.6),
      Quantity.TAIL, new UnseenFigure(24, 56.2, 75.7, -56.2));

  /** Each model no fit has seen, by the engine profile its source ran, in the study's order. */
  public static final List<Unseen> UNSEEN = List.of(
      new Unseen("deepseek-r1", "sglang", Map.of(
          Quantity.TPOT, new UnseenFigure(3, 34.3, 251.0, 4.4),
          Quantity.THROUGHPUT, new UnseenFigure(4, 232.6, 271.9, 232.6),
          Quantity.TTFT, new UnseenFigure(4, 70.5, 75.5, -70.5),
          Quantity.TAIL, new UnseenFigure(4, 70.3, 75.7, -70.3))),
      new Unseen("deepseek-r1", "vllm", Map.of(
          Quantity.TPOT, new UnseenFigure(4, 57.8, 71.5, -57.8),
          Quantity.THROUGHPUT, new UnseenFigure(5, 180.8, 895.1, 180.8),
          Quantity.TTFT, new UnseenFigure(5, 69.0, 94.1, -69.0),
          Quantity.TAIL, new UnseenFigure(4, 65.1, 90.0, -65.1))),
      new Unseen("gpt-oss-120b", "vllm", Map.of(
          Quantity.TPOT, new UnseenFigure(4, 47.6, 388.1, 47.6),
          Quantity.THROUGHPUT, new UnseenFigure(5, 131.4, 209.4, 131.4),
          Quantity.TTFT, new UnseenFigure(5, 59.2, 73.5, -59.2),
          Quantity.TAIL, new UnseenFigure(4, 59.9, 67.1, -59.9))),
      new Unseen("gpt-oss-20b", "vllm", Map.of(
          Quantity.TPOT, new UnseenFigure(3, 50.0, 50.1, -50.0),
          Quantity.THROUGHPUT, new UnseenFigure(4, 114.6, 169.8, 114.6),
          Quantity.TTFT, new UnseenFigure(4, 56.5, 71.3, -56.5),
          Quantity.TAIL, new UnseenFigure(4, 53.4, 61.1, -53.4))),
      new Unseen("qwen3-235b-a22b", "vllm", Map.of(
          Quantity.TPOT, new UnseenFigure(6, 34.1, 45.9, -30.8),
          Quantity.THROUGHPUT, new UnseenFigure(8, 77.4, 302.3, 77.4),
          Quantity.TTFT, new UnseenFigure(8, 48.1, 84.0, -48.1),
          Quantity.TAIL, new UnseenFigure(8, 45.0, 75.7, -45.0))));

  private HeldOutAccuracy() {}

  /** The sources simulated with {@code config}'s engine profile on its GPU's platform. */
  public static List<Source> behind(EngineConfig config) {
    Platform platform = Platform.of(config.gpu());
    return SOURCES.stream()
        .filter(s -> s.profile().equals(config.profile().id()) && s.platform() == platform)
        .toList();
  }

  /**
   * What {@code simulate} prints about its own accuracy for {@code config}: the pooled held-out
   * errors, then the sources behind its profile and platform (or that none is).
   */
  public static List<String> describe(EngineConfig config) {
    List<String> lines = new ArrayList<>();
    String pooled = "accuracy, held out by source (docs/SIMULATOR.md Accuracy): median |error| "
        + pooled() + " over " + SOURCES.size() + " sources";
    if (!config.fittedCalibration()) {
      pooled += "; measured at the fitted calibration, which flags override here";
    }
    lines.add(pooled);
    String profile = config.profile().id();
    String platform = platformName(Platform.of(config.gpu()));
    List<Source> behind = behind(config);
    if (behind.isEmpty()) {
      lines.add("accuracy: no source measures the " + profile + " profile on " + platform
          + " GPUs; its overheads are the fit's for the profile plus the platform's extra, untested");
    } else {
      lines.add("accuracy of the " + profile + " profile on " + platform
          + " GPUs, each source held out: " + sources(behind));
    }
    unseenLine(config.model()).ifPresent(lines::add);
    return lines;
  }

  /**
   * Whether {@code m} is of the kind no fit has seen: a fine-grained mixture of experts (16 or
   * more; the fit's only MoE model, Mixtral, has 8) or multi-head latent attention.
   */
  public static boolean unseenKind(ModelSpec m) {
    return m.experts() >= 16 || m.architecture().latentAttention();
  }

  /**
   * What {@code simulate} says of a model no fit has seen: the errors on its own published setups,
   * by engine profile, or those of every such model when it has none; empty for other models.
   */
  public static java.util.Optional<String> unseenLine(ModelSpec m) {
    List<Unseen> own = UNSEEN.stream().filter(u -> u.model().equals(m.id())).toList();
    if (!own.isEmpty()) {
      StringBuilder b = new StringBuilder("accuracy on " + m.id()
          + ", a model no fit has seen, simulated at this calibration against its published setups"
          + " (docs/ACCURACY.md, Models the fit never saw), median signed error (median |error|): ");
      for (int i = 0; i < own.size(); i++) {
        b.append(i == 0 ? "" : "; ").append(own.get(i).profile()).append(' ').append(signed(own.get(i).figures()));
      }
      return java.util.Optional.of(b.append(UNSEEN_READING).toString());
    }
    if (!unseenKind(m)) {
      return java.util.Optional.empty();
    }
    long models = UNSEEN.stream().map(Unseen::model).distinct().count();
    return java.util.Optional.of("accuracy on fine-grained mixture-of-experts and latent-attention models,"
        + " which no fit has seen, simulated at this calibration against " + models + " such models'"
        + " published setups (docs/ACCURACY.md, Models the fit never saw), median signed error (median"
        + " |error|): " + signed(UNSEEN_POOLED) + UNSEEN_READING);
  }

  private static final String UNSEEN_READING =
      ": mostly optimistic, read throughput as high and latencies as low";

  /** {@code "TPOT/ITL -2.4% (18.5%), output throughput +90.1% (90.1%), ..."}. */
  public static String signed(Map<Quantity, UnseenFigure> figures) {
    StringBuilder b = new StringBuilder();
    for (Quantity q : Quantity.values()) {
      UnseenFigure f = figures.get(q);
      if (f != null) {
        b.append(b.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%s %+.1f%% (%.1f%%)",
            q.label(), f.medianSignedPercent(), f.medianPercent()));
      }
    }
    return b.toString();
  }

  /**
   * {@code "TPOT/ITL 8.1% (p90 37.9%), output throughput 8.8% (p90 73.1%), ..."}: every source's
   * figures together.
   */
  public static String pooled() {
    StringBuilder b = new StringBuilder();
    for (Quantity q : Quantity.values()) {
      Figure f = POOLED.get(q);
      b.append(b.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%s %.1f%% (p90 %.1f%%)",
          q.label(), f.medianPercent(), f.p90Percent()));
    }
    return b.toString();
  }

  /**
   * {@code "silybench TPOT/ITL 7.7%, output throughput 6.9%; rtx4090-vllm ..."}: each source's
   * held-out medians, only the quantities it publishes.
   */
  public static String sources(List<Source> sources) {
    StringBuilder b = new StringBuilder();
    for (Source s : sources) {
      b.append(b.isEmpty() ? "" : "; ").append(s.key());
      String sep = " ";
      for (Quantity q : Quantity.values()) {
        Figure f = s.figures().get(q);
        if (f != null) {
          b.append(sep).append(String.format(Locale.ROOT, "%s %.1f%%", q.label(), f.medianPercent()));
          sep = ", ";
        }
      }
    }
    return b.toString();
  }

  /** {@code CUDA} or {@code ROCm}, as the accuracy lines name a platform. */
  public static String platformName(Platform p) {
    return p == Platform.ROCM ? "ROCm" : "CUDA";
  }
}
