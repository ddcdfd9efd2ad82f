package dev.tokenmeter.core.analysis;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The conversations of one stage ({@code bench --turns}): how sessions ended, how long they ran
 * and how many tokens they carried, and the latency and prompt growth by turn index. Null in a
 * {@link StageResult} of a stage without sessions. See {@code docs/METRICS.md}, "Sessions".
 *
 * <p>Session counts and per-session distributions cover every session of the stage, warm-up and
 * cool-down included (a session spans phases); the per-session distributions hold the sessions
 * that ended of themselves ({@link #finished} and {@link #endedByMaxContext}). The by-turn figures
 * hold successful {@code MEASURED} requests only, as the stage's other distributions do.
 *
 * @param started sessions whose first turn was sent (or tried)
 * @param finished sessions that sent and got answered every turn they planned
 * @param endedByError sessions ended by a failed turn (an error or a timeout): its answer could not
 *     be appended, so the conversation could not go on
 * @param endedByMaxContext sessions ended because their next prompt would have exceeded {@code
 *     --max-context}
 * @param inProgressAtEnd sessions still running when the stage stopped (cut, not counted above)
 * @param duration nanoseconds from a session's first turn's scheduled start to its last turn's end
 * @param turns turns per session
 * @param inputTokens prompt tokens per session, summed over its turns
 * @param outputTokens output tokens per session, summed over its turns
 * @param byTurn by turn index: turns 1 to {@link #TURN_CAP}, then one bucket for every later turn
 * @param agent the agent loops' counters ({@code --profile agent}), null for other sessions
 */
public record Sessions(
    long started,
    long finished,
    long endedByError,
    long endedByMaxContext,
    long inProgressAtEnd,
    Histogram duration,
    Histogram turns,
    Histogram inputTokens,
    Histogram outputTokens,
    List<ByTurn> byTurn,
    Agent agent) {

  /** Turns reported one by one; later turns share one bucket ({@code "later"}). */
  public static final int TURN_CAP = 8;

  public Sessions {
    byTurn = List.copyOf(byTurn);
  }

  /** Sessions that are not agent loops. */
  public Sessions(long started, long finished, long endedByError, long endedByMaxContext, long inProgressAtEnd,
      Histogram duration, Histogram turns, Histogram inputTokens, Histogram outputTokens, List<ByTurn> byTurn) {
    this(started, finished, endedByError, endedByMaxContext, inProgressAtEnd, duration, turns, inputTokens,
        outputTokens, byTurn, null);
  }

  /**
   * The tool steps of agent sessions, over the same successful {@code MEASURED} requests as the
   * by-turn figures (requests that offered tools).
   *
   * @param steps requests that offered tools and were answered
   * @param toolCalls of those, answers that were a tool call (one or several calls)
   * @param toolResults of those, requests that carried a tool result answering a call ({@code tool}
   *     message, {@code tool_result} block, {@code functionResponse}, {@code function_call_output})
   * @param calls the tool calls in those answers, each call of a parallel answer counted (equal to
   *     {@code toolCalls} when every answer calls one tool)
   */
  public record Agent(long steps, long toolCalls, long toolResults, long calls) {
    /** Tool calls over steps; NaN without steps. */
    public double toolCallShare() {
      return steps > 0 ? (double) toolCalls / steps : Double.NaN;
    }
  }

  /** Sessions that ended of themselves: finished every turn, or stopped by the context limit. */
  public long ended() {
    return finished + endedByMaxContext;
  }

  /**
   * One turn index's figures.
   *
   * @param firstTurn the turn index (1-based); {@code TURN_CAP + 1} for the "later" bucket
   * @param ttft TTFT from the send, nanoseconds
   * @param ttftFromScheduled TTFT from the scheduled start, nanoseconds
   * @param tpot TPOT in nanoseconds (requests where it is defined)
   * @param promptTokens prompt tokens per request (server usage where reported, else the client's)
   * @param promptTokensReportingCache the sum of prompt tokens over requests whose server reported
   *     cached tokens (the denominator of {@link #cachedShare})
   * @param cachedTokens the sum of cached prompt tokens those requests reported
   */
  public record ByTurn(
      int firstTurn,
      Histogram ttft,
      Histogram ttftFromScheduled,
      Histogram tpot,
      Histogram promptTokens,
      long promptTokensReportingCache,
      long cachedTokens) {

    /** {@code "1"}..{@code "8"}, or {@code "later"} (turn 9 on). */
    public String label() {
      return firstTurn > TURN_CAP ? "later" : Integer.toString(firstTurn);
    }

    /** Requests in this bucket. */
    public long requests() {
      return ttft.getTotalCount();
    }

    /**
     * Cached prompt tokens over prompt tokens, among requests whose server reported a cached count;
     * NaN when none did.
     */
    public double cachedShare() {
      return promptTokensReportingCache > 0 ? (double) cachedTokens / promptTokensReportingCache : Double.NaN;
    }
  }

  /**
   * The histogram of {@code metric} ({@link Metric#TTFT}, {@link Metric#TTFT_FROM_SCHEDULED} or
   * {@link Metric#TPOT}, nanoseconds) over the turns in {@code range}: the buckets it covers,
   * merged.
   */
  public Histogram over(Metric metric, TurnRange range) {
    Histogram merged = new Histogram(3);
    for (ByTurn t : byTurn) {
      if (range.contains(t.firstTurn())) {
        merged.add(switch (metric) {
          case TTFT -> t.ttft();
          case TTFT_FROM_SCHEDULED -> t.ttftFromScheduled();
          case TPOT -> t.tpot();
          default -> throw new IllegalArgumentException(metric + " is not recorded by turn");
        });
      }
    }
    return merged;
  }

  /**
   * The sessions of load generators that ran side by side ({@code tokenmeter merge}, {@code bench
   * --workers}): counts and the agents' counters add, histograms add (so every distribution is of
   * all the parts' sessions together), turn buckets merge by index. The agent counters are present
   * when any part's are.
   */
  public static Sessions merge(List<Sessions> parts) {
    long started = 0;
    long finished = 0;
    long byError = 0;
    long byMaxContext = 0;
    long inProgress = 0;
    Histogram duration = empty();
    Histogram turns = empty();
    Histogram input = empty();
    Histogram output = empty();
    java.util.TreeMap<Integer, ByTurn> buckets = new java.util.TreeMap<>();
    Agent agent = null;
    for (Sessions p : parts) {
      started += p.started;
      finished += p.finished;
      byError += p.endedByError;
      byMaxContext += p.endedByMaxContext;
      inProgress += p.inProgressAtEnd;
      duration.add(p.duration);
      turns.add(p.turns);
      input.add(p.inputTokens);
      output.add(p.outputTokens);
      for (ByTurn t : p.byTurn) {
        buckets.merge(t.firstTurn(), copy(t), Sessions::add);
      }
      if (p.agent != null) {
        agent = agent == null ? p.agent
            : new Agent(agent.steps() + p.agent.steps(), agent.toolCalls() + p.agent.toolCalls(),
                agent.toolResults() + p.agent.toolResults(), agent.calls() + p.agent.calls());
      }
    }
    return new Sessions(started, finished, byError, byMaxContext, inProgress, duration, turns, input, output,
        List.copyOf(buckets.values()), agent);
  }

  private static Histogram empty() {
    Histogram h = new Histogram(3);
    h.setAutoResize(true);
    return h;
  }

  private static ByTurn copy(ByTurn t) {
    return add(new ByTurn(t.firstTurn(), empty(), empty(), empty(), empty(), 0, 0), t);
  }

  private static ByTurn add(ByTurn into, ByTurn t) {
    into.ttft().add(t.ttft());
    into.ttftFromScheduled().add(t.ttftFromScheduled());
    into.tpot().add(t.tpot());
    into.promptTokens().add(t.promptTokens());
    return new ByTurn(into.firstTurn(), into.ttft(), into.ttftFromScheduled(), into.tpot(), into.promptTokens(),
        into.promptTokensReportingCache() + t.promptTokensReportingCache(), into.cachedTokens() + t.cachedTokens());
  }

  /** The bucket of turn {@code turn} (1-based): its own up to {@link #TURN_CAP}, then "later". */
  public static int bucketOf(int turn) {
    return Math.min(Math.max(turn, 1), TURN_CAP + 1) - 1;
  }
}
