package dev.tokenmeter.core.load;

import java.util.Objects;

/**
 * One stage of a run: a load model held through warm-up, a measurement window and cool-down.
 *
 * @param index 0-based position in the run
 * @param load the load model
 * @param stop when the measurement window ends
 * @param warmupNanos warm-up before the window (not measured)
 * @param cooldownNanos load kept on after the window so the window's last requests see the same
 *     load (not measured)
 * @param seed seed for this stage's arrivals and workload draws
 * @param maxRequests the most requests the stage sends, every phase counted ({@code
 *     --max-requests}); 0 for no cap. With a {@link StopCondition.Requests} window of N it is at
 *     least N, and the warm-up sends at most {@code maxRequests − N} ({@link #warmupRequestLimit}),
 *     so the window always gets its N
 * @param shard the part of the stage this generator runs ({@code bench --workers}: its {@code load}
 *     is then the worker's share); {@link Shard#WHOLE} for a run of its own
 */
public record StagePlan(
    int index, LoadModel load, StopCondition stop, long warmupNanos, long cooldownNanos, long seed,
    long maxRequests, Shard shard) {
  public StagePlan {
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(shard, "shard");
    Objects.requireNonNull(stop, "stop");
    if (warmupNanos < 0 || cooldownNanos < 0) {
      throw new IllegalArgumentException("warm-up and cool-down must not be negative");
    }
    if (maxRequests < 0) {
      throw new IllegalArgumentException("--max-requests must be at least 1, got " + maxRequests);
    }
    if (maxRequests > 0 && stop instanceof StopCondition.Requests r && r.count() > maxRequests) {
      throw new IllegalArgumentException("--max-requests " + maxRequests + " is below --requests " + r.count()
          + ": the window alone sends " + r.count() + "; give --max-requests " + r.count() + " or more");
    }
    if (maxRequests > 0 && warmupNanos > 0 && stop instanceof StopCondition.Requests r && r.count() == maxRequests) {
      throw new IllegalArgumentException("--max-requests " + maxRequests + " leaves the warm-up no requests to send:"
          + " give --warmup 0s, or --max-requests above " + maxRequests + " to warm up with the difference");
    }
  }

  /** A stage run by one generator alone. */
  public StagePlan(
      int index, LoadModel load, StopCondition stop, long warmupNanos, long cooldownNanos, long seed,
      long maxRequests) {
    this(index, load, stop, warmupNanos, cooldownNanos, seed, maxRequests, Shard.WHOLE);
  }

  /** A stage with no cap on the requests it sends. */
  public StagePlan(int index, LoadModel load, StopCondition stop, long warmupNanos, long cooldownNanos, long seed) {
    this(index, load, stop, warmupNanos, cooldownNanos, seed, 0);
  }

  /** This plan with {@code load} instead of its own, everything else (the cap included) kept. */
  public StagePlan withLoad(LoadModel load) {
    return new StagePlan(index, load, stop, warmupNanos, cooldownNanos, seed, maxRequests, shard);
  }

  /** This plan run as {@code part} of several generators ({@code load} is then this part's share). */
  public StagePlan withShard(Shard part) {
    return new StagePlan(index, load, stop, warmupNanos, cooldownNanos, seed, maxRequests, part);
  }

  /**
   * The most requests the warm-up may send: {@code maxRequests} less a {@code --requests} window's
   * N; {@link Long#MAX_VALUE} when there is no cap.
   */
  public long warmupRequestLimit() {
    if (maxRequests == 0) {
      return Long.MAX_VALUE;
    }
    return stop instanceof StopCondition.Requests r ? maxRequests - r.count() : maxRequests;
  }
}
