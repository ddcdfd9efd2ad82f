package dev.tokenmeter.scrape;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One parsed scrape: its samples in text order and the declared type of each family. Look-ups sum
 * over label sets (a server with several engines or models reports one series each; the run sees
 * the server as a whole). Immutable.
 */
public final class Exposition {
  private static final List<String> SUFFIXES = List.of("_bucket", "_sum", "_count", "_total", "_created", "_info");

  /** One sample line: {@code name{labels} value}. */
  public record Sample(String name, Map<String, String> labels, double value) {
    public Sample {
      labels = Map.copyOf(labels);
    }
  }

  private final List<Sample> samples;
  private final Map<String, String> types;

  Exposition(List<Sample> samples, Map<String, String> types) {
    this.samples = List.copyOf(samples);
    this.types = Map.copyOf(types);
  }

  /** Every sample, in text order. */
  public List<Sample> samples() {
    return samples;
  }

  /** Whether any sample is named {@code name}. */
  public boolean has(String name) {
    return samples.stream().anyMatch(s -> s.name().equals(name));
  }

  /** The sum of the samples named {@code name} over their label sets; NaN when there is none. */
  public double sum(String name) {
    double total = 0;
    boolean found = false;
    for (Sample s : samples) {
      if (s.name().equals(name)) {
        total += s.value();
        found = true;
      }
    }
    return found ? total : Double.NaN;
  }

  /**
   * The histogram family {@code base} ({@code base_bucket}, {@code base_sum}, {@code base_count}),
   * its buckets summed over label sets by {@code le}; null when the scrape has no {@code
   * base_bucket} sample.
   */
  public Buckets histogram(String base) {
    TreeMap<Double, Double> byBound = new TreeMap<>();
    String bucket = base + "_bucket";
    for (Sample s : samples) {
      if (s.name().equals(bucket) && s.labels().containsKey("le")) {
        byBound.merge(bound(s.labels().get("le")), s.value(), Double::sum);
      }
    }
    if (byBound.isEmpty()) {
      return null;
    }
    double[] bounds = new double[byBound.size()];
    double[] cumulative = new double[byBound.size()];
    int i = 0;
    for (Map.Entry<Double, Double> e : byBound.entrySet()) {
      bounds[i] = e.getKey();
      cumulative[i++] = e.getValue();
    }
    double count = sum(base + "_count");
    return new Buckets(bounds, cumulative, sum(base + "_sum"), Double.isNaN(count) ? cumulative[i - 1] : count);
  }

  private static double bound(String le) {
    return switch (le) {
      case "+Inf", "Inf", "inf" -> Double.POSITIVE_INFINITY;
      default -> Double.parseDouble(le);
    };
  }

  /**
   * The declared type of the family a sample named {@code sampleName} belongs to ({@code gauge},
   * {@code counter}, {@code histogram}, ...), {@code untyped} when none was declared.
   */
  public String typeOf(String sampleName) {
    String t = types.get(sampleName);
    if (t != null) {
      return t;
    }
    for (String suffix : SUFFIXES) {
      if (sampleName.endsWith(suffix)) {
        t = types.get(sampleName.substring(0, sampleName.length() - suffix.length()));
        if (t != null) {
          return t;
        }
      }
    }
    return "untyped";
  }
}
