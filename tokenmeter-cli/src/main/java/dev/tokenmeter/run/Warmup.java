package dev.tokenmeter.run;

import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A warm-up before a run's first stage and outside it ({@code bench --trace-warmup}): {@code
 * connections} closed-loop users send {@code requests}' requests back to back for {@code
 * durationNanos}, then the requests in flight finish, and only then does the first stage (the
 * trace's clock) start. Nothing of it is recorded: not in requests.jsonl, not in any stage; the
 * summary states it ({@link Result#describe}).
 *
 * <pre>
 * design notes
 * - Why (issue 37): a trace's first records otherwise pay the client's start-up. In the busiest
 *   minute of an hour-long trace against sim serve the worst send lags fell in the replay's first
 *   seconds (class loading, the JIT compiling the send path, connections being opened), so the
 *   schedule-lag tail measured the client's start, not its pace.
 * - The users keep their connections open (their last requests end, they are not cancelled), so
 *   the stage finds them idle in the pool.
 * - The requests are not the trace's: a prefix cache warmed with the trace's blocks would serve the
 *   trace's first records from it, which the trace did not say.
 * </pre>
 *
 * @param durationNanos how long the users send (their last requests then run to their end)
 * @param connections users, each holding one connection, at least 1
 * @param requests a fresh source of the warm-up's requests, asked once per warm-up
 */
public record Warmup(long durationNanos, int connections, Supplier<RequestSource> requests) {
  public Warmup {
    if (durationNanos <= 0) {
      throw new IllegalArgumentException("a warm-up lasts a positive time, got " + durationNanos + " ns");
    }
    if (connections < 1) {
      throw new IllegalArgumentException("a warm-up needs at least one connection, got " + connections);
    }
  }

  /** The warm-up as a stage: closed loop, its window its duration, no warm-up or cool-down of its own. */
  StagePlan plan(long seed) {
    return new StagePlan(0, new LoadModel.Closed(connections, 0), new StopCondition.Duration(durationNanos), 0, 0, seed);
  }

  /**
   * What a warm-up did: its requests that ended ({@code completed} of them successfully) and its
   * length from its start to the end of its last request.
   */
  public record Result(Warmup warmup, long requests, long completed, long elapsedNanos) {
    /** For summary.json's {@code settings.workload}: {@code trace_warmup_*}. */
    Map<String, Object> describe() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("trace_warmup_connections", warmup.connections());
      m.put("trace_warmup_requests", requests);
      m.put("trace_warmup_failed", requests - completed);
      m.put("trace_warmup_elapsed_ms", Math.round(elapsedNanos / 1e6));
      return m;
    }
  }
}
