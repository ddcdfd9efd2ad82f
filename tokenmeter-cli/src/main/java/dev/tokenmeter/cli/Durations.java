package dev.tokenmeter.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses human durations: {@code 60s}, {@code 500ms}, {@code 1m30s}, {@code 2h}, {@code 0}, bare seconds. */
final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|us|s|m|h)");

  private Durations() {}

  /**
   * Nanoseconds in {@code text}.
   *
   * @throws IllegalArgumentException with the accepted forms when {@code text} is not a duration
   */
  static long parseNanos(String option, String text) {
    String s = text.trim().toLowerCase(java.util.Locale.ROOT);
    try {
      if (s.matches("\\d+(\\.\\d+)?")) {
        return Math.round(Double.parseDouble(s) * 1e9);
      }
      Matcher m = PART.matcher(s);
      int pos = 0;
      double nanos = 0;
      while (pos < s.length() && m.find(pos) && m.start() == pos) {
        double v = Double.parseDouble(m.group(1));
        nanos +=
            switch (m.group(2)) {
              case "us" -> v * 1e3;
              case "ms" -> v * 1e6;
              case "s" -> v * 1e9;
              case "m" -> v * 60e9;
              default -> v * 3600e9;
            };
        pos = m.end();
      }
      if (pos == s.length() && pos > 0) {
        return Math.round(nanos);
      }
    } catch (NumberFormatException e) {
      // fall through to the message below
    }
    throw new IllegalArgumentException(
        option + " '" + printable(text) + "' is not a duration; use e.g. 60s, 500ms, 1m30s, 2h");
  }

  /**
   * {@code text} with each control character shown as a backslash, 'u' and four hex digits, so a
   * message quoting it stays one line (found by DurationsFuzzIT: a value holding a newline split the
   * error in two).
   */
  static String printable(String text) {
    StringBuilder b = new StringBuilder(text.length());
    text.codePoints().forEach(c -> {
      if (Character.isISOControl(c)) {
        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", c));
      } else {
        b.appendCodePoint(c);
      }
    });
    return b.toString();
  }
}
