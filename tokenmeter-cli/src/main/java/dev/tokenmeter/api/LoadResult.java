package dev.tokenmeter.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;

/**
 * The result of a {@link LoadTest}: its {@code summary.json} (fields in docs/METRICS.md), the
 * bench's exit code and its output. Immutable.
 *
 * <pre>{@code
 * LoadResult r = LoadTest.against(url).slo("ttft.p99<=800ms").run();
 * assertTrue(r.sloMet(), r.describe());   // the figures in the failure message
 * assertEquals(0, r.failed());
 * }</pre>
 *
 * @param summary the run's summary.json
 * @param exitCode the bench's exit code: 0, or 3 when an SLO was missed
 * @param output what the bench printed
 * @param dir the run's folder (summary.json, requests.jsonl, report.html)
 */
public record LoadResult(JsonNode summary, int exitCode, String output, Path dir) {

  /** The last stage of the run (a plain run has one): docs/METRICS.md's stage fields. */
  public JsonNode stage() {
    JsonNode stages = summary.path("stages");
    return stages.isArray() && !stages.isEmpty() ? stages.get(stages.size() - 1) : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  /** Whether every {@code slo} given was met in every stage (summary.json {@code slo.passed}; true when none was given). */
  public boolean sloMet() {
    JsonNode slo = summary.path("slo");
    return slo.isObject() ? slo.path("passed").asBoolean() : exitCode == 0;
  }

  /**
   * TTFT from the send in ms at {@code stat} ({@code stages[].metrics.ttft_ms}): min, mean, p1,
   * p5, p10, p50, p90, p95, p99, p999 or max; NaN when no request of the window succeeded.
   */
  public double ttftMillis(String stat) {
    return metric("ttft_ms", stat);
  }

  /** Any figure of the last stage's {@code metrics} (docs/METRICS.md), e.g. {@code metric("e2e_ms", "p99")}. */
  public double metric(String name, String stat) {
    JsonNode v = stage().path("metrics").path(name).path(stat);
    return v.isNumber() ? v.asDouble() : Double.NaN;
  }

  /** Time per output token in ms at {@code stat} (as {@link #ttftMillis}). */
  public double tpotMillis(String stat) {
    return metric("tpot_ms", stat);
  }

  /** Aggregate output tokens per second in the measurement window. */
  public double outputTokensPerSecond() {
    return stage().path("throughput").path("output_tokens_per_s").asDouble(Double.NaN);
  }

  /** Requests of the measurement window that completed. */
  public long completed() {
    return stage().path("requests").path("completed").asLong();
  }

  /** Requests of the window that failed (any class: HTTP status, timeout, protocol, truncated). */
  public long failed() {
    return stage().path("requests").path("failed").asLong();
  }

  /** One paragraph with the figures, for a failure message. */
  public String describe() {
    return String.format(java.util.Locale.ROOT,
        "tokenmeter bench (%s): %d completed, %d failed; TTFT p50 %.1f ms, p99 %.1f ms; TPOT p50 %.2f ms;"
            + " output %.1f tokens/s; files in %s%n%s",
        sloMet() ? "SLO met" : "SLO missed", completed(), failed(), ttftMillis("p50"), ttftMillis("p99"),
        tpotMillis("p50"), outputTokensPerSecond(), dir, output.strip());
  }
}
