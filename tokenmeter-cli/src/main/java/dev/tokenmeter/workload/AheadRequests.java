package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.stream.IntStream;

/**
 * A {@link RequestSource} that builds its specs ahead of the engine, in id order, at most {@code
 * ahead} of them waiting at once: for long sources whose prompts cannot all be built up front (an
 * hour of a trace holds gigabytes of prompt text). The first {@code ahead} are built in the
 * constructor (in parallel); a daemon thread builds the rest as the engine takes them. An id the
 * builder has not reached yet is built on the caller's thread (and shows as send lag). The wrapped
 * source must be thread-safe and depend only on the id. Thread-safe.
 */
public final class AheadRequests implements RequestSource {
  private final RequestSource source;
  private final ConcurrentHashMap<Long, RequestSpec> built = new ConcurrentHashMap<>();
  private final Semaphore room;

  /** Builds ids {@code 0 .. count-1}; {@code ahead} at least 1. */
  public AheadRequests(RequestSource source, long count, int ahead) {
    this.source = Objects.requireNonNull(source, "source");
    if (ahead < 1 || count < 0) {
      throw new IllegalArgumentException("need ahead >= 1 and count >= 0");
    }
    int first = (int) Math.min(count, ahead);
    IntStream.range(0, first).parallel().forEach(i -> built.put((long) i, source.next(i)));
    this.room = new Semaphore(ahead - first);
    if (count > first) {
      Thread builder = new Thread(() -> build(first, count), "tokenmeter-prompts-ahead");
      builder.setDaemon(true);
      builder.start();
    }
  }

  private void build(long from, long count) {
    for (long i = from; i < count; i++) {
      try {
        room.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      built.put(i, source.next(i));
    }
  }

  @Override
  public RequestSpec next(long id) {
    RequestSpec spec = built.remove(id);
    if (spec == null) {
      return source.next(id);
    }
    room.release();
    return spec;
  }
}
