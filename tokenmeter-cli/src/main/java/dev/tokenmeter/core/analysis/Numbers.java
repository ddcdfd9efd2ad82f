package dev.tokenmeter.core.analysis;

import java.util.Locale;

/** How a threshold or a measured value reads in a sentence; shared by the SLO verdicts and the knee. */
public final class Numbers {
  private Numbers() {}

  /**
   * A threshold or measured value for messages, no trailing zeros: 1 decimal from 100 up
   * ({@code 1009.8}), 2 from 10 ({@code 29.92}), else 3 ({@code 0.002}); enough to tell a value
   * just over a round threshold from the threshold. {@code "-"} for NaN.
   */
  public static String compact(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double a = Math.abs(v);
    String s = String.format(Locale.ROOT, a >= 100 ? "%.1f" : a >= 10 ? "%.2f" : "%.3f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}
