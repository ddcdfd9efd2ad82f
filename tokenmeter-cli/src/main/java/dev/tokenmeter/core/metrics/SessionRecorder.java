package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.Sessions;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.SessionTurn;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Records a stage's conversations into {@link Sessions}: the engine reports each session's start
 * and end, the stage recorder each measured successful request of a session. Single writer (the
 * stage's loop), as {@link StageRecorder}.
 */
public final class SessionRecorder {
  private static final int DIGITS = 3;
  private static final int BUCKETS = Sessions.TURN_CAP + 1;

  /** How a session ended. */
  public enum Ending {
    FINISHED,
    MAX_CONTEXT,
    ERROR
  }

  private long started;
  private long finished;
  private long endedByError;
  private long endedByMaxContext;
  private final Histogram duration = new Histogram(DIGITS);
  private final Histogram turns = new Histogram(DIGITS);
  private final Histogram inputTokens = new Histogram(DIGITS);
  private final Histogram outputTokens = new Histogram(DIGITS);
  private final Histogram[] ttft = histograms();
  private final Histogram[] ttftScheduled = histograms();
  private final Histogram[] tpot = histograms();
  private final Histogram[] prompt = histograms();
  private final long[] promptReportingCache = new long[BUCKETS];
  private final long[] cached = new long[BUCKETS];
  private long agentSteps;
  private long toolCalls;
  private long calls;
  private long toolResults;

  private static Histogram[] histograms() {
    Histogram[] h = new Histogram[BUCKETS];
    for (int i = 0; i < BUCKETS; i++) {
      h[i] = new Histogram(DIGITS);
    }
    return h;
  }

  /** A session sent (or tried) its first turn. */
  public void started() {
    started++;
  }

  /**
   * A session ended after {@code turnCount} answered turns, {@code durationNanos} after its first
   * turn was scheduled, having carried these prompt and output tokens over its turns.
   */
  public void ended(Ending how, int turnCount, long durationNanos, long promptTokens, long answerTokens) {
    switch (how) {
      case ERROR -> {
        endedByError++;
        return;
      }
      case FINISHED -> finished++;
      case MAX_CONTEXT -> endedByMaxContext++;
    }
    duration.recordValue(Math.max(0, durationNanos));
    turns.recordValue(Math.max(0, turnCount));
    inputTokens.recordValue(Math.max(0, promptTokens));
    outputTokens.recordValue(Math.max(0, answerTokens));
  }

  /** A measured request of a session succeeded with metrics {@code m}. */
  void measured(RequestTimeline t, RequestMetrics m) {
    SessionTurn turn = t.spec().turn();
    if (turn == null) {
      return;
    }
    int b = Sessions.bucketOf(turn.turn());
    if (t.spec().prompt() instanceof Prompt.Chat c && !c.tools().isEmpty()) {
      agentSteps++;
      toolCalls += t.toolCalls().isEmpty() ? 0 : 1;
      calls += t.toolCallCount();
      Message last = c.messages().get(c.messages().size() - 1);
      toolResults += last.tool() != null && last.role().equals("tool") ? 1 : 0;
    }
    if (m.ttftNanos() >= 0) {
      ttft[b].recordValue(m.ttftNanos());
    }
    if (m.ttftFromScheduledNanos() >= 0) {
      ttftScheduled[b].recordValue(m.ttftFromScheduledNanos());
    }
    if (!m.tpotUndefined()) {
      tpot[b].recordValue(Math.round(m.tpotNanos()));
    }
    int in = m.inputTokens();
    if (in >= 0) {
      prompt[b].recordValue(in);
      if (t.usageCachedTokens() >= 0) {
        promptReportingCache[b] += in;
        cached[b] += Math.min(t.usageCachedTokens(), in);
      }
    }
  }

  /** Whether any session started. */
  public boolean any() {
    return started > 0;
  }

  /** The stage's sessions; sessions started but not ended are those cut by the stage's end. */
  public Sessions result() {
    List<Sessions.ByTurn> byTurn = new ArrayList<>();
    for (int b = 0; b < BUCKETS; b++) {
      if (ttft[b].getTotalCount() > 0 || prompt[b].getTotalCount() > 0) {
        byTurn.add(new Sessions.ByTurn(b + 1, ttft[b], ttftScheduled[b], tpot[b], prompt[b], promptReportingCache[b], cached[b]));
      }
    }
    long inProgress = started - finished - endedByError - endedByMaxContext;
    return new Sessions(started, finished, endedByError, endedByMaxContext, Math.max(0, inProgress),
        duration, turns, inputTokens, outputTokens, byTurn,
        agentSteps > 0 ? new Sessions.Agent(agentSteps, toolCalls, toolResults, calls) : null);
  }
}
