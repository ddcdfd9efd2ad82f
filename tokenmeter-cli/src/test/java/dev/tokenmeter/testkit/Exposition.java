package dev.tokenmeter.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Prometheus text-format exposition (0.0.4) parsed into samples, for tests that check values.
 * Handles what the Prometheus Java client writes: {@code # HELP}/{@code # TYPE} lines, label values
 * with {@code \\}, {@code \"} and {@code \n} escapes, no timestamps.
 */
public final class Exposition {
  /** One sample line. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples;

  private Exposition(List<Sample> samples) {
    this.samples = samples;
  }

  public static Exposition parse(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (!line.isEmpty() && !line.startsWith("#")) {
        out.add(parseLine(line));
      }
    }
    return new Exposition(out);
  }

  public List<Sample> samples() {
    return samples;
  }

  /** Samples named {@code name} whose labels include every entry of {@code labels}. */
  public List<Sample> find(String name, Map<String, String> labels) {
    List<Sample> hits = new ArrayList<>();
    for (Sample s : samples) {
      if (s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet())) {
        hits.add(s);
      }
    }
    return hits;
  }

  /** The value of the one sample that {@link #find} matches; fails when none or several do. */
  public double value(String name, Map<String, String> labels) {
    List<Sample> hits = find(name, labels);
    if (hits.size() != 1) {
      throw new AssertionError(hits.size() + " samples " + name + labels + " (want exactly 1): " + hits);
    }
    return hits.get(0).value();
  }

  private static Sample parseLine(String line) {
    int brace = line.indexOf('{');
    int space = line.lastIndexOf(' ');
    Map<String, String> labels = new LinkedHashMap<>();
    String name;
    if (brace < 0 || brace > space) {
      name = line.substring(0, line.indexOf(' '));
    } else {
      name = line.substring(0, brace);
      parseLabels(line, brace + 1, labels);
    }
    return new Sample(name, labels, Double.parseDouble(line.substring(space + 1)));
  }

  private static void parseLabels(String line, int from, Map<String, String> labels) {
    int i = from;
    while (line.charAt(i) != '}') {
      int eq = line.indexOf('=', i);
      String key = line.substring(i, eq);
      StringBuilder value = new StringBuilder();
      int j = eq + 2; // past ="
      for (; line.charAt(j) != '"'; j++) {
        char c = line.charAt(j);
        if (c == '\\') {
          char next = line.charAt(++j);
          value.append(next == 'n' ? '\n' : next);
        } else {
          value.append(c);
        }
      }
      labels.put(key, value.toString());
      i = j + 1;
      if (line.charAt(i) == ',') {
        i++;
      }
    }
  }
}
