package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.Repeats;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What {@link SummaryJsonReader} reads back from a {@code summary.json}: the headline numbers and
 * the histograms, enough to merge, compare and re-render runs. Missing numbers ({@code null} in
 * JSON) are NaN. Histograms must not be modified.
 *
 * @param schemaVersion the file's {@code schema_version}
 * @param partialReason {@code "interrupted"}, {@code "error"}, or null when complete
 * @param partialDetail why the run is partial, in words; null when complete
 * @param simulation {@code settings.simulation}: null for a measured run
 * @param repeats {@code repeats} ({@code --repeat N}): per planned stage the mean and interval of
 *     the headline metrics over its repeats; null without repeats
 * @param pricing {@code pricing}: the prices the stages were costed with; null without prices
 */
public record SavedSummary(
    String schemaVersion,
    String toolName,
    String toolVersion,
    Instant startedAt,
    Instant endedAt,
    String targetUrl,
    String api,
    String model,
    boolean partial,
    String partialReason,
    List<Stage> stages,
    String partialDetail,
    Simulation simulation,
    Repeats repeats,
    Cost.Model pricing) {

  public SavedSummary {
    stages = List.copyOf(stages);
  }

  /** Without repeats and pricing. */
  public SavedSummary(
      String schemaVersion,
      String toolName,
      String toolVersion,
      Instant startedAt,
      Instant endedAt,
      String targetUrl,
      String api,
      String model,
      boolean partial,
      String partialReason,
      List<Stage> stages,
      String partialDetail,
      Simulation simulation) {
    this(schemaVersion, toolName, toolVersion, startedAt, endedAt, targetUrl, api, model, partial,
        partialReason, stages, partialDetail, simulation, null, null);
  }

  /** The headline fields only: a measured run, no partial detail. */
  public SavedSummary(
      String schemaVersion,
      String toolName,
      String toolVersion,
      Instant startedAt,
      Instant endedAt,
      String targetUrl,
      String api,
      String model,
      boolean partial,
      String partialReason,
      List<Stage> stages) {
    this(schemaVersion, toolName, toolVersion, startedAt, endedAt, targetUrl, api, model, partial,
        partialReason, stages, null, null, null, null);
  }

  /**
   * The stage whose {@link Stage#index()} is {@code index}.
   *
   * @throws IllegalArgumentException when there is none
   */
  public Stage stage(int index) {
    for (Stage st : stages) {
      if (st.index() == index) {
        return st;
      }
    }
    throw new IllegalArgumentException("no stage " + index);
  }

  /** Whether the times and rates are predictions of {@code tokenmeter simulate}, not measurements. */
  public boolean simulated() {
    return simulation != null;
  }

  /**
   * One stage's headline numbers.
   *
   * @param metrics distributions of {@code stages[].metrics} by key ({@code "ttft_ms"})
   * @param errors failed measured requests by error class wire name
   * @param histograms {@code stages[].histograms}, decoded, in each metric's recorded unit
   * @param detail the stage's plan, window, series and client health; {@link StageDetail#NONE}
   *     when built from the headline numbers only
   */
  public record Stage(
      int index,
      String label,
      Map<String, Distribution> metrics,
      double outputTokensPerSecond,
      double inputTokensPerSecond,
      double requestsPerSecond,
      double achievedConcurrency,
      long completed,
      long failed,
      Map<String, Long> errors,
      boolean steadyStateReached,
      Map<Metric, Histogram> histograms,
      StageDetail detail) {

    public Stage {
      metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
      errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
      histograms = Collections.unmodifiableMap(new LinkedHashMap<>(histograms));
      detail = detail == null ? StageDetail.NONE : detail;
    }

    /** The headline numbers only ({@link StageDetail#NONE}). */
    public Stage(
        int index,
        String label,
        Map<String, Distribution> metrics,
        double outputTokensPerSecond,
        double inputTokensPerSecond,
        double requestsPerSecond,
        double achievedConcurrency,
        long completed,
        long failed,
        Map<String, Long> errors,
        boolean steadyStateReached,
        Map<Metric, Histogram> histograms) {
      this(index, label, metrics, outputTokensPerSecond, inputTokensPerSecond, requestsPerSecond,
          achievedConcurrency, completed, failed, errors, steadyStateReached, histograms, null);
    }
  }

  /**
   * {@code settings.simulation}, the parts a report names.
   *
   * @param note the file's own warning that nothing here was measured
   * @param gpus GPUs the model is sharded over
   * @param simulatedSeconds virtual time simulated
   * @param accuracy the model's held-out errors over every source, in one sentence ({@code
   *     engine.accuracy}); null when the file has none (before schema 1.6)
   */
  public record Simulation(
      String note, String model, String gpu, int gpus, double simulatedSeconds, String accuracy) {}
}
