package dev.tokenmeter.core.analysis;

import dev.tokenmeter.core.load.LoadModel;

/**
 * How long an open loop's requests waited between their schedule and their send ({@code
 * scheduled_to_sent}: a {@code --max-concurrency} queue, a late client, the connect), and whether
 * that wait is material: large enough that TTFT from the send and TTFT from the schedule tell
 * different stories. Immutable.
 *
 * <p>Material when the wait's p99 exceeds {@link #MATERIAL_MILLIS} (10 ms: at the ITLs of 10-30 ms
 * that streaming servers reach, one token's time) or {@link #MATERIAL_FRACTION} (5%) of TTFT p99
 * from the schedule. Closed loops never wait for a slot ({@link LatencyOrigin}): never material.
 *
 * @param waitP99Millis p99 of {@code sent − scheduled} over successful measured requests, NaN when none
 * @param ttftP99Millis p99 of TTFT from the schedule (the open loop's headline)
 * @param ttftSentP99Millis p99 of TTFT from the send
 * @param material whether the wait is material (see above)
 */
public record SendWait(
    double waitP99Millis, double ttftP99Millis, double ttftSentP99Millis, boolean material) {
  /** A wait whose p99 is above this many milliseconds is material. */
  public static final double MATERIAL_MILLIS = 10;

  /** A wait whose p99 is above this fraction of TTFT p99 from the schedule is material. */
  public static final double MATERIAL_FRACTION = 0.05;

  /** The wait of stage {@code r}. */
  public static SendWait of(StageResult r) {
    double wait = r.metric(Metric.SCHEDULED_TO_SENT).p99();
    double ttft = r.metric(Metric.TTFT_FROM_SCHEDULED).p99();
    double sent = r.metric(Metric.TTFT).p99();
    boolean open = r.plan().load() instanceof LoadModel.Open;
    boolean material =
        open && (wait > MATERIAL_MILLIS || (ttft > 0 && wait > MATERIAL_FRACTION * ttft));
    return new SendWait(wait, ttft, sent, material);
  }

  /** The wait's p99 as a fraction of TTFT p99 from the schedule; NaN when that is not positive. */
  public double fractionOfTtft() {
    return ttftP99Millis > 0 ? waitP99Millis / ttftP99Millis : Double.NaN;
  }
}
