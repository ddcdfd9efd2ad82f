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

  /**
   * {@code part}'s arrivals of the schedule of the whole run, whose rate is {@code share}'s times
   * {@code part.count()}: arrivals {@code index, index + count, index + 2·count, ...} of that one
   * schedule, so the workers together send each arrival once. {@code share} itself for the whole.
   */
  static ArrivalSchedule of(LoadModel.Open share, long seed, Shard part) {
    if (part.whole()) {
      return of(share, seed);
    }
    ArrivalSchedule all = of(new LoadModel.Open(share.ratePerSecond() * part.count(), share.arrivals(),
        share.maxConcurrency()), seed);
    for (int i = 0; i < part.index(); i++) {
      all.nextOffsetNanos(); // the arrivals before this worker's first
    }
    return () -> {
      long offset = all.nextOffsetNanos();
      for (int i = 1; i < part.count(); i++) {
        all.nextOffsetNanos(); // the other workers' arrivals
      }
      return offset;
    };
  }
}
