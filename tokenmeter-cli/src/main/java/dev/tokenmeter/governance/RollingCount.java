package dev.tokenmeter.governance;

/**
 * Good and total request counts over a rolling window of {@code windowNanos}, kept in {@link
 * #SLOTS} slots of {@code windowNanos / SLOTS} each: the sum covers the current slot (partly
 * elapsed) and the 29 before it, so between 29/30 of the window and all of it. Constant memory.
 * Not thread-safe (the {@link SloBook}'s lock guards it).
 */
final class RollingCount {
  /** Slots per window: a 5 min window rolls in 10 s steps, a 3 d one in 2.4 h steps. */
  static final int SLOTS = 30;

  private final long slotNanos;
  private final long originNanos;
  private final long[] slotOf = new long[SLOTS];
  private final long[] good = new long[SLOTS];
  private final long[] total = new long[SLOTS];

  /** A window of {@code windowNanos} whose slots are counted from {@code originNanos}. */
  RollingCount(long windowNanos, long originNanos) {
    if (windowNanos < SLOTS) {
      throw new IllegalArgumentException("a window must be at least " + SLOTS + " ns");
    }
    this.slotNanos = windowNanos / SLOTS;
    this.originNanos = originNanos;
    java.util.Arrays.fill(slotOf, Long.MIN_VALUE);
  }

  /** Counts one request at {@code nanos}: good or bad. */
  void add(long nanos, boolean isGood) {
    long slot = slot(nanos);
    int i = (int) Math.floorMod(slot, (long) SLOTS);
    if (slotOf[i] != slot) {
      slotOf[i] = slot;
      good[i] = 0;
      total[i] = 0;
    }
    total[i]++;
    if (isGood) {
      good[i]++;
    }
  }

  /** Requests in the window ending at {@code nanos}. */
  long total(long nanos) {
    return sum(total, nanos);
  }

  /** Good requests in the window ending at {@code nanos}. */
  long good(long nanos) {
    return sum(good, nanos);
  }

  private long sum(long[] counts, long nanos) {
    long now = slot(nanos);
    long s = 0;
    for (int i = 0; i < SLOTS; i++) {
      if (slotOf[i] <= now && slotOf[i] > now - SLOTS) {
        s += counts[i];
      }
    }
    return s;
  }

  private long slot(long nanos) {
    return Math.floorDiv(nanos - originNanos, slotNanos);
  }
}
