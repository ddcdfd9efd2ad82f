package dev.tokenmeter.core.analysis;

import java.util.List;
import java.util.OptionalDouble;

/**
 * The search for the highest load that meets an SLO: probe {@code start}; while probes pass, double
 * the load (capped at {@code limit}); after the first failure, bisect between the highest passing
 * load and the lowest failing one until they are adjacent integers (concurrency) or within {@code
 * relativePrecision} of each other (rates). Pure: the next probe is a function of the probes so
 * far, so a run can be replayed. Immutable and thread-safe.
 *
 * <p>Probes: with {@code start} 1 and SLO met up to 37, {@code 1 2 4 8 16 32 64 48 40 36 38 37}.
 * A curve that is not monotone (a pass above a fail) is searched below the lowest failure only: the
 * answer is the highest passing load below the lowest failing one.
 *
 * @param start first load probed (≥ 1 for concurrency, > 0 for rates)
 * @param limit highest load probed
 * @param integer true for concurrency (whole users), false for rates
 * @param relativePrecision rates: stop when {@code fail − pass ≤ relativePrecision × pass}
 * @param maxProbes most probes run, whatever the precision reached
 */
public record LoadSearch(double start, double limit, boolean integer, double relativePrecision, int maxProbes) {

  public LoadSearch {
    if (!(start > 0) || !(limit >= start) || Double.isInfinite(limit)) {
      throw new IllegalArgumentException("search bounds must satisfy 0 < start <= limit, got " + start + ".." + limit);
    }
    if (integer && (start != Math.rint(start) || limit != Math.rint(limit))) {
      throw new IllegalArgumentException("concurrency bounds must be whole numbers, got " + start + ".." + limit);
    }
    if (!integer && !(relativePrecision > 0)) {
      throw new IllegalArgumentException("precision must be positive, got " + relativePrecision);
    }
    if (maxProbes < 1) {
      throw new IllegalArgumentException("at least one probe, got " + maxProbes);
    }
  }

  /** A probe's load and whether it met the SLO. */
  public record Probe(double load, boolean passed) {}

  /** The next load to probe after {@code done}, or empty when the search is over. */
  public OptionalDouble next(List<Probe> done) {
    if (done.isEmpty()) {
      return OptionalDouble.of(start);
    }
    if (done.size() >= maxProbes) {
      return OptionalDouble.empty();
    }
    double fail = lowestFailure(done);
    double pass = highestPassBelow(done, fail);
    if (Double.isNaN(pass)) {
      return OptionalDouble.empty(); // the lowest load probed failed: nothing meets the SLO
    }
    if (Double.isNaN(fail)) {
      return pass >= limit ? OptionalDouble.empty() : OptionalDouble.of(Math.min(2 * pass, limit));
    }
    double mid;
    if (integer) {
      if (fail - pass <= 1) {
        return OptionalDouble.empty();
      }
      mid = pass + Math.floor((fail - pass) / 2);
    } else {
      if (fail - pass <= relativePrecision * pass) {
        return OptionalDouble.empty();
      }
      mid = roundTo3Figures((pass + fail) / 2);
      if (!(mid > pass && mid < fail)) {
        return OptionalDouble.empty();
      }
    }
    return OptionalDouble.of(mid);
  }

  /** Whether {@code done} reached the precision asked (or a bound), probe budget aside. */
  public boolean converged(List<Probe> done) {
    return !done.isEmpty()
        && new LoadSearch(start, limit, integer, relativePrecision, Integer.MAX_VALUE).next(done).isEmpty();
  }

  /** The highest load that met the SLO below the lowest that failed; NaN when none met it. */
  public static double best(List<Probe> done) {
    return highestPassBelow(done, lowestFailure(done));
  }

  /** The lowest load that failed, NaN when none failed. */
  public static double lowestFailure(List<Probe> done) {
    double fail = Double.NaN;
    for (Probe p : done) {
      if (!p.passed() && !(p.load() >= fail)) {
        fail = p.load();
      }
    }
    return fail;
  }

  private static double highestPassBelow(List<Probe> done, double fail) {
    double pass = Double.NaN;
    for (Probe p : done) {
      if (p.passed() && (Double.isNaN(fail) || p.load() < fail) && !(p.load() <= pass)) {
        pass = p.load();
      }
    }
    return pass;
  }

  /** 3.14159 → 3.14, 47.25 → 47.3: rates that read well in labels. */
  static double roundTo3Figures(double v) {
    double scale = Math.pow(10, 2 - Math.floor(Math.log10(v)));
    return Math.round(v * scale) / scale;
  }
}
