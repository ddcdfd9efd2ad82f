package dev.tokenmeter.cli;

import dev.tokenmeter.governance.DriftBaseline;
import dev.tokenmeter.governance.DriftMonitor;
import dev.tokenmeter.report.BenchWorkload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** The proxy's drift flags: {@code --baseline DIR} read into a workload, {@code --drift-window}. */
final class DriftOptions {
  private DriftOptions() {}

  /**
   * The workload of the bench run in {@code dir}.
   *
   * @throws UsageException naming the folder and the fix when it is not a bench run with lengths
   */
  static DriftBaseline baseline(Path dir) {
    BenchWorkload w;
    try {
      w = BenchWorkload.read(dir);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    if (w.inputTokens().length < 2 && w.outputTokens().length < 2) {
      throw new UsageException("--baseline " + dir + ": the run recorded fewer than 2 completed requests' lengths;"
          + " name a bench run that completed requests");
    }
    long n = Math.max(w.inputTokens().length, w.outputTokens().length);
    double min = w.achievedConcurrency().stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double max = w.achievedConcurrency().stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    return new DriftBaseline(w.inputTokens(), w.outputTokens(), w.model() == null ? Map.of() : Map.of(w.model(), n),
        min, max, plain(w.inputSpec()), plain(w.outputSpec()), w.source().toString());
  }

  /** A length option as the user wrote it, or null for a --workload profile's (the median says it better). */
  private static String plain(String specOrNull) {
    return specOrNull == null || specOrNull.startsWith(WorkloadOptions.FROM_PROFILE) ? null : specOrNull;
  }

  /** The --drift-window flag, 15 minutes when not given. */
  static Duration window(String flagOrNull) {
    if (flagOrNull == null) {
      return DriftMonitor.Settings.DEFAULT.window();
    }
    long nanos = Durations.parseNanos("--drift-window", flagOrNull);
    if (nanos <= 0) {
      throw new UsageException("--drift-window must be positive, e.g. 15m");
    }
    return Duration.ofNanos(nanos);
  }
}
