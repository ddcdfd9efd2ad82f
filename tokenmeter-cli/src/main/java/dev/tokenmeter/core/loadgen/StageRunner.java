package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.load.ArrivalSchedule;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.metrics.StageRecorder;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.time.Ticker;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Runs one stage of a run on the endpoint's loop: releases requests as the load model says,
 * classifies their phase by their scheduled time, enforces timeouts, and watches the loop's own
 * lag.
 *
 * <pre>
 * stage start     window start               window end          stop
 *     |-- warm-up --|======= measured =========|-- cool-down --|...|
 *                    requests scheduled here count; load stays on after the window until the
 *                    cool-down passed AND every measured request ended, then the rest is cancelled
 * </pre>
 *
 * <p>With {@code --requests N} the window holds the first N requests scheduled after warm-up and
 * ends when the last of them is done. Open-loop arrivals are absolute offsets from the stage start;
 * with a concurrency cap, arrivals wait in a FIFO queue and keep their scheduled time, so their
 * latency from the schedule shows the wait. All state is confined to the loop thread except {@link
 * #interrupt}. Timers are never cancelled: each checks {@code stopping} first, so one firing after
 * the stage ended does nothing.
 *
 * <p><b>Sessions.</b> With a {@link SessionSource}, requests are the turns of conversations: a
 * closed-loop user runs one session after another (its next turn after the session's think time, a
 * new session at once when one ends), an open-loop arrival starts a session whose later turns
 * follow their think time and, under {@code --max-concurrency}, queue like arrivals. A failed turn
 * ends its session (counted); sessions still running when the stage stops are cut.
 *
 * <p><b>Typing.</b> A {@link TypingConversation} ({@code --profile completion}) sends its burst's
 * requests a keystroke apart on the user's clock, not after each answer: when the next keystroke's
 * request goes out, the one before it is cancelled if still in flight (superseded), and a request
 * past the conversation's cancel-after deadline is cancelled too. Both end as {@link
 * Outcome.Cancelled}, out of every error count; measured ones are tallied in the stage's {@link
 * StageRecorder#completions()}.
 *
 * <p><b>Parts.</b> The runner keeps the stage's lifecycle (start, timers, the door every request
 * goes out through, the completion path, stop) and the loop-lag probes; package-private parts own
 * the rest: {@link StageWindow} (boundaries, phases, stop conditions, the {@code --max-requests}
 * cap), {@link Flights} (the requests in flight, each a {@link Flight}, and their deadlines),
 * {@link OpenLoop} (arrivals and the concurrency cap's queue), {@link Users} (what follows each
 * request: think time, sessions, typing bursts) and {@link RequestRecording} (metrics to the
 * recorder and the sink, counted on or off the loop).
 */
public final class StageRunner {
  /** Period of the loop-lag probe. */
  private static final long PROBE_NANOS = 10_000_000L; // 10 ms

  private final Endpoint endpoint;
  final Loop loop;
  final StagePlan plan;
  private final RequestSource source;
  /** The source as a session source, null when its requests are independent. */
  private final SessionSource sessions;
  final Ticker ticker;
  private final CompletableFuture<Long> done = new CompletableFuture<>();
  /** The timer task that passes window boundaries and ends the stage when it is over. */
  private final Runnable tick = this::tick;
  final Flights flights;
  final StageWindow window;
  /** The stage's arrivals, null in a closed loop. */
  final OpenLoop open;
  private final Users users;
  private final RequestRecording recording;
  private volatile StageRecorder recorder;
  private long stopNanos = -1;
  private boolean stopping;
  /** Set when the stage stops: the probes on the endpoint's other loops read it there. */
  private volatile boolean probesOff;

  /**
   * A runner that counts output tokens on the loop when a request ends: for virtual-time loops,
   * where counting costs no simulated time and a second thread would break reproducibility.
   */
  public StageRunner(
      Endpoint endpoint,
      StagePlan plan,
      RequestSource source,
      Timeouts timeouts,
      Ticker ticker,
      RequestSink sink,
      OutputTokenCounter counter) {
    this(endpoint, plan, source, timeouts, ticker, sink, counter, null);
  }

