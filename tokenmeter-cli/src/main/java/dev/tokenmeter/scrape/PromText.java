package dev.tokenmeter.scrape;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the Prometheus text exposition format (version 0.0.4) and OpenMetrics 1.0 text into an
 * {@link Exposition}: {@code # HELP}, {@code # TYPE} and {@code # UNIT} lines, samples with
 * escaped label values, special values ({@code NaN}, {@code +Inf}), optional timestamps, OpenMetrics
 * exemplars ({@code # {...} value}) and {@code # EOF}. Stateless and thread-safe.
 *
 * <pre>{@code
 * Exposition e = PromText.parse("# TYPE q gauge\nq{model=\"m\"} 3\n");
 * e.sum("q");   // 3.0
 * }</pre>
 */
public final class PromText {
  /* design notes
   * The official Prometheus Java client (io.prometheus:prometheus-metrics-*) writes these formats
   * but has no parser for them, and no maintained JVM parser library exists on Maven Central (the
   * Hawkular scraper was last released in 2017; SkyWalking's lives inside its OAP server). The
   * grammar is small and fully specified (prometheus.io "Exposition formats", OpenMetrics 1.0
   * spec), so it is implemented here against the specification, tested line by line.
   * Strict where a wrong answer would follow (a sample line that does not parse fails the whole
   * scrape with its line number: an HTML error page must not read as "no metrics"), lenient where
   * the formats differ harmlessly (unknown comment lines, blank lines, CRLF). */

  private PromText() {}

  /** Thrown for text that is not Prometheus exposition format; the message names the line. */
  public static final class Malformed extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Malformed(int line, String what) {
      super("line " + line + ": " + what);
    }
  }

  /**
   * Parses {@code text}.
   *
   * @throws Malformed when a line is not valid exposition format
   */
  public static Exposition parse(String text) {
    List<Exposition.Sample> samples = new ArrayList<>();
    Map<String, String> types = new HashMap<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
      String trimmed = line.strip();
      if (trimmed.isEmpty()) {
        continue;
      }
      if (trimmed.startsWith("#")) {
        if (trimmed.equals("# EOF")) {
          break;
        }
        comment(trimmed, i + 1, types);
        continue;
      }
      samples.add(new Cursor(trimmed, i + 1).sample());
    }
    return new Exposition(samples, types);
  }

  /** {@code # TYPE name type} is kept; HELP, UNIT and free comments are skipped. */
  private static void comment(String line, int lineNo, Map<String, String> types) {
    String[] parts = line.substring(1).strip().split("[ \t]+", 3);
    if (parts[0].equals("TYPE")) {
      if (parts.length != 3 || !validName(parts[1])) {
        throw new Malformed(lineNo, "a TYPE line needs a metric name and a type: " + abbreviate(line));
      }
      types.put(parts[1], parts[2].strip().toLowerCase(java.util.Locale.ROOT));
    }
  }

  static boolean validName(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
          || (i > 0 && c >= '0' && c <= '9');
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  /** Reads one sample line left to right. */
  private static final class Cursor {
    private final String s;
    private final int lineNo;
    private int at;

    Cursor(String s, int lineNo) {
      this.s = s;
      this.lineNo = lineNo;
    }

    Exposition.Sample sample() {
      String name = name();
      Map<String, String> labels = Map.of();
      skipBlanks();
      if (at < s.length() && s.charAt(at) == '{') {
        labels = labels();
        skipBlanks();
      }
      double value = value(token());
      skipBlanks();
      if (at < s.length() && s.charAt(at) != '#') {
        timestamp(token());
        skipBlanks();
      }
      if (at < s.length() && s.charAt(at) != '#') {
        throw fail("unexpected text after the value");
      }
      // An OpenMetrics exemplar (" # {trace_id=...} 1.0") may follow: not needed, not parsed.
      return new Exposition.Sample(name, labels, value);
    }

    private String name() {
      int start = at;
      while (at < s.length() && s.charAt(at) != '{' && s.charAt(at) != ' ' && s.charAt(at) != '\t') {
        at++;
      }
      String name = s.substring(start, at);
      if (!validName(name)) {
        throw fail("not a metric name: '" + abbreviate(name) + "'");
      }
      return name;
    }

    private Map<String, String> labels() {
      Map<String, String> labels = new LinkedHashMap<>();
      at++; // '{'
      while (true) {
        skipBlanks();
        if (at >= s.length()) {
          throw fail("unclosed label set");
        }
        if (s.charAt(at) == '}') {
          at++;
          return labels;
        }
        int start = at;
        while (at < s.length() && s.charAt(at) != '=' && s.charAt(at) != ' ') {
          at++;
        }
        String label = s.substring(start, at);
        skipBlanks();
        if (!validName(label) || label.contains(":") || at >= s.length() || s.charAt(at) != '=') {
          throw fail("bad label name '" + abbreviate(label) + "'");
        }
        at++;
        skipBlanks();
        labels.put(label, quoted());
        skipBlanks();
        if (at < s.length() && s.charAt(at) == ',') {
          at++;
        } else if (at >= s.length() || s.charAt(at) != '}') {
          throw fail("expected ',' or '}' in the label set");
        }
      }
    }

    private String quoted() {
      if (at >= s.length() || s.charAt(at) != '"') {
        throw fail("a label value must be quoted");
      }
      StringBuilder b = new StringBuilder();
      for (at++; at < s.length(); at++) {
        char c = s.charAt(at);
        if (c == '"') {
          at++;
          return b.toString();
        }
        if (c == '\\' && at + 1 < s.length()) {
          char e = s.charAt(++at);
          b.append(switch (e) {
            case 'n' -> '\n';
            case '\\' -> '\\';
            case '"' -> '"';
            default -> throw fail("unknown escape \\" + e + " in a label value");
          });
        } else {
          b.append(c);
        }
      }
      throw fail("unterminated label value");
    }

    private String token() {
      int start = at;
      while (at < s.length() && s.charAt(at) != ' ' && s.charAt(at) != '\t') {
        at++;
      }
      if (start == at) {
        throw fail("missing value");
      }
      return s.substring(start, at);
    }

    private double value(String t) {
      switch (t) {
        case "NaN", "nan" -> {
          return Double.NaN;
        }
        case "+Inf", "Inf", "+inf", "inf" -> {
          return Double.POSITIVE_INFINITY;
        }
        case "-Inf", "-inf" -> {
          return Double.NEGATIVE_INFINITY;
        }
        default -> {
          try {
            return Double.parseDouble(t);
          } catch (NumberFormatException e) {
            throw fail("not a number: '" + abbreviate(t) + "'");
          }
        }
      }
    }

    private void timestamp(String t) {
      try {
        Double.parseDouble(t); // ms (0.0.4) or s (OpenMetrics): either way not used
      } catch (NumberFormatException e) {
        throw fail("not a timestamp: '" + abbreviate(t) + "'");
      }
    }

    private void skipBlanks() {
      while (at < s.length() && (s.charAt(at) == ' ' || s.charAt(at) == '\t')) {
        at++;
      }
    }

    private Malformed fail(String what) {
      return new Malformed(lineNo, what + " in '" + abbreviate(s) + "'");
    }
  }
}
