package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.metrics.StageRecorder;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.time.Ticker;

/**
 * A stage's measurement window and its stop conditions: the window's planned boundaries and which
 * of them the recorder was told of, the phase each request gets from its scheduled time, until when
 * the stage accepts requests, the measured requests it issued and still waits for, and the {@code
 * --max-requests} cap (with the closed-loop users the warm-up's share of it held back). The window
 * opens at {@code stage start + warm-up}; with a {@link StopCondition.Duration} it closes after
 * that long, with {@link StopCondition.Requests} when the last of its requests ended.
 * Loop-confined.
 */
final class StageWindow {
  private final StagePlan plan;
  private final Ticker ticker;
  private final Loop loop;
  /** The stage's timer task: passes boundaries, ends the stage when it is over. */
  private final Runnable tick;
  private StageRecorder recorder;
  private long windowStartNanos;
  private long windowEndNanos = -1;
  private boolean windowStartRecorded;
  private boolean windowEndRecorded;
  private long acceptUntilNanos = Long.MAX_VALUE;
  private long measuredIssued;
  private long measuredOutstanding;
  private boolean allMeasuredIssued;
  private long nextId;
  private long warmupIssued;
  /** Closed-loop users the warm-up's share of {@code --max-requests} held back: they start at the window. */
  private int parked;
  /** The stage has sent {@link StagePlan#maxRequests()}: nothing more is sent. */
  private boolean capReached;

  StageWindow(StagePlan plan, Ticker ticker, Loop loop, Runnable tick) {
    this.plan = plan;
    this.ticker = ticker;
    this.loop = loop;
    this.tick = tick;
  }

  /** The stage started at {@code stageStartNanos}: plans the window and schedules its ticks. */
  void start(long stageStartNanos, StageRecorder recorder) {
    this.recorder = recorder;
    windowStartNanos = stageStartNanos + plan.warmupNanos();
    if (plan.stop() instanceof StopCondition.Duration d) {
      windowEndNanos = windowStartNanos + d.nanos();
      acceptUntilNanos = windowEndNanos + plan.cooldownNanos();
      loop.schedule(tick, windowEndNanos - ticker.nanos());
      allMeasuredIssued = true; // nothing to wait for but the clock; outstanding counts the rest
      loop.schedule(tick, acceptUntilNanos - ticker.nanos());
    }
    loop.schedule(tick, plan.warmupNanos());
    advance();
  }

  /**
   * Tells the recorder about window boundaries that have passed, at their planned times. Called
   * before every event the recorder sees (and by timers), so the recorder learns of a boundary
   * before any event later than it: the window's token count is then exact.
   */
  void advance() {
    long now = ticker.nanos();
    if (!windowStartRecorded && now >= windowStartNanos) {
      windowStartRecorded = true;
      recorder.windowStarted(windowStartNanos);
    }
    if (windowStartRecorded && !windowEndRecorded && windowEndNanos >= 0 && now >= windowEndNanos) {
      windowEndRecorded = true;
      recorder.windowEnded(windowEndNanos);
    }
  }

  long windowStartNanos() {
    return windowStartNanos;
  }

  /** The window's end, -1 while a {@code --requests} window is still open. */
  long windowEndNanos() {
    return windowEndNanos;
  }

  boolean windowStartRecorded() {
    return windowStartRecorded;
  }

  /** Requests scheduled at or after this instant are not sent. */
  long acceptUntilNanos() {
    return acceptUntilNanos;
  }

  /** How many requests the stage issued: the next one's index. */
  long nextId() {
    return nextId;
  }

  boolean capReached() {
    return capReached;
  }

  /** Every measured request was issued and none is still in flight. */
  boolean measuredDone() {
    return allMeasuredIssued && measuredOutstanding == 0;
  }

  /** Closed-loop users held back by the warm-up's cap, to start once the window opened. */
  int parked() {
    return parked;
  }

  void unparkOne() {
    parked--;
  }

  /**
   * Whether {@code --max-requests} holds back a request scheduled at {@code scheduledNanos}: the
   * stage sent its cap (it then ends when its requests in flight have), or the warm-up sent its
   * share ({@link StagePlan#warmupRequestLimit}; a closed-loop user then waits for the window,
   * an open-loop arrival is not sent).
   */
  boolean capped(long scheduledNanos) {
    if (plan.maxRequests() == 0) {
      return false;
    }
    if (capReached) {
      return true;
    }
    if (scheduledNanos < windowStartNanos && warmupIssued >= plan.warmupRequestLimit()) {
      if (plan.load() instanceof LoadModel.Closed) {
        parked++;
      }
      return true;
    }
    return false;
  }

  /** A request scheduled at {@code scheduledNanos} is issued: counts it and returns its phase. */
  Phase issued(long scheduledNanos) {
    Phase phase = phaseOf(scheduledNanos);
    if (phase == Phase.WARMUP) {
      warmupIssued++;
    }
    nextId++;
    capReached = plan.maxRequests() > 0 && nextId >= plan.maxRequests();
    if (phase == Phase.MEASURED) {
      measuredOutstanding++;
    }
    return phase;
  }

  private Phase phaseOf(long scheduledNanos) {
    if (scheduledNanos < windowStartNanos) {
      return Phase.WARMUP;
    }
    if (plan.stop() instanceof StopCondition.Requests r) {
      if (measuredIssued < r.count()) {
        measuredIssued++;
        if (measuredIssued == r.count()) {
          allMeasuredIssued = true;
          acceptUntilNanos = Math.max(scheduledNanos, ticker.nanos()) + plan.cooldownNanos();
          loop.schedule(tick, plan.cooldownNanos());
        }
        return Phase.MEASURED;
      }
      return Phase.COOLDOWN;
    }
    long windowEnd = windowStartNanos + ((StopCondition.Duration) plan.stop()).nanos();
    return scheduledNanos < windowEnd ? Phase.MEASURED : Phase.COOLDOWN;
  }

  /**
   * A request of {@code phase} ended: true when it is the last measured request of a {@code
   * --requests} window, which it then closes ({@link #closeAt}, once its metrics are recorded).
   */
  boolean ended(Phase phase) {
    if (phase == Phase.MEASURED) {
      measuredOutstanding--;
    }
    return phase == Phase.MEASURED
        && measuredOutstanding == 0
        && allMeasuredIssued
        && plan.stop() instanceof StopCondition.Requests
        && !windowEndRecorded;
  }

  /** The window ends with the last measured request: at this event, so no later event precedes it. */
  void closeAt(long nanos) {
    windowEndRecorded = true;
    windowEndNanos = Math.max(windowStartNanos, nanos);
    recorder.windowEnded(windowEndNanos);
  }
}
