package dev.tokenmeter.core.load;

/**
 * One worker's part of a stage that several load generators run together ({@code bench --workers
 * N}): worker {@code index} of {@code count}. Request ids stay unique over the workers: the
 * worker's {@code k}-th request is request {@code k·count + index} of the whole run, so the workload
 * draws its prompt from that id and no two workers send the same one. An open loop's worker takes
 * every {@code count}-th arrival of the whole run's schedule, starting at arrival {@code index}
 * ({@link ArrivalSchedule#of(LoadModel.Open, long, Shard)}): together the workers send exactly the
 * single-process run's arrivals, none twice. Immutable.
 *
 * @param index this worker, from 0
 * @param count the workers in all, at least 1
 */
public record Shard(int index, int count) {
  /** The whole run: one generator, ids as they come. */
  public static final Shard WHOLE = new Shard(0, 1);

  public Shard {
    if (count < 1 || index < 0 || index >= count) {
      throw new IllegalArgumentException("a shard is worker 0.." + (count - 1) + " of " + count + ", got " + index);
    }
  }

  /** The run-wide id of this worker's {@code localId}-th request (both from 0). */
  public long id(long localId) {
    return localId * count + index;
  }

  /** Whether this is the whole run. */
  public boolean whole() {
    return count == 1;
  }

  /** {@code "2/4"}: worker 2 of 4. */
  public String label() {
    return index + "/" + count;
  }
}
