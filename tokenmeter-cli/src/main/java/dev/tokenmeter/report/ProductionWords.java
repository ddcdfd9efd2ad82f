package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.production.InFlightCurve;
import dev.tokenmeter.core.production.ProductionSummary;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The answer of a production report in words: what the window held, where per-user TPS fell below
 * the threshold, and the latency. The first lines of production.json and of report.html, and what
 * {@code proxy report} prints. Pure functions; stateless.
 */
public final class ProductionWords {
  private ProductionWords() {}

  /** The sentences, the first of them the answer. */
  public static List<String> sentences(ProductionSummary s) {
    List<String> out = new ArrayList<>();
    InFlightCurve.Bin t = s.total();
    String scope = (s.tenantOrNull() == null ? "" : " of tenant " + s.tenantOrNull())
        + (s.modelOrNull() == null ? "" : " for model " + s.modelOrNull());
    out.add(String.format(Locale.ROOT,
        "From %s to %s (%s), the proxy metered %s requests%s (%s failed, %s%%) from %d %s;"
            + " per-user decode TPS p50 %s, p10 %s tokens/s.",
        instant(s.since()), instant(s.until()), span(s.since(), s.until()), num(t.requests()), scope,
        num(t.errors()), percent(t.errors(), t.requests()), s.tenants().size(),
        s.tenants().size() == 1 ? "tenant" : "tenants", num(t.decodeTps().p50()), num(t.decodeTps().p10())));
    out.add(knee(s.curve()));
    out.add(latency(s));
    return out;
  }

  /** The knee in one sentence. */
  public static String knee(InFlightCurve c) {
    String bar = num(c.thresholdTokensPerSecond()) + " tokens/s";
    String min = "at least " + InFlightCurve.MIN_KNEE_VALUES + " completed requests";
    InFlightCurve.Knee k = c.knee();
    return switch (k.status()) {
      case CROSSED -> String.format(Locale.ROOT,
          "Knee: per-user TPS p10 falls below %s between c=%d (%s tokens/s) and c=%d (%s tokens/s) in flight per"
              + " upstream; production held the line up to c=%d.",
          bar, k.lastMeeting(), num(p10(c, k.lastMeeting())), k.firstBelow(), num(p10(c, k.firstBelow())),
          k.lastMeeting());
      case NONE_BELOW -> String.format(Locale.ROOT,
          "No knee: per-user TPS p10 stayed at or above %s at every concurrency seen with %s, up to c=%d (%s"
              + " tokens/s).", bar, min, k.lastMeeting(), num(p10(c, k.lastMeeting())));
      case ALL_BELOW -> String.format(Locale.ROOT,
          "Knee: per-user TPS p10 is below %s already at c=%d (%s tokens/s), the lowest concurrency seen with %s.",
          bar, k.firstBelow(), num(p10(c, k.firstBelow())), min);
      case TOO_FEW -> "No knee: no concurrency in flight has the " + InFlightCurve.MIN_KNEE_VALUES
          + " completed requests a p10 needs; widen the window.";
    };
  }

  private static String latency(ProductionSummary s) {
    Distribution ttft = s.total().ttftMs();
    Distribution tpot = s.total().tpotMs();
    List<InFlightCurve.Bin> bins = s.curve().bins();
    int low = bins.isEmpty() ? 0 : bins.get(0).concurrency();
    int high = bins.isEmpty() ? 0 : bins.get(bins.size() - 1).concurrency();
    String range = bins.isEmpty() ? "" : low == high ? "; all of them at c=" + low
        : String.format(Locale.ROOT, "; concurrency in flight ranged from c=%d to c=%d", low, high);
    return String.format(Locale.ROOT, "TTFT p50 %s ms, p99 %s ms; TPOT p50 %s ms, p99 %s ms%s.",
        num(ttft.p50()), num(ttft.p99()), num(tpot.p50()), num(tpot.p99()), range);
  }

  private static double p10(InFlightCurve c, int concurrency) {
    return c.bins().stream().filter(b -> b.concurrency() == concurrency).findFirst()
        .map(b -> b.decodeTps().p10()).orElse(Double.NaN);
  }

  /** {@code 2026-11-25T08:00:00Z}, to the second. */
  public static String instant(Instant t) {
    return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
  }

  /** {@code 24 h}, {@code 30 min}, {@code 45 s}, {@code 7 d}. */
  static String span(Instant since, Instant until) {
    long s = Duration.between(since, until).toSeconds();
    if (s % 86_400 == 0) {
      return s / 86_400 + " d";
    }
    if (s >= 7200 || s % 3600 == 0 && s > 0) {
      return num(s / 3600.0) + " h";
    }
    return s >= 120 ? num(s / 60.0) + " min" : s + " s";
  }

  private static String percent(long part, long whole) {
    return whole == 0 ? "0" : num(100.0 * part / whole);
  }

  /** 1,234 / 41 / 7.5 / 0.25 / n/a: whole numbers from 10 up, else two significant digits. */
  public static String num(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a >= 10 || v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return String.format(Locale.ROOT, a >= 1 ? "%.1f" : "%.2f", v);
  }
}
