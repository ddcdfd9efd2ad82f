package dev.tokenmeter.core.analysis;

import java.util.List;
import java.util.Locale;

/**
 * The knee of a degradation curve: where per-user decode TPS (the median, p50) falls below a bar,
 * the load at which it crosses (by linear interpolation between the two stages around the
 * crossing) and the last stage that still met the bar.
 *
 * <p>The bar is {@code thresholdTokensPerSecond}, or {@code fraction} × the lowest-load stage's
 * value, whichever is higher when both are set (a stage "falls below" when it falls below
 * either). Points are taken in load order; the knee is the <em>first</em> crossing. A non-monotone
 * curve that rises above the bar again later is flagged ({@link #recovers()}), not smoothed. A
 * stage with no TPS value (nothing succeeded) counts as below the bar.
 *
 * @param status what was found
 * @param barTokensPerSecond the bar, tokens/s; NaN when there is none (no setting, or the fraction's
 *     base has no value)
 * @param barSource how the bar was set: {@code "30 tok/s"}, {@code "50% of c=1's 80.0 tok/s"}
 * @param crossingLoad interpolated load (concurrency or rate) where the curve crosses the bar; NaN
 *     unless {@link Status#CROSSED} with values on both sides
 * @param lastMeetingIndex stage index of the last stage (in load order, before the crossing) that
 *     met the bar, -1 when none
 * @param firstBelowIndex stage index of the first stage below the bar, -1 when none
 * @param recovers whether a stage at a higher load than the crossing is back above the bar
 * @param statement one sentence saying all this, for the terminal and summaries
 */
public record Knee(
    Status status,
    double barTokensPerSecond,
    String barSource,
    double crossingLoad,
    int lastMeetingIndex,
    int firstBelowIndex,
    boolean recovers,
    String statement) {

  /** What a knee search found. */
  public enum Status {
    /** The curve fell below the bar between two tested loads. */
    CROSSED,
    /** Every stage met the bar. */
    NONE_BELOW,
    /** The lowest load tested is already below the bar. */
    ALL_BELOW,
    /** No bar could be set, or there are no stages. */
    NO_BAR;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * Finds the knee of {@code points}, which must be in load order.
   *
   * @param thresholdTokensPerSecond absolute bar, NaN or 0 for none
   * @param fraction bar relative to the lowest-load stage (0.5 = half its value), NaN or 0 for none
   */
  public static Knee find(List<Sweep.Point> points, double thresholdTokensPerSecond, double fraction) {
    if (points.isEmpty()) {
      return new Knee(Status.NO_BAR, Double.NaN, "none", Double.NaN, -1, -1, false, "No stages: no knee.");
    }
    Sweep.Point base = points.get(0);
    double abs = thresholdTokensPerSecond > 0 ? thresholdTokensPerSecond : Double.NaN;
    double rel = fraction > 0 && base.decodeTpsP50() > 0 ? fraction * base.decodeTpsP50() : Double.NaN;
    double bar;
    String source;
    if (Double.isNaN(rel) || abs >= rel) {
      bar = abs;
      source = Numbers.compact(abs) + " tok/s";
    } else {
      bar = rel;
      source = String.format(Locale.ROOT, "%s%% of %s's %.1f tok/s", Numbers.compact(100 * fraction), base.label(), base.decodeTpsP50());
    }
    if (Double.isNaN(bar)) {
      return new Knee(Status.NO_BAR, Double.NaN, "none", Double.NaN, -1, -1, false,
          "No knee bar: set --knee-tps, or --knee-fraction with a lowest-load stage that has a TPS value.");
    }
    String what = "per-user decode TPS (p50)";
    String barText = source.contains("%") ? Numbers.compact(bar) + " tok/s (" + source + ")" : source;
    int below = -1;
    for (int i = 0; i < points.size(); i++) {
      if (!(points.get(i).decodeTpsP50() >= bar)) {
        below = i;
        break;
      }
    }
    if (below < 0) {
      Sweep.Point last = points.get(points.size() - 1);
      return new Knee(Status.NONE_BELOW, bar, source, Double.NaN, last.index(), -1, false,
          String.format(Locale.ROOT, "No knee: %s stayed at or above %s at every load tested, up to %s (%s tok/s).",
              what, barText, last.label(), Numbers.compact(last.decodeTpsP50())));
    }
    boolean recovers = false;
    Sweep.Point recovered = null;
    for (int i = below + 1; i < points.size() && !recovers; i++) {
      if (points.get(i).decodeTpsP50() >= bar) {
        recovers = true;
        recovered = points.get(i);
      }
    }
    String tail = recovers
        ? " It rises above the bar again at " + recovered.label() + ": a noisy curve; longer windows would help."
        : "";
    Sweep.Point b = points.get(below);
    if (below == 0) {
      return new Knee(Status.ALL_BELOW, bar, source, Double.NaN, -1, b.index(), recovers,
          String.format(Locale.ROOT, "Knee: %s is below %s already at the lowest load tested, %s (%s tok/s).%s",
              what, barText, b.label(), Numbers.compact(b.decodeTpsP50()), tail));
    }
    Sweep.Point a = points.get(below - 1);
    double x = Double.isNaN(b.decodeTpsP50())
        ? Double.NaN
        : a.load() + (a.decodeTpsP50() - bar) / (a.decodeTpsP50() - b.decodeTpsP50()) * (b.load() - a.load());
    String at = Double.isNaN(x) ? "" : ", at about " + a.loadName(x) + " by linear interpolation";
    return new Knee(Status.CROSSED, bar, source, x, a.index(), b.index(), recovers,
        String.format(Locale.ROOT, "Knee: %s falls below %s between %s (%s tok/s) and %s (%s tok/s)%s; the last load meeting it is %s.%s",
            what, barText, a.label(), Numbers.compact(a.decodeTpsP50()), b.label(), Numbers.compact(b.decodeTpsP50()), at, a.label(), tail));
  }
}
