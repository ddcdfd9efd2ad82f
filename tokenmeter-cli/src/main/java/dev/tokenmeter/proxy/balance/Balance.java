package dev.tokenmeter.proxy.balance;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How a route that names several upstreams spreads its requests, as configured: the policy, the
 * fluid threshold, the cool-down after a failure and the seed curves. Immutable.
 *
 * @param policy which upstream of the pool a request goes to
 * @param fluidTps per-user decode TPS below which streaming reads as halting (30 tok/s by default)
 * @param coolDownNanos how long an upstream that failed a request gets less traffic
 * @param seeds per upstream name, bench curve points (concurrency to per-user decode TPS p50)
 */
public record Balance(Policy policy, double fluidTps, long coolDownNanos, Map<String, SeedCurve> seeds) {

  /** The fluid threshold when none is given, tokens/s (docs/METRICS.md). */
  public static final double DEFAULT_FLUID_TPS = 30;

  /** The cool-down when none is given: 10 s. */
  public static final long DEFAULT_COOL_DOWN_NANOS = 10_000_000_000L;

  /** The policies, by their flag names. */
  public enum Policy {
    /** The upstream whose predicted per-user decode TPS at its in-flight count + 1 is highest. */
    TPS("tps"),
    /** Each upstream in turn. */
    ROUND_ROBIN("round-robin"),
    /** The upstream with the fewest requests in flight (the first of the tied). */
    LEAST_IN_FLIGHT("least-in-flight");

    private final String flag;

    Policy(String flag) {
      this.flag = flag;
    }

    /** The name on the command line and in settings files. */
    public String flag() {
      return flag;
    }

    /**
     * The policy named {@code s}.
     *
     * @throws IllegalArgumentException naming the three
     */
    public static Policy parse(String s) {
      String key = s.strip().toLowerCase(Locale.ROOT);
      for (Policy p : values()) {
        if (p.flag.equals(key)) {
          return p;
        }
      }
      throw new IllegalArgumentException(
          "balance '" + s + "': write tps, round-robin or least-in-flight");
    }
  }

  public Balance {
    Objects.requireNonNull(policy, "policy");
    seeds = Map.copyOf(seeds);
    if (!(fluidTps > 0) || Double.isInfinite(fluidTps)) {
      throw new IllegalArgumentException("fluid_tps must be a positive number of tokens/s, got " + fluidTps);
    }
    if (coolDownNanos < 0) {
      throw new IllegalArgumentException("the cool-down cannot be negative");
    }
  }

  /** {@code policy} with the default threshold and cool-down, no seeds. */
  public static Balance of(Policy policy) {
    return new Balance(policy, DEFAULT_FLUID_TPS, DEFAULT_COOL_DOWN_NANOS, Map.of());
  }
}
