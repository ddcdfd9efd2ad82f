package dev.tokenmeter.governance;

import java.time.Duration;
import java.util.List;

/**
 * Live traffic drifted away from the benchmark, or came back to it. Immutable.
 *
 * @param report the comparison that raised it
 * @param window the rolling window it covered
 * @param cleared true when the dimensions that had drifted are back within the benchmark's
 */
public record DriftNotice(DriftReport report, Duration window, boolean cleared) implements Alert {

  /** A window in words: {@code "15 min"}, {@code "90 s"}. */
  public static String words(Duration window) {
    return window.toSeconds() >= 120 && window.toSeconds() % 60 == 0 ? window.toMinutes() + " min" : window.toSeconds() + " s";
  }

  /** One line for the log: the drifted dimensions' sentences. */
  public String line() {
    if (cleared) {
      return "drift notice: live traffic matches the benchmark again (" + report.requests() + " requests over the last "
          + words(window) + ")";
    }
    List<String> sentences = report.findings().stream().filter(DriftReport.Finding::drifted)
        .map(DriftReport.Finding::sentence).toList();
    return "drift notice: " + String.join("; ", sentences) + " (" + report.requests() + " requests over the last "
        + words(window) + ")";
  }

  @Override
  public String what() {
    return cleared ? "a drift-cleared notice" : "a drift notice";
  }
}
