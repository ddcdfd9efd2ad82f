package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.ClientHealth;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.SteadyState;
import dev.tokenmeter.core.analysis.TimeSeries;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Records one stage: every finished request, the window, requests in flight and the client's lag,
 * into HdrHistograms, counters and a per-second series; {@link #finish} turns them into a {@link
 * StageResult}.
 *
 * <p><b>Threading.</b> Single writer: every method but {@link #live(long)} must be called from one
 * thread, the event loop that runs the stage, with non-decreasing times (an earlier time is taken
 * as the latest seen, so reordering shifts an integral by at most the reorder). {@link #live(long)}
 * is safe from any thread.
 *
 * <p><b>Calls, in order:</b> {@code windowStarted} once (at the stage start when there is no
 * warm-up); {@code requestSent} right after {@code t.sent(..)}; {@code requestEnded} once per
 * request after {@code t.end(..)}, sent or not, or {@code requestEnding} then, and {@code
 * requestCounted} later when its metrics need work off the loop (an output token count); {@code windowEnded} once, on time (before handling
 * any later event: a request ending while the end is unknown has every chunk before it); {@code
 * loopLag}/{@code sendLag} whenever measured; {@code finish} once, after every request ended
 * (cancel the stragglers first, their received tokens count).
 *
 * <p><b>What counts.</b> Distributions and request counts: {@link Phase#MEASURED} requests only,
 * failures apart from successes. Output TPS: tokens of every request (any phase, failed ones'
 * received chunks too) whose chunk arrived in {@code [windowStart, windowEnd)}. Input TPS and
 * request rate: completed measured requests. Send and loop lag: calls made while the window is
 * open. Negative durations (a misused clock) are recorded as 0.
 */
public final class StageRecorder {
  private static final int DIGITS = 3;
  private static final long NONE = -1;

  private final StagePlan plan;
  private final long stageStartNanos;
  private final EnumMap<Metric, Histogram> ok = histograms();
  private final EnumMap<Metric, Histogram> failed = histograms();
  private final PerSecondSeries series;
  private final LiveView live = new LiveView();

  private long windowStartNanos = NONE;
  private long windowEndNanos = NONE;
  private int inFlight;
  private long lastChangeNanos;
  private long windowInFlightIntegral;
  private long windowOutputTokens;
  private long windowInputTokens;
  private long stageOutputTokens;
  private final long[][] phaseCounts = new long[Phase.values().length][2];
  private final long[] errors = new long[ErrorClass.values().length];
  private long tpotUndefined;
  private final TokenTally tokens;
  private final FinishTally finishes = new FinishTally();
  private final SessionRecorder sessions = new SessionRecorder();
  private final CompletionRecorder completions = new CompletionRecorder();
  private boolean finished;
  private int pending;

  /** A recorder for the stage {@code plan} that started at {@code stageStartNanos}, no tokenizer. */
  public StageRecorder(StagePlan plan, long stageStartNanos) {
    this(plan, stageStartNanos, null);
  }

  /**
   * A recorder for the stage {@code plan} that started at {@code stageStartNanos}.
   *
   * @param tokenizerOrNull the name of the tokenizer that counts answers, for the comparison with
   *     usage; null when there is none
   */
  public StageRecorder(StagePlan plan, long stageStartNanos, String tokenizerOrNull) {
    this.tokens = new TokenTally(tokenizerOrNull);
    this.plan = plan;
    this.stageStartNanos = stageStartNanos;
    this.lastChangeNanos = stageStartNanos;
    this.series = new PerSecondSeries(stageStartNanos);
  }

  private static EnumMap<Metric, Histogram> histograms() {
    EnumMap<Metric, Histogram> map = new EnumMap<>(Metric.class);
    for (Metric m : Metric.values()) {
      map.put(m, new Histogram(DIGITS));
    }
    return map;
  }

  // ---- window and in-flight ----

  /** The measurement window opened at {@code nanos}. */
  public void windowStarted(long nanos) {
    checkOpen();
    if (windowStartNanos != NONE) {
      throw new IllegalStateException("window already started");
    }
    advanceTo(nanos);
    windowStartNanos = lastChangeNanos;
    live.phase = Phase.MEASURED;
  }

  /** The measurement window closed at {@code nanos}; requests may still be in flight. */
  public void windowEnded(long nanos) {
    checkOpen();
    if (windowStartNanos == NONE || windowEndNanos != NONE) {
      throw new IllegalStateException("window not open");
    }
    advanceTo(nanos);
    windowEndNanos = lastChangeNanos;
    live.phase = Phase.COOLDOWN;
  }

  /** {@code t} was sent at {@code nanos} ({@code t.sent(nanos)} already called): +1 in flight. */
  public void requestSent(RequestTimeline t, long nanos) {
    checkOpen();
    if (t.sentNanos() < 0) {
      throw new IllegalArgumentException("request " + t.id() + " has no sent time");
    }
    advanceTo(nanos);
    inFlight++;
    live.inFlight = inFlight;
  }

  /** Integrates the in-flight level up to {@code nanos}. */
  private void advanceTo(long nanos) {
    long to = Math.max(nanos, lastChangeNanos);
    series.inFlight(lastChangeNanos, to, inFlight);
    if (windowStartNanos != NONE && windowEndNanos == NONE) {
      windowInFlightIntegral += inFlight * (to - lastChangeNanos);
    }
    lastChangeNanos = to;
  }

  private boolean windowOpen() {
    return windowStartNanos != NONE && windowEndNanos == NONE;
  }

  // ---- requests ----

  /** {@code t} ended; {@code m} are its metrics. −1 in flight when it had been sent. */
  public void requestEnded(RequestTimeline t, RequestMetrics m) {
    requestCounted(requestEnding(t), m);
  }

  /**
   * A request that ended but whose metrics wait for work done off the event loop (its output
   * token count): what the recorder knew of the window when it ended. Opaque; pass it back to
   * {@link #requestCounted}.
   */
  public static final class Pending {
    private final RequestTimeline timeline;
    private final long windowEndAtEndNanos;

    private Pending(RequestTimeline timeline, long windowEndAtEndNanos) {
      this.timeline = timeline;
      this.windowEndAtEndNanos = windowEndAtEndNanos;
    }
  }

  /**
   * {@code t} ended ({@code t.end(..)} called) and its metrics follow later through {@link
   * #requestCounted}: −1 in flight now, at {@code t.endNanos()}, so the in-flight level does not
   * include the time spent counting. {@link #finish} refuses to run while a request is pending.
   */
  public Pending requestEnding(RequestTimeline t) {
    checkOpen();
    if (t.outcome() == null) {
      throw new IllegalArgumentException("request " + t.id() + " has not ended");
    }
    advanceTo(t.endNanos());
    if (t.sentNanos() >= 0) {
      if (inFlight == 0) {
        throw new IllegalStateException("request " + t.id() + " ended but was never sent");
      }
      inFlight--;
    }
    live.inFlight = inFlight;
    pending++;
    return new Pending(t, windowEndNanos);
  }

  /**
   * The metrics {@code m} of the request {@code p} announced. Exactly as if {@link #requestEnded}
   * had been called when it ended: its tokens are split by arrival against the window as known
   * then (a request that ended before the window's end was known has every chunk inside it).
   */
  public void requestCounted(Pending p, RequestMetrics m) {
    checkOpen();
    if (m.id() != p.timeline.id()) {
      throw new IllegalArgumentException("metrics of request " + m.id() + " for " + p.timeline.id());
    }
    pending--;
    long tokens = countTokensByArrival(m, p.windowEndAtEndNanos);
    if (m.ttftNanos() >= 0) {
      series.firstToken(m.firstTokenNanos(), m.ttftNanos());
    }
    live.outputTokens += tokens;
    live.recordTtft(m.ttftNanos());
    // A request the tool cancelled (the cool-down's end, Ctrl-C, a stage stopped early) is not the
    // server's failure: it is neither completed nor failed, in no error class and in no chart bar,
    // or every interrupted stage would report "errors" (issue 43). Its tokens still count above.
    if (!m.succeeded() && m.errorClass() == dev.tokenmeter.core.request.ErrorClass.CANCELLED) {
      return;
    }
    series.ended(m.endNanos(), m.succeeded());
    phaseCounts[m.phase().ordinal()][m.succeeded() ? 0 : 1]++;
    if (m.phase() == Phase.MEASURED) {
      recordMeasured(m);
      if (m.succeeded()) {
        sessions.measured(p.timeline, m);
      }
    }
    if (m.succeeded()) {
      live.completed++;
    } else {
      live.failed++;
    }
  }

  /** Requests announced by {@link #requestEnding} whose metrics have not come yet. */
  public int pending() {
    return pending;
  }

  /** Adds each chunk's tokens to its arrival second and, inside the window, to the window count. */
  private long countTokensByArrival(RequestMetrics m, long windowEnd) {
    long total = 0;
    for (int i = 0; i < m.chunkCount(); i++) {
      int k = m.chunkTokens(i);
      if (k == 0) {
        continue;
      }
      long at = m.chunkNanos(i);
      series.addTokens(at, k);
      total += k;
      if (windowStartNanos != NONE
          && at >= windowStartNanos
          && (windowEnd == NONE || at < windowEnd)) {
        windowOutputTokens += k;
      }
    }
    stageOutputTokens += total;
    return total;
  }

  private void recordMeasured(RequestMetrics m) {
    finishes.add(m.errorClass(), m.finishReason(), m.maxTokens(), m.outputTokens());
    EnumMap<Metric, Histogram> h = m.succeeded() ? ok : failed;
    record(h, Metric.TTFT, m.ttftNanos());
    record(h, Metric.TTFT_FROM_SCHEDULED, m.ttftFromScheduledNanos());
    record(h, Metric.TTFC, m.timeToFirstContentNanos());
    record(h, Metric.E2E, m.e2eNanos());
    record(h, Metric.E2E_FROM_SCHEDULED, m.e2eFromScheduledNanos());
    record(h, Metric.CONNECT, m.connectNanos());
    record(h, Metric.SCHEDULED_TO_SENT, m.sendLagNanos());
    if (!m.tpotUndefined()) {
      record(h, Metric.TPOT, Math.round(m.tpotNanos()));
      record(h, Metric.DECODE_TPS, Math.round(m.decodeTokensPerSecond() * 1000));
    }
    record(h, Metric.OUTPUT_TOKENS, m.outputTokens());
    record(h, Metric.INPUT_TOKENS, m.inputTokens());
    Histogram itl = h.get(Metric.ITL);
    m.forEachItlPerToken(itl::recordValueWithCount);
    Histogram itlChunk = h.get(Metric.ITL_CHUNK);
    m.forEachItlPerChunk(itlChunk::recordValueWithCount);

    tokens.add(m);
    if (m.succeeded()) {
      windowInputTokens += Math.max(0, m.inputTokens());
      if (m.tpotUndefined()) {
        tpotUndefined++;
      }
    } else {
      errors[m.errorClass().ordinal()]++;
    }
  }

  /** Records {@code value} unless it is {@link RequestMetrics#NONE}; negatives become 0. */
  private static void record(Map<Metric, Histogram> h, Metric m, long value) {
    if (value != NONE) {
      h.get(m).recordValue(Math.max(0, value));
    }
  }

  // ---- client self-watch ----

  /** The event loop ran a due task {@code lagNanos} late. Recorded while the window is open. */
  public void loopLag(long lagNanos) {
    checkOpen();
    if (windowOpen()) {
      record(ok, Metric.LOOP_LAG, lagNanos);
    }
  }

  /**
   * A request began {@code lagNanos} after it was due (open loop: its arrival time, or the moment a
   * {@code --max-concurrency} slot freed if later, so capped waiting does not count as client
   * lag). Recorded while the window is open.
   */
  public void sendLag(long lagNanos) {
    checkOpen();
    if (windowOpen()) {
      record(ok, Metric.SEND_LAG, lagNanos);
    }
  }

  /** A snapshot for a progress line; safe from any thread. */
  public LiveStats live(long nowNanos) {
    return live.snapshot(nowNanos, stageStartNanos);
  }

  /** Requests in flight now (sent, not ended); one volatile read, safe from any thread. */
  public int inFlightNow() {
    return live.inFlight;
  }

  private void checkOpen() {
    if (finished) {
      throw new IllegalStateException("stage " + plan.index() + " already finished");
    }
  }

  // ---- result ----

  /**
   * Ends the stage at {@code stageEndNanos} and analyses it. A window still open ends here and is
   * marked incomplete. The recorder accepts no call afterwards.
   */
  public StageResult finish(long stageEndNanos, ClientCpu cpu) {
    checkOpen();
    if (pending > 0) {
      throw new IllegalStateException(pending + " requests still wait for their metrics");
    }
    advanceTo(stageEndNanos);
    finished = true;
    long end = lastChangeNanos;
    boolean started = windowStartNanos != NONE;
    boolean complete = windowEndNanos != NONE;
    long windowEnd = complete ? windowEndNanos : end;
    StageResult.Window window =
        new StageResult.Window(
            started ? windowStartNanos - stageStartNanos : NONE,
            started ? windowEnd - stageStartNanos : NONE,
            complete);
    long stageLength = end - stageStartNanos;
    TimeSeries ts =
        series.build(stageLength, window.startOffsetNanos(), window.endOffsetNanos());
    ClientHealth health =
        ClientHealth.assess(
            ok.get(Metric.SEND_LAG),
            ok.get(Metric.LOOP_LAG),
            cpu,
            stageLength,
            stageOutputTokens,
            plan.load() instanceof LoadModel.Open);
    return new StageResult(
        plan,
        plan.load().label(),
        stageStartNanos,
        stageLength,
        window,
        distributions(ok, false),
        distributions(failed, true),
        throughput(window.lengthNanos()),
        requestCounts(),
        errorCounts(),
        tokens.result(),
        finishes.result(),
        SteadyState.detect(ts),
        health,
        ts,
        nonEmpty(ok, false),
        nonEmpty(failed, true),
        sessions.any() ? sessions.result() : null,
        completions.any() ? completions.result() : null);
  }

  /** The stage's code-completion requests: the engine reports each measured one here. */
  public CompletionRecorder completions() {
    return completions;
  }

  /** The stage's conversations: the engine reports sessions' starts and ends here. */
  public SessionRecorder sessions() {
    return sessions;
  }

  private StageResult.Throughput throughput(long windowNanos) {
    double seconds = windowNanos / 1e9;
    long completed = phaseCounts[Phase.MEASURED.ordinal()][0];
    return new StageResult.Throughput(
        perSecond(windowOutputTokens, seconds),
        perSecond(windowInputTokens, seconds),
        perSecond(completed, seconds),
        Double.NaN,
        windowNanos > 0 ? (double) windowInFlightIntegral / windowNanos : Double.NaN,
        windowOutputTokens,
        windowInputTokens);
  }

  private static double perSecond(long count, double seconds) {
    return seconds > 0 ? count / seconds : Double.NaN;
  }

  private StageResult.RequestCounts requestCounts() {
    Map<Phase, StageResult.PhaseCounts> byPhase = new EnumMap<>(Phase.class);
    for (Phase p : Phase.values()) {
      long[] c = phaseCounts[p.ordinal()];
      byPhase.put(p, new StageResult.PhaseCounts(c[0], c[1]));
    }
    long[] measured = phaseCounts[Phase.MEASURED.ordinal()];
    return new StageResult.RequestCounts(measured[0], measured[1], byPhase, tpotUndefined);
  }

  private Map<ErrorClass, Long> errorCounts() {
    Map<ErrorClass, Long> map = new EnumMap<>(ErrorClass.class);
    for (ErrorClass c : ErrorClass.values()) {
      if (errors[c.ordinal()] > 0) {
        map.put(c, errors[c.ordinal()]);
      }
    }
    return map;
  }

  private static Map<Metric, Distribution> distributions(
      Map<Metric, Histogram> h, boolean skipEmpty) {
    Map<Metric, Distribution> map = new EnumMap<>(Metric.class);
    h.forEach(
        (m, hist) -> {
          if (!skipEmpty || hist.getTotalCount() > 0) {
            map.put(m, Distribution.of(hist, m));
          }
        });
    return map;
  }

  private static Map<Metric, Histogram> nonEmpty(
      Map<Metric, Histogram> h, boolean skipEmpty) {
    Map<Metric, Histogram> map = new EnumMap<>(Metric.class);
    h.forEach(
        (m, hist) -> {
          if (!skipEmpty || hist.getTotalCount() > 0) {
            map.put(m, hist);
          }
        });
    return map;
  }
}
