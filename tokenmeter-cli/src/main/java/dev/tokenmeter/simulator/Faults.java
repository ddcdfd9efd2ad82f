package dev.tokenmeter.simulator;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Which faults the simulator injects, with what probability, and their parameters. Immutable.
 *
 * <p>At most one fault per request. Each request draws one uniform number {@code u} in [0, 1)
 * from its seeded random stream; faults take consecutive slices of [0, 1) in {@link Fault}
 * declaration order, each as wide as its probability, and the rest is {@link Fault#NONE}. A
 * mid-stream fault drawn for a non-streamed request is skipped (that request gets none), so its
 * probability applies to streams only. The draw is reproducible: same seed, same request key,
 * same fault.
 *
 * <p>Example: {@code Faults.none().with(Fault.HTTP_429, 0.02).with(Fault.STALL, 0.1)
 * .withStallNanos(500_000_000L)}.
 *
 * @param probabilities probability of each fault, in [0, 1], summing to at most 1; absent = 0
 * @param afterTokens K for mid-stream faults: the fault acts when token K is due, after K tokens
 *     were sent; clamped to {@code outputTokens − 1} so it always acts before the final token
 * @param stallNanos length of a {@link Fault#STALL}
 * @param slowHeadersNanos delay of a {@link Fault#SLOW_HEADERS} before the status line
 */
public record Faults(
    Map<Fault, Double> probabilities, int afterTokens, long stallNanos, long slowHeadersNanos) {

  private static final Faults NONE = new Faults(Map.of(), 4, 1_000_000_000L, 1_000_000_000L);

  public Faults {
    EnumMap<Fault, Double> copy = new EnumMap<>(Fault.class);
    double sum = 0;
    for (Map.Entry<Fault, Double> e : probabilities.entrySet()) {
      double p = e.getValue();
      if (e.getKey() == Fault.NONE || !(p >= 0 && p <= 1)) {
        throw new IllegalArgumentException("bad fault probability: " + e);
      }
      if (p > 0) {
        copy.put(e.getKey(), p);
        sum += p;
      }
    }
    // 1e-9 absorbs rounding in sums such as 0.1 + 0.2 + 0.7.
    if (sum > 1 + 1e-9) {
      throw new IllegalArgumentException("fault probabilities sum to " + sum + " > 1");
    }
    if (afterTokens < 0 || stallNanos < 0 || slowHeadersNanos < 0) {
      throw new IllegalArgumentException("afterTokens and delays must be >= 0");
    }
    probabilities = Collections.unmodifiableMap(copy);
  }

  /** No faults; K = 4 tokens, stall and slow headers 1 s once enabled. */
  public static Faults none() {
    return NONE;
  }

  /**
   * Parses {@code http_429=0.05,disconnect=0.01} (the {@code --faults} of {@code sim serve}): kinds
   * by their lower-case names, probabilities in [0, 1]; null or blank is {@link #none()}.
   *
   * @throws IllegalArgumentException naming the part that is wrong and what is expected
   */
  public static Faults parse(String spec) {
    Faults f = none();
    if (spec == null || spec.isBlank()) {
      return f;
    }
    for (String part : spec.split(",")) {
      String[] kv = part.trim().split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("'" + part + "': expected KIND=PROBABILITY, e.g. http_429=0.05");
      }
      Fault kind;
      try {
        kind = Fault.valueOf(kv[0].trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown kind '" + kv[0].trim()
            + "'; kinds: http_429, http_500, http_503, slow_headers, disconnect, stall, malformed_chunk, error_event");
      }
      double p;
      try {
        p = Double.parseDouble(kv[1].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + kv[1].trim() + "' is not a probability between 0 and 1");
      }
      if (kind == Fault.NONE || !(p >= 0 && p <= 1)) {
        throw new IllegalArgumentException(part + " needs a kind and a probability between 0 and 1");
      }
      f = f.with(kind, p);
    }
    return f;
  }

  /** This configuration with {@code fault} injected with probability {@code probability}. */
  public Faults with(Fault fault, double probability) {
    EnumMap<Fault, Double> copy = new EnumMap<>(Fault.class);
    copy.putAll(probabilities);
    copy.put(fault, probability);
    return new Faults(copy, afterTokens, stallNanos, slowHeadersNanos);
  }

  /** This configuration with mid-stream faults acting after {@code k} tokens. */
  public Faults withAfterTokens(int k) {
    return new Faults(probabilities, k, stallNanos, slowHeadersNanos);
  }

  /** This configuration with stalls of {@code nanos}. */
  public Faults withStallNanos(long nanos) {
    return new Faults(probabilities, afterTokens, nanos, slowHeadersNanos);
  }

  /** This configuration with slow headers delayed by {@code nanos}. */
  public Faults withSlowHeadersNanos(long nanos) {
    return new Faults(probabilities, afterTokens, stallNanos, nanos);
  }

  /** The probability of {@code fault} (0 when not configured). */
  public double probability(Fault fault) {
    return probabilities.getOrDefault(fault, 0.0);
  }

  /** Whether any fault can be injected. */
  public boolean any() {
    return !probabilities.isEmpty();
  }

  /**
   * The fault selected by the uniform draw {@code u} in [0, 1) for a request that is ({@code
   * stream}) or is not streamed.
   */
  public Fault pick(double u, boolean stream) {
    double upper = 0;
    for (Fault f : Fault.values()) {
      upper += probability(f);
      if (f != Fault.NONE && probability(f) > 0 && u < upper) {
        return f.midStream() && !stream ? Fault.NONE : f;
      }
    }
    return Fault.NONE;
  }
}
