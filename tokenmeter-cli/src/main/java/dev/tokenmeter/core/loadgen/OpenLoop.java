package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.load.ArrivalSchedule;
import dev.tokenmeter.core.load.LoadModel;
import java.util.ArrayDeque;
import java.util.OptionalInt;

/**
 * An open-loop stage's arrivals: its {@link ArrivalSchedule}, released at absolute offsets from the
 * stage start (never "last send + gap", so a late loop sends the overdue arrivals at once and their
 * send lag shows it), and, under {@code --max-concurrency}, the FIFO queue of arrivals waiting for a
 * slot, each keeping its scheduled time so its latency from the schedule shows the wait. A
 * session's later turns arrive here too, after their think time. Loop-confined.
 */
final class OpenLoop {
  private final StageRunner stage;
  private final OptionalInt maxConcurrency;
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private long stageStartNanos;
  private ArrivalSchedule arrivals;
  private long nextArrivalNanos;

  OpenLoop(StageRunner stage, LoadModel.Open model) {
    this.stage = stage;
    this.maxConcurrency = model.maxConcurrency();
  }

  /** An arrival queued behind {@code --max-concurrency}; {@code session} null for a new one. */
  private record Waiting(long scheduledNanos, Session session) {}

  /** The stage started at {@code stageStartNanos}: releases {@code arrivals} from now on. */
  void start(long stageStartNanos, ArrivalSchedule arrivals) {
    this.stageStartNanos = stageStartNanos;
    this.arrivals = arrivals;
    nextArrivalNanos = arrivalAt(arrivals.nextOffsetNanos());
    scheduleArrivals();
  }

  private void scheduleArrivals() {
    if (stage.stopping()) {
      return;
    }
    long now = stage.ticker.nanos();
    StageWindow window = stage.window;
    while (!stage.stopping() && nextArrivalNanos <= now && nextArrivalNanos < window.acceptUntilNanos()) {
      arrive(nextArrivalNanos, null);
      nextArrivalNanos = arrivalAt(arrivals.nextOffsetNanos());
    }
    if (!stage.stopping() && nextArrivalNanos < window.acceptUntilNanos()) {
      stage.loop.schedule(this::scheduleArrivals, nextArrivalNanos - now);
    }
  }

  /**
   * The instant of an arrival {@code offsetNanos} after the stage start, saturating: a schedule
   * with no arrival left (a replayed trace's end) returns {@link Long#MAX_VALUE}, which must not
   * wrap into the past.
   */
  private long arrivalAt(long offsetNanos) {
    return offsetNanos > Long.MAX_VALUE - stageStartNanos ? Long.MAX_VALUE : stageStartNanos + offsetNanos;
  }

  /**
   * An arrival at {@code scheduledNanos}: a new session's first turn (or an independent request)
   * when {@code session} is null, else {@code session}'s next. Sent now, or queued when {@code
   * --max-concurrency} requests are in flight.
   */
  void arrive(long scheduledNanos, Session session) {
    if (stage.stopping()) {
      return;
    }
    if (maxConcurrency.isPresent() && stage.flights.size() >= maxConcurrency.getAsInt()) {
      waiting.addLast(new Waiting(scheduledNanos, session));
    } else {
      stage.issue(scheduledNanos, scheduledNanos, session);
    }
  }

  /** Issues queued arrivals while {@code --max-concurrency} has room. */
  void drainWaiting() {
    while (!waiting.isEmpty()
        && (maxConcurrency.isEmpty() || stage.flights.size() < maxConcurrency.getAsInt())) {
      Waiting w = waiting.pollFirst();
      stage.issue(w.scheduledNanos(), stage.ticker.nanos(), w.session());
    }
  }

  /** The stage stopped: the queued arrivals are dropped. */
  void clear() {
    waiting.clear();
  }

  /**
   * An arrival scheduled before the stage stops accepting that a late loop has not sent yet: the
   * stage waits for it (a replayed trace sends every record, however late).
   */
  boolean arrivalDue() {
    return arrivals != null && nextArrivalNanos < stage.window.acceptUntilNanos();
  }

  /** Arrivals scheduled inside the window still queued behind a concurrency cap (FIFO: oldest first). */
  boolean measuredArrivalsWaiting() {
    long windowEndNanos = stage.window.windowEndNanos();
    return !waiting.isEmpty() && (windowEndNanos < 0 || waiting.peekFirst().scheduledNanos() < windowEndNanos);
  }
}
