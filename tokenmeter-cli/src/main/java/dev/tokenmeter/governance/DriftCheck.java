package dev.tokenmeter.governance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Compares a window of live traffic with a benchmark's workload and decides, per dimension, whether
 * it drifted. Stateless.
 *
 * <p>Decision rules (docs/PROXY.md, "Drift"):
 *
 * <ul>
 *   <li>Input and output lengths: drifted when the two-sample KS test rejects at {@value #ALPHA}
 *       <em>and</em> the PSI over the benchmark's decile bins is at least {@value #PSI_DRIFT}.
 *   <li>Model mix: drifted when the PSI over the models' shares is at least {@value #PSI_DRIFT}.
 *   <li>Concurrency: drifted when the live mean in flight is above {@value #CONCURRENCY_FACTOR}
 *       times the highest stage's achieved concurrency, or below the lowest's divided by it.
 *   <li>Nothing is decided below {@value #MIN_REQUESTS} completed requests.
 * </ul>
 */
public final class DriftCheck {
  /** Significance level of the KS test. */
  public static final double ALPHA = 0.01;
  /** PSI at or above which a shift counts (the conventional "significant" level). */
  public static final double PSI_DRIFT = 0.2;
  /** How far outside the benchmarked concurrency a live mean must be to count. */
  public static final double CONCURRENCY_FACTOR = 1.5;
  /** Completed requests a window needs before anything is decided. */
  public static final int MIN_REQUESTS = 50;

  private DriftCheck() {}

  /** The comparison of {@code live} with {@code baseline}, made at {@code at}. */
  public static DriftReport compare(DriftBaseline baseline, DriftSample live, Instant at) {
    boolean tooFew = live.requests() < MIN_REQUESTS;
    List<DriftReport.Finding> findings = new ArrayList<>();
    lengths(true, baseline.inputTokens(), live.inputTokens(), baseline.inputSpec(), tooFew, findings);
    lengths(false, baseline.outputTokens(), live.outputTokens(), baseline.outputSpec(), tooFew, findings);
    if (!baseline.models().isEmpty() && !live.models().isEmpty()) {
      findings.add(models(baseline.models(), live.models(), tooFew));
    }
    if (!Double.isNaN(live.meanInFlight()) && baseline.concurrencyMax() > 0) {
      double mean = live.meanInFlight();
      boolean out = mean > baseline.concurrencyMax() * CONCURRENCY_FACTOR
          || mean < baseline.concurrencyMin() / CONCURRENCY_FACTOR;
      findings.add(new DriftReport.Concurrency(!tooFew && out, mean, baseline.concurrencyMin(), baseline.concurrencyMax()));
    }
    return new DriftReport(at, live.requests(), findings, tooFew);
  }

  private static void lengths(boolean input, double[] base, double[] live, String spec, boolean tooFew,
      List<DriftReport.Finding> into) {
    if (base.length < 2 || live.length < 2) { // KS needs two values a side
      return;
    }
    DriftStats.Ks ks = DriftStats.ks(base, live);
    DriftStats.Psi psi = DriftStats.psi(base, live);
    boolean drifted = !tooFew && ks.pValue() < ALPHA && psi.value() >= PSI_DRIFT;
    into.add(new DriftReport.Lengths(input, drifted, DriftStats.median(base), DriftStats.median(live), ks, psi, spec));
  }

  private static DriftReport.Models models(Map<String, Long> base, Map<String, Long> live, boolean tooFew) {
    double psi = DriftStats.psi(base, live);
    long elsewhere = 0;
    List<Map.Entry<String, Long>> others = new ArrayList<>();
    for (Map.Entry<String, Long> e : live.entrySet()) {
      if (!base.containsKey(e.getKey())) {
        elsewhere += e.getValue();
        others.add(e);
      }
    }
    others.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
    double total = live.values().stream().mapToLong(Long::longValue).sum();
    return new DriftReport.Models(!tooFew && psi >= PSI_DRIFT, psi, elsewhere / total,
        others.stream().map(Map.Entry::getKey).toList());
  }
}
