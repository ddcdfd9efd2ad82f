package dev.tokenmeter.governance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a window of live traffic compares with the benchmark: one finding per dimension, each with
 * its statistic and its decision. Immutable.
 *
 * @param at when the comparison was made
 * @param requests completed requests in the window
 * @param findings one per dimension compared
 * @param tooFew true when the window held fewer requests than the decision needs (then no finding
 *     is a drift)
 */
public record DriftReport(Instant at, long requests, List<Finding> findings, boolean tooFew) {

  /** Why shared-prefix share is not compared, for every rendering of the report. */
  public static final String PREFIX_NOTE = "shared-prefix share: not compared (the proxy meters token counts, "
      + "not prompt text, so it cannot see which prompts share a prefix)";

  public DriftReport {
    findings = List.copyOf(findings);
  }

  /** What one dimension's comparison found. */
  public sealed interface Finding {
    /** Whether this dimension drifted by the decision rule. */
    boolean drifted();

    /** The dimension's name, as in metrics labels ({@code input_tokens}). */
    String dimension();

    /** One sentence with the figures. */
    String sentence();
  }

  /**
   * Input or output lengths.
   *
   * @param input true for prompt lengths, false for output lengths
   * @param baselineMedian the benchmark's median length, tokens
   * @param liveMedian the window's median length, tokens
   * @param ks the KS test, baseline against live
   * @param psi the PSI over the baseline's decile bins
   * @param spec the benchmark's length option as given, or null
   */
  public record Lengths(boolean input, boolean drifted, double baselineMedian, double liveMedian, DriftStats.Ks ks,
      DriftStats.Psi psi, String spec) implements Finding {
    @Override
    public String dimension() {
      return input ? "input_tokens" : "output_tokens";
    }

    /** Live median over the benchmark's. */
    public double ratio() {
      return liveMedian / baselineMedian;
    }

    @Override
    public String sentence() {
      String what = input ? "prompts" : "outputs";
      String size = spec == null ? fmt(baselineMedian) : spec;
      String benchmarked = "the " + size + " tokens";
      String figures = String.format(Locale.ROOT,
          "median %s vs %s tokens as the server counted them; KS D=%.2f, p%s; PSI %.2f over %d bins at the benchmark's deciles",
          fmt(liveMedian), fmt(baselineMedian), ks.statistic(), p(ks.pValue()), psi.value(), psi.bins());
      if (!drifted) {
        return what + " match what you benchmarked (" + figures + ")";
      }
      String verified = input ? "your TTFT SLO was verified for " : "your TPOT and E2E figures were measured for ";
      return String.format(Locale.ROOT, "%s are %s than %s you benchmarked (%s); %s%s",
          what, ratioWords(ratio(), "longer", "shorter"), benchmarked, figures, verified, size);
    }
  }

  /**
   * The model mix.
   *
   * @param psi PSI over the models' shares (the union of both sides' models)
   * @param unbenchmarkedShare share of live requests to models the benchmark did not run
   * @param unbenchmarked those models, most requested first
   */
  public record Models(boolean drifted, double psi, double unbenchmarkedShare, List<String> unbenchmarked)
      implements Finding {
    public Models {
      unbenchmarked = List.copyOf(unbenchmarked);
    }

    @Override
    public String dimension() {
      return "model";
    }

    @Override
    public String sentence() {
      String figures = String.format(Locale.ROOT, "PSI %.2f over the models' shares", psi);
      if (!drifted) {
        return "the model mix matches the benchmark's (" + figures + ")";
      }
      if (unbenchmarked.isEmpty()) {
        return "the shares of the benchmarked models moved (" + figures + ")";
      }
      return String.format(Locale.ROOT, "%.0f%% of requests go to models the benchmark did not run (%s; %s)",
          unbenchmarkedShare * 100, String.join(", ", unbenchmarked), figures);
    }
  }

  /**
   * Concurrency.
   *
   * @param liveMean the window's mean requests in flight as each request met it
   * @param baselineMin the lowest achieved concurrency among the benchmark's stages
   * @param baselineMax the highest
   */
  public record Concurrency(boolean drifted, double liveMean, double baselineMin, double baselineMax)
      implements Finding {
    @Override
    public String dimension() {
      return "concurrency";
    }

    @Override
    public String sentence() {
      String range = baselineMin == baselineMax ? fmt(baselineMax) : fmt(baselineMin) + " to " + fmt(baselineMax);
      String figures = "mean " + fmt(liveMean) + " in flight as requests arrived vs " + range + " benchmarked";
      if (!drifted) {
        return "concurrency is within what you benchmarked (" + figures + ")";
      }
      return liveMean > baselineMax
          ? "concurrency is " + ratioWords(liveMean / baselineMax, "higher", "lower") + " than the highest you benchmarked (" + figures + ")"
          : "concurrency is " + ratioWords(liveMean / baselineMin, "higher", "lower") + " than the lowest you benchmarked (" + figures + ")";
    }
  }

  /** Whether any dimension drifted. */
  public boolean drifted() {
    return findings.stream().anyMatch(Finding::drifted);
  }

  /** The dimensions that drifted, in report order. */
  public List<String> driftedDimensions() {
    return findings.stream().filter(Finding::drifted).map(Finding::dimension).toList();
  }

  /** The report in words: a headline, one line per finding, the prefix note. */
  public List<String> lines() {
    List<String> out = new ArrayList<>();
    if (tooFew) {
      out.add("drift: not decided: only " + requests + " completed requests in the window (fewer than the "
          + DriftCheck.MIN_REQUESTS + " the tests need)");
    } else {
      out.add(drifted()
          ? "drift: live traffic has moved away from what was benchmarked (" + requests + " requests)"
          : "drift: none; live traffic matches what was benchmarked (" + requests + " requests)");
    }
    findings.forEach(f -> out.add((f.drifted() ? "  DRIFT " : "  ok    ") + f.dimension() + ": " + f.sentence()));
    out.add("  " + PREFIX_NOTE);
    return out;
  }

  /** "2.3x longer" or "40% shorter": a ratio said both ways round. */
  static String ratioWords(double ratio, String more, String less) {
    if (ratio >= 1) {
      return String.format(Locale.ROOT, "%.1fx %s", ratio, more);
    }
    return String.format(Locale.ROOT, "%.0f%% %s", (1 - ratio) * 100, less);
  }

  static String fmt(double v) {
    return Math.abs(v - Math.rint(v)) < 0.05 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
  }

  static String p(double p) {
    return p < 1e-4 ? "<0.0001" : String.format(Locale.ROOT, "=%.4f", p);
  }
}
