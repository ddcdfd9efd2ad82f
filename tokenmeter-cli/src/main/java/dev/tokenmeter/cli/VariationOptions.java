package dev.tokenmeter.cli;

import dev.tokenmeter.simulator.engine.Variation;
import picocli.CommandLine.Option;

/**
 * {@code simulate}'s tail options: how much the simulated engine varies (docs/SIMULATOR.md, Tails).
 * None by default: the exact engine the accuracy study fits.
 */
final class VariationOptions {
  @Option(names = "--variation", negatable = false, description = "Let the simulated engine vary as real ones do, with the estimated spread: iteration times with a coefficient of variation of 0.05 and requests reaching the scheduler up to 2 ms after their send (off by default: docs/SIMULATOR.md, Tails, compares both with published p99s).")
  boolean estimated;

  @Option(names = "--iteration-cv", paramLabel = "F", description = "Spread of each engine iteration's time around the cost model's: coefficient of variation of a log-normal factor of mean 1, in [0, 1) (default: 0, or 0.05 with --variation).")
  Double iterationCv;

  @Option(names = "--arrival-jitter", paramLabel = "DURATION", description = "Widest delay between a request's send and its arrival at the scheduler, uniform (HTTP, tokenization), e.g. 2ms (default: 0, or 2ms with --variation).")
  String arrivalJitter;

  /**
   * The variation these options describe, seeded with the run's seed.
   *
   * @throws UsageException for a value out of range
   */
  Variation resolve(long seed) {
    double cv = iterationCv != null ? iterationCv : estimated ? Variation.ESTIMATED_ITERATION_CV : 0;
    try {
      long jitter = arrivalJitter != null
          ? Durations.parseNanos("--arrival-jitter", arrivalJitter)
          : estimated ? Variation.ESTIMATED_ARRIVAL_JITTER_NANOS : 0;
      return new Variation(cv, jitter, seed);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage().replace("iteration time coefficient of variation", "--iteration-cv"));
    }
  }
}
