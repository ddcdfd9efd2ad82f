package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
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
    List<Stage> stages) {

  public SavedSummary {
    stages = List.copyOf(stages);
  }

  /**
   * One stage's headline numbers.
   *
   * @param metrics distributions of {@code stages[].metrics} by key ({@code "ttft_ms"})
   * @param errors failed measured requests by error class wire name
   * @param histograms {@code stages[].histograms}, decoded, in each metric's recorded unit
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
      Map<Metric, Histogram> histograms) {

    public Stage {
      metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
      errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
      histograms = Collections.unmodifiableMap(new LinkedHashMap<>(histograms));
    }
  }
}
