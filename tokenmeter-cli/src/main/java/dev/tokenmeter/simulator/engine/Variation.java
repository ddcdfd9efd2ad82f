package dev.tokenmeter.simulator.engine;

import java.util.SplittableRandom;

/**
 * The run-to-run variation a real engine shows and the roofline does not: each iteration's time
 * scattered around the cost model's (kernel timing, host jitter, Python's garbage collector), and
 * each request reaching the scheduler a little after its send (HTTP handling, tokenization, the
 * hop from the API server to the engine, which also spreads a closed loop's users apart).
 * Immutable; {@link #NONE} keeps the engine exact, as the accuracy fit and the hand-checked tests
 * use it.
 *
 * <pre>
 * design notes
 * - Iteration time is multiplied by a log-normal factor of mean 1 and coefficient of variation
 *   iterationCv: exp(s·z − s²/2) with s² = ln(1 + cv²), z standard normal. Mean 1 keeps
 *   throughput and the means where the fit put them; the spread shows in ITL percentiles and, for
 *   short outputs, in TPOT's.
 * - Arrival delay is uniform in [0, arrivalJitterNanos]: it adds half its width to TTFT on
 *   average and breaks the lock-step of a closed loop whose users all start at once with identical
 *   requests, so their prompts stop prefilling as one cohort.
 * - ESTIMATED_ITERATION_CV 0.05 and ESTIMATED_ARRIVAL_JITTER_NANOS 2 ms are estimates, neither
 *   fitted nor measured here: 2 ms is the order of a loopback client's own first-token cost
 *   (tokenmeter's client reads TTFT 1.19 ms above the server's record in GroundTruthIT's CI run)
 *   plus a server's HTTP and tokenization step.
 * - Off by default (simulate --variation turns the estimates on): beside the published p99s
 *   (docs/SIMULATOR.md, "Tails") they do not make the predictions better. A 2 ms jitter splits a
 *   closed loop's cohort only where it straddles an iteration's start, and the split cohorts queue
 *   behind each other's prefills: mean TTFT rises (NIM at c = 5: 507 ms exact, 752 ms varied,
 *   547 ms published).
 * - Draws come from one SplittableRandom per stream, seeded: the same seed and call order give
 *   the same run.
 * </pre>
 *
 * @param iterationCv coefficient of variation of an iteration's time, ≥ 0 and < 1 (0: exact)
 * @param arrivalJitterNanos widest delay between a request's send and its arrival at the
 *     scheduler, ≥ 0
 * @param seed seeds the draws
 */
public record Variation(double iterationCv, long arrivalJitterNanos, long seed) {
  /** No variation: iterations take exactly the cost model's time, requests arrive when sent. */
  public static final Variation NONE = new Variation(0, 0, 0);

  /** Estimated spread of iteration times ({@code simulate --variation}; see design notes). */
  public static final double ESTIMATED_ITERATION_CV = 0.05;

  /** Estimated widest arrival delay ({@code simulate --variation}): 2 ms (see design notes). */
  public static final long ESTIMATED_ARRIVAL_JITTER_NANOS = 2_000_000L;

  public Variation {
    if (!(iterationCv >= 0 && iterationCv < 1)) {
      throw new IllegalArgumentException(
          "iteration time coefficient of variation must be in [0, 1), got " + iterationCv);
    }
    if (arrivalJitterNanos < 0) {
      throw new IllegalArgumentException("arrival jitter must be >= 0, got " + arrivalJitterNanos + " ns");
    }
  }

  /** The estimates ({@code simulate --variation}), seeded. */
  public static Variation estimated(long seed) {
    return new Variation(ESTIMATED_ITERATION_CV, ESTIMATED_ARRIVAL_JITTER_NANOS, seed);
  }

  /** Whether this adds no variation at all. */
  public boolean none() {
    return iterationCv == 0 && arrivalJitterNanos == 0;
  }

  /** A stream of iteration-time factors, mean 1 (always 1 when {@code iterationCv} is 0). */
  public Draws iterationFactors() {
    return new Draws(this, 0x17E7A710L);
  }

  /** A stream of arrival delays in [0, arrivalJitterNanos] (always 0 when that is 0). */
  public Draws arrivalDelays() {
    return new Draws(this, 0xA7712A1L);
  }

  /** Seeded draws of one kind; not thread-safe. */
  public static final class Draws {
    private final SplittableRandom random;
    private final double logSigma;
    private final long jitterNanos;

    private Draws(Variation v, long stream) {
      this.random = new SplittableRandom(v.seed * 0x9E3779B97F4A7C15L + stream);
      this.logSigma = Math.sqrt(Math.log1p(v.iterationCv * v.iterationCv));
      this.jitterNanos = v.arrivalJitterNanos;
    }

    /** {@code nanos} scaled by the next log-normal factor of mean 1. */
    public long scale(long nanos) {
      if (logSigma == 0) {
        return nanos;
      }
      double factor = Math.exp(logSigma * random.nextGaussian() - logSigma * logSigma / 2);
      return Math.round(nanos * factor);
    }

    /** The next delay, uniform in [0, arrivalJitterNanos]. */
    public long delayNanos() {
      return jitterNanos == 0 ? 0 : random.nextLong(jitterNanos + 1);
    }
  }
}