  /**
   * A runner that counts answers off the loop: a request with answer text hands it to {@code
   * counting} (tokenizer count and words), and its metrics go to the recorder and the sink when
   * the counts come back to the loop. The stage's future completes only after every
   * count landed.
   *
   * @param counter the target's tokenizer, or null when there is none
   * @param counting runs the counts (must not run them on the loop's thread, or they delay it);
   *     null counts on the loop
   */
  public StageRunner(
      Endpoint endpoint,
      StagePlan plan,
      RequestSource source,
      Timeouts timeouts,
      Ticker ticker,
      RequestSink sink,
      OutputTokenCounter counter,
      Executor counting) {
    this.endpoint = endpoint;
    this.loop = endpoint.loop();
    this.plan = plan;
    this.source = source;
    this.sessions = source instanceof SessionSource ss ? ss : null;
    this.ticker = ticker;
    this.flights = new Flights(timeouts);
    this.window = new StageWindow(plan, ticker, loop, tick);
    this.open = plan.load() instanceof LoadModel.Open o ? new OpenLoop(this, o) : null;
    this.users = new Users(this, sessions);
    this.recording = new RequestRecording(this, sink, counter, counting);
  }

  /**
   * Starts the stage. The future completes with the stage's end time once every request ended and
   * every output count handed off the loop came back; then {@link #recorder()} is final and safe to
   * read from the completing thread.
   */
  public CompletableFuture<Long> start() {
    loop.execute(this::begin);
    return done;
  }

  /** The stage's recorder (null until the stage started). Its live() is safe from any thread. */
  public StageRecorder recorder() {
    return recorder;
  }

  /** Stops the stage now (Ctrl-C, fatal error): in-flight requests end as cancelled. Any thread. */
  public void interrupt(String reason) {
    loop.execute(() -> stop(reason, /* interrupted= */ true));
  }

  /** True once the stage stopped: nothing more is sent, and timers that fire do nothing. */
  boolean stopping() {
    return stopping;
  }

  private void begin() {
    long stageStartNanos = ticker.nanos();
    recorder = new StageRecorder(plan, stageStartNanos, recording.counterName());
    window.start(stageStartNanos, recorder);
    loop.schedule(this::sweep, Flights.SWEEP_NANOS);
    long probeDue = ticker.nanos() + PROBE_NANOS;
    loop.schedule(() -> probe(probeDue), PROBE_NANOS);
    List<Loop> loops = endpoint.loops();
    for (int i = 1; i < loops.size(); i++) {
      Loop other = loops.get(i);
      other.schedule(() -> probeOn(other, probeDue), PROBE_NANOS);
    }
    switch (plan.load()) {
      case LoadModel.Closed c -> {
        for (int u = 0; u < c.concurrency(); u++) {
          issue(stageStartNanos, stageStartNanos, null);
        }
      }
      case LoadModel.Open o -> open.start(stageStartNanos, ArrivalSchedule.of(o, plan.seed(), plan.shard()));
    }
  }

  /**
   * Timer task: passes window boundaries, starts the users the warm-up's cap held back once the
   * window opened, then ends the stage if it is over.
   */
  private void tick() {
    window.advance();
    if (window.parked() > 0 && !stopping) {
      if (window.windowStartRecorded()) {
        for (; window.parked() > 0; window.unparkOne()) {
          long now = ticker.nanos();
          issue(now, now, null);
        }
      } else {
        loop.schedule(tick, window.windowStartNanos() - ticker.nanos()); // a timer that fired early
      }
    }
    checkEnd();
  }

  // ---- issuing and ending ----

