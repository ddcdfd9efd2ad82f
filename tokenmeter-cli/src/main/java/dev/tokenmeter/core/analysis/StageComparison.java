package dev.tokenmeter.core.analysis;

import dev.tokenmeter.core.stats.BlockBootstrap;
import dev.tokenmeter.core.stats.FisherExact;
import dev.tokenmeter.core.stats.Holm;
import dev.tokenmeter.core.stats.MannWhitney;
import dev.tokenmeter.core.stats.QuantileBootstrap;
import dev.tokenmeter.core.stats.Welch;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Two runs' stage side by side, every {@link ComparedQuantity} with its change and whether the
 * change is significant. Immutable; computed by {@link #of}.
 *
 * <p>Tests, per row (docs/METRICS.md, "Comparing runs"), on independent units ({@link
 * ComparisonUnits}): runs when both sides pooled repeats, else blocks of time, since requests of one
 * run share the server's state and are not independent draws:
 *
 * <ul>
 *   <li>runs: every percentile row by Welch's t-test over the runs' own percentiles (the p-value
 *       and the interval of the change of their mean);
 *   <li>blocks, p50 of TTFT, TPOT, E2E, decode TPS: Welch's t-test over the blocks' medians, with a
 *       block-bootstrap interval of the change in median;
 *   <li>blocks, p99 (p10 for decode TPS, its slow tail): a block bootstrap of the percentile's
 *       change ({@link BlockBootstrap}), its p-value and interval; not done when either run has
 *       fewer than {@value QuantileBootstrap#MIN_TAIL} requests beyond the percentile (p99 needs
 *       500);
 *   <li>no request times (a sample built by hand): the requests as independent samples, as before
 *       (Mann-Whitney U for p50, a bootstrap of requests for tails), and the basis says so;
 *   <li>error rate: Fisher's exact test over requests;
 *   <li>ITL (per token, not independent), output tokens/s and requests/s (one value per run):
 *       not tested. A throughput interval needs repeated runs.
 * </ul>
 *
 * P-values are adjusted with {@link Holm} over the rows tested in the stage, and a row is
 * significant when its adjusted p-value is below α. The interval is at level 1 − α, unadjusted.
 * A significant change of a percentile smaller than {@link Settings#minChangePercent()} of the
 * baseline is {@link Verdict#NEGLIGIBLE}: with thousands of requests (or a deterministic
 * simulator) a 0.3% shift is real but nobody would act on it.
 *
 * @param label the stage's load label
 * @param a the baseline's stage
 * @param b the compared run's stage
 * @param rows one per {@link ComparedQuantity}, in its order
 */
public record StageComparison(String label, StageSample a, StageSample b, List<Row> rows) {

  public StageComparison {
    rows = List.copyOf(rows);
  }

  /**
   * How a comparison is computed.
   *
   * @param alpha significance level, after Holm's correction
   * @param resamples bootstrap resamples (the smallest bootstrap p-value is 2/(resamples+1))
   * @param seed bootstrap seed
   * @param minChangePercent smallest change of a percentile, in percent of the baseline's value,
   *     that counts as better or worse when significant; smaller ones are negligible
   */
  public record Settings(double alpha, int resamples, long seed, double minChangePercent) {
    /** α 0.05, 1,000 bootstrap resamples, seed 1, changes under 1% negligible. */
    public static final Settings DEFAULT = new Settings(0.05, 1_000, 1, 1.0);

    public Settings {
      if (!(alpha > 0 && alpha < 1)) {
        throw new IllegalArgumentException("alpha must lie between 0 and 1, got " + alpha);
      }
      if (resamples < 100) {
        throw new IllegalArgumentException("at least 100 bootstrap resamples, got " + resamples);
      }
      if (!(minChangePercent >= 0)) {
        throw new IllegalArgumentException("the smallest change must be 0% or more, got " + minChangePercent);
      }
    }
  }

  /** How a row was tested. */
  public enum Method {
    /** Welch's t-test over units (runs' percentiles, blocks' medians). */
    WELCH,
    /** A bootstrap drawing whole blocks of time. */
    BLOCK_BOOTSTRAP,
    MANN_WHITNEY,
    BOOTSTRAP,
    FISHER_EXACT,
    NONE;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The row's verdict. */
  public enum Verdict {
    /** B is significantly better. */
    BETTER,
    /** B is significantly worse. */
    WORSE,
    /** Significant, but smaller than {@link Settings#minChangePercent()}. */
    NEGLIGIBLE,
    NO_SIGNIFICANT_DIFFERENCE,
    NOT_TESTED
  }

  /**
   * The test behind a row.
   *
   * @param method how it was tested
   * @param pValue two-sided p-value, NaN when not tested
   * @param pAdjusted Holm-adjusted p-value over the stage's tested rows
   * @param estimate the change B − A of the row's percentile on the per-request values (exact, where
   *     the headline values come from histograms, within 0.1%), NaN when not tested
   * @param ciLow lower end of the interval of the change B − A (row unit), NaN when none
   * @param ciHigh upper end
   * @param commonLanguage Mann-Whitney rows: {@code P(B > A) + ½P(B = A)}, else NaN
   * @param note why the row was not tested, null when it was
   * @param basis what the p-value rests on ({@link ComparisonUnits#basis()}: {@code "5 runs per
   *     side"}, {@code "12 one-second blocks per side"}, {@code "requests"} for the error rate);
   *     null when not tested
   */
  public record Test(
      Method method,
      double pValue,
      double pAdjusted,
      double estimate,
      double ciLow,
      double ciHigh,
      double commonLanguage,
      String note,
      String basis) {
    /** A test with no stated basis. */
    public Test(Method method, double pValue, double pAdjusted, double estimate, double ciLow,
        double ciHigh, double commonLanguage, String note) {
      this(method, pValue, pAdjusted, estimate, ciLow, ciHigh, commonLanguage, note, null);
    }

    static Test none(String note) {
      return new Test(Method.NONE, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
          Double.NaN, note, null);
    }

    Test adjusted(double p) {
      return new Test(method, pValue, p, estimate, ciLow, ciHigh, commonLanguage, note, basis);
    }

    Test on(String basis) {
      return new Test(method, pValue, pAdjusted, estimate, ciLow, ciHigh, commonLanguage, note, basis);
    }
  }

  /**
   * One row.
   *
   * @param quantity what is compared
   * @param a the baseline's value (headline, from its histogram)
   * @param b the compared run's value
   * @param test the test
   * @param larger whether B is larger (by the test's own estimate: the sign of the common-language
   *     effect − ½, of the bootstrap estimate, or of the rate difference)
   * @param verdict the verdict at α
   */
  public record Row(
      ComparedQuantity quantity, double a, double b, Test test, boolean larger, Verdict verdict) {
    /** {@code b − a}. */
    public double change() {
      return b - a;
    }

    /** {@code (b − a)/a} in percent; NaN when a is 0 or missing. */
    public double changePercent() {
      return a == 0 || Double.isNaN(a) ? Double.NaN : 100 * (b - a) / a;
    }
  }

  /**
   * What the stage's percentile p-values rest on ({@code "12 one-second blocks per side"}, {@code
   * "5 runs per side"}), the distinct bases of its tested rows joined by "; "; null when no
   * percentile row was tested. The error rate rests on requests, always.
   */
  public String basis() {
    String joined = rows.stream()
        .filter(r -> r.quantity().metric() != null && r.test().basis() != null)
        .map(r -> r.test().basis())
        .distinct()
        .collect(java.util.stream.Collectors.joining("; "));
    return joined.isEmpty() ? null : joined;
  }

  /** Compares stage {@code b} to the baseline {@code a}. */
  public static StageComparison of(StageSample a, StageSample b, Settings settings) {
    Objects.requireNonNull(settings, "settings");
    ComparedQuantity[] all = ComparedQuantity.values();
    Test[] tests = new Test[all.length];
    boolean[] larger = new boolean[all.length];
    double[] p = new double[all.length];
    for (ComparedQuantity q : all) {
      int i = q.ordinal();
      tests[i] = test(q, a, b, settings);
      larger[i] = larger(q, a, b, tests[i]);
      p[i] = tests[i].pValue();
    }
    double[] adjusted = Holm.adjust(p);
    List<Row> rows = new ArrayList<>();
    for (ComparedQuantity q : all) {
      int i = q.ordinal();
      Test t = tests[i].adjusted(adjusted[i]);
      double va = a.value(q);
      rows.add(new Row(q, va, b.value(q), t, larger[i], verdict(q, va, t, larger[i], settings)));
    }
    return new StageComparison(a.label(), a, b, rows);
  }

  private static Test test(ComparedQuantity q, StageSample a, StageSample b, Settings s) {
    if (q == ComparedQuantity.ERROR_RATE) {
      double p = FisherExact.twoSided(a.failed(), a.completed() + a.failed(), b.failed(),
          b.completed() + b.failed());
      return Double.isNaN(p) ? Test.none("no requests")
          : new Test(Method.FISHER_EXACT, p, p, b.errorRatePercent() - a.errorRatePercent(),
              Double.NaN, Double.NaN, Double.NaN, null, "requests");
    }
    if (q.metric() == null) {
      return Test.none("one value per run; repeat the runs for an interval");
    }
    if (q.metric() == Metric.ITL) {
      return Test.none("per token, not independent; see TPOT");
    }
    double[] va = a.perRequest().get(q.metric());
    double[] vb = b.perRequest().get(q.metric());
    if (va == null || vb == null || va.length == 0 || vb.length == 0) {
      return Test.none("no per-request values");
    }
    long seed = s.seed() * 31 + q.ordinal();
    ComparisonUnits units = ComparisonUnits.of(a, b, q.metric());
    if (!units.enough()) {
      return Test.none(units.tooFew());
    }
    Test t = switch (units.kind()) {
      case RUNS -> onRuns(q, va, vb, units, s);
      case BLOCKS -> onBlocks(q, va, vb, units, s, seed);
      case REQUESTS -> onRequests(q, va, vb, s, seed);
    };
    return t.method() == Method.NONE ? t : t.on(units.basis());
  }

  /** Welch's t-test over the runs' own {@code q}-percentiles. */
  private static Test onRuns(ComparedQuantity q, double[] va, double[] vb, ComparisonUnits u, Settings s) {
    Welch.Result w = Welch.test(ComparisonUnits.perUnit(va, u.unitOfA(), u.unitsA(), q.quantile()),
        ComparisonUnits.perUnit(vb, u.unitOfB(), u.unitsB(), q.quantile()), 1 - s.alpha());
    return new Test(Method.WELCH, w.pValue(), w.pValue(), w.difference(), w.low(), w.high(), Double.NaN, null);
  }

  /** p50: Welch over the blocks' medians, block-bootstrap interval; tails: block bootstrap. */
  private static Test onBlocks(
      ComparedQuantity q, double[] va, double[] vb, ComparisonUnits u, Settings s, long seed) {
    if (q.quantile() != 0.5 && !QuantileBootstrap.enoughFor(Math.min(va.length, vb.length), q.quantile())) {
      return tooFewForTail(q);
    }
    QuantileBootstrap.Interval ci = BlockBootstrap.difference(
        va, u.unitOfA(), vb, u.unitOfB(), q.quantile(), 1 - s.alpha(), s.resamples(), seed);
    if (q.quantile() != 0.5) {
      return new Test(Method.BLOCK_BOOTSTRAP, ci.pValue(), ci.pValue(), ci.estimate(), ci.low(), ci.high(),
          Double.NaN, null);
    }
    Welch.Result w = Welch.test(ComparisonUnits.perUnit(va, u.unitOfA(), u.unitsA(), 0.5),
        ComparisonUnits.perUnit(vb, u.unitOfB(), u.unitsB(), 0.5), 1 - s.alpha());
    return new Test(Method.WELCH, w.pValue(), w.pValue(), ci.estimate(), ci.low(), ci.high(), Double.NaN, null);
  }

  /** Requests as independent samples: Mann-Whitney U for p50, a bootstrap of requests for tails. */
  private static Test onRequests(ComparedQuantity q, double[] va, double[] vb, Settings s, long seed) {
    if (q.quantile() == 0.5) {
      MannWhitney.Result mw = MannWhitney.test(va, vb);
      QuantileBootstrap.Interval ci =
          QuantileBootstrap.difference(va, vb, 0.5, 1 - s.alpha(), s.resamples(), seed);
      return new Test(Method.MANN_WHITNEY, mw.pValue(), mw.pValue(), ci.estimate(), ci.low(), ci.high(),
          mw.commonLanguage(), null);
    }
    if (!QuantileBootstrap.enoughFor(Math.min(va.length, vb.length), q.quantile())) {
      return tooFewForTail(q);
    }
    QuantileBootstrap.Interval ci =
        QuantileBootstrap.difference(va, vb, q.quantile(), 1 - s.alpha(), s.resamples(), seed);
    return new Test(Method.BOOTSTRAP, ci.pValue(), ci.pValue(), ci.estimate(), ci.low(), ci.high(),
        Double.NaN, null);
  }

  private static Test tooFewForTail(ComparedQuantity q) {
    int need = (int) Math.ceil(QuantileBootstrap.MIN_TAIL / Math.min(q.quantile(), 1 - q.quantile()));
    return Test.none("too few requests for a " + q.title().replaceAll(".* ", "") + " test (needs "
        + need + " per run)");
  }

  private static boolean larger(ComparedQuantity q, StageSample a, StageSample b, Test t) {
    return switch (t.method()) {
      case MANN_WHITNEY -> t.commonLanguage() > 0.5;
      case WELCH, BLOCK_BOOTSTRAP, BOOTSTRAP, FISHER_EXACT -> t.estimate() > 0;
      case NONE -> b.value(q) > a.value(q);
    };
  }

  private static Verdict verdict(
      ComparedQuantity q, double baseline, Test t, boolean larger, Settings s) {
    if (t.method() == Method.NONE) {
      return Verdict.NOT_TESTED;
    }
    if (!(t.pAdjusted() < s.alpha())) {
      return Verdict.NO_SIGNIFICANT_DIFFERENCE;
    }
    if (q.metric() != null && Math.abs(t.estimate()) < s.minChangePercent() / 100 * Math.abs(baseline)) {
      return Verdict.NEGLIGIBLE;
    }
    boolean largerIsBetter = q.direction() == ComparedQuantity.Direction.HIGHER_IS_BETTER;
    return larger == largerIsBetter ? Verdict.BETTER : Verdict.WORSE;
  }
}
