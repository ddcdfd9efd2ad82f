package dev.tokenmeter.proxy.dashboard;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.ledger.MeteredRequest;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The finished requests of the last hour, in the order they ended, for the per-request figures of
 * a window: at most {@code capacity} of them (about 64 bytes each), the oldest let go first. Not
 * thread-safe: {@link LiveBoard} serialises access.
 */
final class RecentRequests {
  /** What the board keeps of one request. */
  record Entry(
      long startMs,
      String tenant,
      String upstream,
      ErrorClass errorClass,
      int inputTokens,
      int outputTokens,
      long ttftNanos,
      double decodeTps,
      double cost,
      String currency) {

    static Entry of(MeteredRequest r) {
      return new Entry(r.startedAtEpochMillis(), r.tenant(), r.upstream(), r.errorClass(), r.inputTokens(),
          r.outputTokens(), r.ttftNanos(), r.decodeTokensPerSecond(), r.cost(), r.currency());
    }
  }

  private final int capacity;
  private final long horizonMillis;
  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  /** The latest start among requests let go for room rather than age; Long.MIN_VALUE: none. */
  private long droppedForRoomUpToMs = Long.MIN_VALUE;

  RecentRequests(int capacity, long horizonMillis) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.horizonMillis = horizonMillis;
  }

  void add(Entry e, long nowMillis) {
    expire(nowMillis);
    if (entries.size() == capacity) {
      droppedForRoomUpToMs = Math.max(droppedForRoomUpToMs, entries.removeFirst().startMs());
    }
    entries.addLast(e);
  }

  /** Lets go of requests that started more than the horizon ago (those that ended first go first). */
  void expire(long nowMillis) {
    long oldest = nowMillis - horizonMillis;
    while (!entries.isEmpty() && entries.peekFirst().startMs() < oldest) {
      entries.removeFirst();
    }
  }

  /**
   * The earliest start from which every request is still held: just after the latest start of a
   * request let go for room; {@code Long.MIN_VALUE} when none was.
   */
  long completeFromMs() {
    return droppedForRoomUpToMs == Long.MIN_VALUE ? Long.MIN_VALUE : droppedForRoomUpToMs + 1;
  }

  /** Calls {@code out} with each request that started at or after {@code fromMs}, up to {@code toMs}. */
  void forEachStartedIn(long fromMs, long toMs, Consumer<Entry> out) {
    for (Entry e : entries) {
      if (e.startMs() >= fromMs && e.startMs() <= toMs) {
        out.accept(e);
      }
    }
  }
}
