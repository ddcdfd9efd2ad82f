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
 */
public record StagePlan(
    int index, LoadModel load, StopCondition stop, long warmupNanos, long cooldownNanos, long seed) {
  public StagePlan {
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(stop, "stop");
    if (warmupNanos < 0 || cooldownNanos < 0) {
      throw new IllegalArgumentException("warm-up and cool-down must not be negative");
    }
  }
}
