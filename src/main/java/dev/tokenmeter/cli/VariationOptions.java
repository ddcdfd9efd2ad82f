package dev.tokenmeter.cli;

import dev.tokenmeter.simulator.engine.Variation;
import picocli.CommandLine.Option;

/** {@code simulate}'s tail options: how much the simulated engine varies (docs/SIMULATOR.md, Tails). */
final class VariationOptions {
  @Option(names = "--iteration-cv", paramLabel = "F", description = "Spread of each engine iteration's time around the cost model's: coefficient of variation of a log-normal factor of mean 1, in [0, 1) (default: 0.05).")
  Double iterationCv;

  @Option(names = "--arrival-jitter", paramLabel = "DURATION", description = "Widest delay between a request's send and its arrival at the scheduler, uniform (HTTP, tokenization; spreads closed-loop users apart), e.g. 2ms (default: 2ms).")
  String arrivalJitter;

  @Option(names = "--no-variation", negatable = false, description = "Exact engine: no iteration-time spread and no arrival jitter (p99s then come only from queueing, prefill interleaving and length distributions).")
  boolean none;

  /**
   * The variation these options describe, seeded with the run's seed.
   *
   * @throws UsageException for a value out of range, or --no-variation beside either value
   */
  Variation resolve(long seed) {
    if (none && (iterationCv != null || arrivalJitter != null)) {
      throw new UsageException("give --no-variation or --iteration-cv/--arrival-jitter, not both");
    }
    if (none) {
      return Variation.NONE;
    }
    double cv = iterationCv != null ? iterationCv : Variation.DEFAULT_ITERATION_CV;
    try {
      long jitter = arrivalJitter != null
          ? Durations.parseNanos("--arrival-jitter", arrivalJitter)
          : Variation.DEFAULT_ARRIVAL_JITTER_NANOS;
      return new Variation(cv, jitter, seed);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage().replace("iteration time coefficient of variation", "--iteration-cv"));
    }
  }
}
