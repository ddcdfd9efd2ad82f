package dev.tokenmeter.core.load;

/**
 * The arrival offsets of an open-loop plan, seeded and clock-free: {@link #nextOffsetNanos()}
 * returns arrival 0, 1, 2, ... as absolute offsets from the stage start (never "last send + gap",
 * so a late send does not delay later arrivals). Not thread-safe.
 */
public interface ArrivalSchedule {

  /** Offset of the next arrival in nanoseconds from the start; non-decreasing. */
  long nextOffsetNanos();

  /** The schedule for {@code model} drawn from {@code seed}. */
  static ArrivalSchedule of(LoadModel.Open model, long seed) {
    return ArrivalSchedules.create(model, seed);
  }
}