  /**
   * Starts a request planned for {@code scheduledNanos} that was free to start at {@code dueNanos}
   * (later than planned when it waited for a concurrency slot): {@code session}'s next turn, or with
   * sessions and a null {@code session} a new session's first turn.
   */
  void issue(long scheduledNanos, long dueNanos, Session session) {
    if (stopping || scheduledNanos >= window.acceptUntilNanos() || window.capped(scheduledNanos)) {
      return;
    }
    window.advance();
    long id = plan.shard().id(window.nextId()); // run-wide, unique over the workers of bench --workers
    RequestSpec spec;
    if (sessions == null) {
      spec = source.next(id);
    } else {
      if (session == null) {
        session = users.open(scheduledNanos);
      }
      spec = session.conversation.next(id);
      if (spec == null) { // a first turn that alone exceeds the context limit
        users.firstTurnTooLong(session, scheduledNanos);
        return;
      }
    }
    recorder.sendLag(Math.max(0, ticker.nanos() - dueNanos));
    Phase phase = window.issued(scheduledNanos);
    RequestTimeline t = new RequestTimeline(spec, plan.index(), phase, scheduledNanos);
    Flight f = new Flight(this, t, id);
    f.session = session;
    flights.add(f, ticker.nanos());
    f.exchange = endpoint.start(t.spec(), f);
    if (session != null && session.conversation instanceof TypingConversation typing) {
      users.typed(f, typing, scheduledNanos);
    }
  }

  /** {@code f} ended at {@code nanos}: records it, then its user goes on, then the stage may end. */
  void ended(Flight f, long nanos) {
    window.advance();
    flights.remove(f);
    RequestTimeline t = f.timeline;
    boolean closesWindow = window.ended(t.phase());
    // The request that closes a --requests window is counted here, once per stage: the window's
    // end must follow its tokens.
    recording.ended(t, /* onLoop= */ closesWindow);
    if (closesWindow) {
      window.closeAt(nanos);
    }
    if (f.session != null && f.session.conversation instanceof TypingConversation && t.phase() == Phase.MEASURED) {
      recorder.completions().ended(t);
    }
    if (stopping) {
      return;
    }
    if (f.followed) { // a keystroke's request: the burst's next request is the keystroke timer's
      if (open != null) {
        open.drainWaiting();
      }
    } else {
      users.after(f, t, nanos);
    }
    checkEnd();
  }

  private void checkEnd() {
    boolean over = window.measuredDone()
        && (open == null || !open.measuredArrivalsWaiting() && !open.arrivalDue())
        && ticker.nanos() >= window.acceptUntilNanos();
    // --max-requests spent: nothing more will be sent, so the stage ends with its last request (a
    // window not yet over is cut short).
    boolean spent = window.capReached() && flights.isEmpty();
    if (!stopping && (over || spent)) {
      stop("stage ended", /* interrupted= */ false);
    }
  }

  private void stop(String reason, boolean interrupted) {
    if (stopping) {
      return;
    }
    stopping = true;
    probesOff = true;
    // An interrupted window stays open: finish() ends it at the stage end and marks it incomplete.
    if (open != null) {
      open.clear();
    }
    flights.cancelAll(reason);
    stopNanos = ticker.nanos();
    if (recording.countsOutstanding() == 0) {
      done.complete(stopNanos);
    } // else lastCountLanded() completes it with stopNanos
  }

  /** Every count handed off the loop came back: a stage that stopped is now done. */
  void lastCountLanded() {
    if (stopping) {
      done.complete(stopNanos);
    }
  }

  // ---- self-watch and deadlines ----

  private void probe(long dueNanos) {
    if (stopping) {
      return;
    }
    window.advance();
    long now = ticker.nanos();
    recorder.loopLag(Math.max(0, now - dueNanos));
    long nextDue = now + PROBE_NANOS;
    loop.schedule(() -> probe(nextDue), PROBE_NANOS);
  }

  /**
   * The same probe on another of the endpoint's loops ({@link Endpoint#loops}), run there: its lag
   * goes into the same histogram, handed to the engine's loop.
   */
  private void probeOn(Loop other, long dueNanos) {
    if (probesOff) {
      return;
    }
    long now = ticker.nanos();
    long lag = Math.max(0, now - dueNanos);
    loop.execute(() -> {
      if (!stopping) {
        window.advance();
        recorder.loopLag(lag);
      }
    });
    long nextDue = now + PROBE_NANOS;
    other.schedule(() -> probeOn(other, nextDue), PROBE_NANOS);
  }

  private void sweep() {
    if (stopping) {
      return;
    }
    flights.sweep(ticker.nanos());
    loop.schedule(this::sweep, Flights.SWEEP_NANOS);
  }
}
