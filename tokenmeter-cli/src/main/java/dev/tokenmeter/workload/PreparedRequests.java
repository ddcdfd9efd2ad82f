package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * A {@link RequestSource} whose first {@code count} specs are built up front, so {@link #next} is
 * an array read for them (the engine calls it on its event loop, where building a 32k-token prompt
 * would stall every stream for a millisecond). Ids beyond {@code count} fall through to the wrapped
 * source. Building runs on the common fork-join pool; the wrapped source must be thread-safe and
 * depend only on the id (as {@link SyntheticWorkload} and {@link FileWorkload} do), so the result
 * is the same as calling it in order. Thread-safe once constructed.
 */
public final class PreparedRequests implements RequestSource {
  private final RequestSource source;
  private final RequestSpec[] prepared;

  /** Builds specs for ids {@code 0 .. count-1} now, in parallel. */
  public PreparedRequests(RequestSource source, int count) {
    this.source = Objects.requireNonNull(source, "source");
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative, got " + count);
    }
    this.prepared = new RequestSpec[count];
    IntStream.range(0, count).parallel().forEach(i -> prepared[i] = source.next(i));
  }

  @Override
  public RequestSpec next(long id) {
    return id >= 0 && id < prepared.length ? prepared[(int) id] : source.next(id);
  }

  /** How many ids were built up front. */
  public int preparedCount() {
    return prepared.length;
  }
}
