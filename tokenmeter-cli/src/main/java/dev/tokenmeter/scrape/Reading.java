package dev.tokenmeter.scrape;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One scrape of a server in tokenmeter's common names (docs/METRICS.md, "Server metrics"):
 * instantaneous values and running totals ({@link Value}), and histograms ({@link Histogram}),
 * each present only when the server reports it. Immutable.
 *
 * @param atNanos when the scrape's answer arrived (ticker time)
 * @param values the values the server reports
 * @param histograms the histograms the server reports, in seconds
 * @param raw for an unknown server, its gauges and counters by {@code name{labels}} (at most
 *     {@value #MAX_RAW} series); empty for a known one
 */
public record Reading(long atNanos, Map<Value, Double> values, Map<Histogram, Buckets> histograms,
    Map<String, Double> raw) {

  /** Series an unknown server keeps, at most: a scrape of thousands would bloat summary.json. */
  public static final int MAX_RAW = 64;

  /** Common names of a server's instantaneous values (gauges) and running totals (counters). */
  public enum Value {
    /** Requests being processed (in the running batch). Gauge. */
    RUNNING(true),
    /** Requests waiting for admission to the batch. Gauge. */
    WAITING(true),
    /** KV-cache usage, fraction 0..1. Gauge. */
    KV_CACHE_USAGE(true),
    /** Prefix-cache hit rate as the server computes it, fraction 0..1. Gauge. */
    PREFIX_CACHE_HIT_RATE(true),
    /** Requests preempted so far. Counter. */
    PREEMPTIONS(false),
    /** Prompt tokens looked up in the prefix cache so far. Counter. */
    PREFIX_CACHE_QUERIES(false),
    /** Of those, tokens found. Counter. */
    PREFIX_CACHE_HITS(false),
    /** Prompt tokens processed so far. Counter. */
    PROMPT_TOKENS(false),
    /** Output tokens generated so far. Counter. */
    GENERATION_TOKENS(false),
    /** Microseconds requests spent queued, summed over requests, so far. Counter. */
    QUEUE_MICROS_TOTAL(false),
    /** Requests finished so far. Counter. */
    REQUESTS_FINISHED(false);

    private final boolean gauge;

    Value(boolean gauge) {
      this.gauge = gauge;
    }

    /** True for an instantaneous value, false for a running total. */
    public boolean gauge() {
      return gauge;
    }
  }

  /** Common names of a server's latency histograms (seconds). */
  public enum Histogram {
    /** The server's time to first token, from the request's arrival. */
    TTFT,
    /** Time per output token (or between tokens, as the server defines it). */
    TPOT,
    /** Time a request waited before it was first scheduled. */
    QUEUE_TIME,
    /** Time from first scheduled to the first token. */
    PREFILL_TIME,
    /** Time from the first token to the last. */
    DECODE_TIME
  }

  public Reading {
    values = Collections.unmodifiableMap(values.isEmpty() ? new EnumMap<>(Value.class) : new EnumMap<>(values));
    histograms = Collections.unmodifiableMap(
        histograms.isEmpty() ? new EnumMap<>(Histogram.class) : new EnumMap<>(histograms));
    raw = Collections.unmodifiableMap(new LinkedHashMap<>(raw));
  }

  /** {@code v}, NaN when the server does not report it. */
  public double value(Value v) {
    return values.getOrDefault(v, Double.NaN);
  }

  /** Gauges, counters and untyped samples of {@code e} by {@code name{labels}}, the first {@value #MAX_RAW}. */
  static Map<String, Double> rawOf(Exposition e) {
    Map<String, Double> raw = new LinkedHashMap<>();
    for (Exposition.Sample s : e.samples()) {
      String type = e.typeOf(s.name());
      if (raw.size() < MAX_RAW && (type.equals("gauge") || type.equals("counter") || type.equals("untyped"))) {
        raw.put(s.name() + labels(s.labels()), s.value());
      }
    }
    return raw;
  }

  private static String labels(Map<String, String> labels) {
    if (labels.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("{");
    new java.util.TreeMap<>(labels).forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append(k).append("=\"")
        .append(v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")).append('"'));
    return b.append('}').toString();
  }
}
