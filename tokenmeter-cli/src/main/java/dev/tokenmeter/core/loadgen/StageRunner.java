package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.load.ArrivalSchedule;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.metrics.AnswerCounts;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.metrics.StageRecorder;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TimeoutKind;
import dev.tokenmeter.core.time.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
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
 */
public final class StageRunner {
  /** How often deadlines are checked: timeouts resolve to within this. */
  private static final long SWEEP_NANOS = 20_000_000L; // 20 ms
  /**
   * A closed-loop user whose request could not even connect waits this long before its next one,
   * so a dead server is not hammered with thousands of connects per second (and requests.jsonl not
   * flooded with them).
   */
  static final long CONNECT_FAILURE_PAUSE_NANOS = 100_000_000L; // 100 ms

  /** Period of the loop-lag probe. */
  private static final long PROBE_NANOS = 10_000_000L; // 10 ms

  private final Endpoint endpoint;
  private final Loop loop;
  private final StagePlan plan;
  private final RequestSource source;
  private final Timeouts timeouts;
  private final Ticker ticker;
  private final RequestSink sink;
  private final OutputTokenCounter counter;
  private final Executor counting;
  private final CompletableFuture<Long> done = new CompletableFuture<>();
  /** Requests ended whose output count is still running on {@link #counting}. */
  private int countsOutstanding;
  /**
   * The most answers waiting for {@link #counting} at once; each keeps its request's text and chunk
   * log (about 64 KiB at 2,048 tokens, so 16 MiB at most), which the launcher's heap for a bench
   * (scripts/heap-for-run.sh) has room for in its 64 MiB base.
   */
  static final int MAX_COUNTS_OUTSTANDING = 256;
  private long stopNanos = -1;

  private final ArrayList<Flight> inFlight = new ArrayList<>();
  /**
   * The flights in {@link #inFlight} that could time out, by the earliest instant each could
   * ({@link Flight#checkAt}): a sweep looks only at those due, not at every request in flight.
   */
  private final TreeSet<Flight> deadlines =
      new TreeSet<>(Comparator.<Flight>comparingLong(f -> f.checkAt).thenComparingLong(f -> f.seq));
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  /** The source as a session source, null when its requests are independent. */
  private final SessionSource sessions;
  private long nextSessionId;
  private volatile StageRecorder recorder;
  private long stageStartNanos;
  private long windowStartNanos;
  private long windowEndNanos = -1;
  private boolean windowStartRecorded;
  private boolean windowEndRecorded;
  private long acceptUntilNanos = Long.MAX_VALUE;
  private long measuredIssued;
  private long measuredOutstanding;
  private boolean allMeasuredIssued;
  private boolean stopping;
  /** Set when the stage stops: the probes on the endpoint's other loops read it there. */
  private volatile boolean probesOff;
  private long nextId;
  private long warmupIssued;
  /** Closed-loop users the warm-up's share of {@code --max-requests} held back: they start at the window. */
  private int parked;
  /** The stage has sent {@link StagePlan#maxRequests()}: nothing more is sent. */
  private boolean capReached;
  private ArrivalSchedule arrivals;
  private long nextArrivalNanos;

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
    this.counting = counting;
    this.endpoint = endpoint;
    this.loop = endpoint.loop();
    this.plan = plan;
    this.source = source;
    this.sessions = source instanceof SessionSource ss ? ss : null;
    this.timeouts = timeouts;
    this.ticker = ticker;
    this.sink = sink;
    this.counter = counter == null ? null : failSafe(counter);
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

  private void begin() {
    stageStartNanos = ticker.nanos();
    recorder = new StageRecorder(plan, stageStartNanos, counter == null ? null : counter.name());
    windowStartNanos = stageStartNanos + plan.warmupNanos();
    if (plan.stop() instanceof StopCondition.Duration d) {
      windowEndNanos = windowStartNanos + d.nanos();
      acceptUntilNanos = windowEndNanos + plan.cooldownNanos();
      loop.schedule(this::tick, windowEndNanos - ticker.nanos());
      allMeasuredIssued = true; // nothing to wait for but the clock; outstanding counts the rest
      loop.schedule(this::tick, acceptUntilNanos - ticker.nanos());
    }
    loop.schedule(this::tick, plan.warmupNanos());
    advanceWindow();
    loop.schedule(this::sweep, SWEEP_NANOS);
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
      case LoadModel.Open o -> {
        arrivals = ArrivalSchedule.of(o, plan.seed(), plan.shard());
        nextArrivalNanos = arrivalAt(arrivals.nextOffsetNanos());
        scheduleArrivals();
      }
    }
  }

  /**
   * Tells the recorder about window boundaries that have passed, at their planned times. Called
   * before every event the recorder sees (and by timers), so the recorder learns of a boundary
   * before any event later than it: the window's token count is then exact.
   */
  private void advanceWindow() {
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

  /**
   * Timer task: passes window boundaries, starts the users the warm-up's cap held back once the
   * window opened, then ends the stage if it is over.
   */
  private void tick() {
    advanceWindow();
    if (parked > 0 && !stopping) {
      if (windowStartRecorded) {
        for (; parked > 0; parked--) {
          long now = ticker.nanos();
          issue(now, now, null);
        }
      } else {
        loop.schedule(this::tick, windowStartNanos - ticker.nanos()); // a timer that fired early
      }
    }
    checkEnd();
  }

  // ---- open loop ----

  private void scheduleArrivals() {
    if (stopping) {
      return;
    }
    long now = ticker.nanos();
    while (!stopping && nextArrivalNanos <= now && nextArrivalNanos < acceptUntilNanos) {
      arrive(nextArrivalNanos);
      nextArrivalNanos = arrivalAt(arrivals.nextOffsetNanos());
    }
    if (!stopping && nextArrivalNanos < acceptUntilNanos) {
      loop.schedule(this::scheduleArrivals, nextArrivalNanos - now);
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

  /** An arrival at {@code scheduledNanos}: a new session's first turn, or {@code session}'s next. */
  private void arrive(long scheduledNanos) {
    arrive(scheduledNanos, null);
  }

  private void arrive(long scheduledNanos, Session session) {
    if (stopping) {
      return;
    }
    var max = ((LoadModel.Open) plan.load()).maxConcurrency();
    if (max.isPresent() && inFlight.size() >= max.getAsInt()) {
      waiting.addLast(new Waiting(scheduledNanos, session));
    } else {
      issue(scheduledNanos, scheduledNanos, session);
    }
  }

  /** An arrival queued behind {@code --max-concurrency}; {@code session} null for a new one. */
  private record Waiting(long scheduledNanos, Session session) {}

  // ---- issuing and ending ----

  /**
   * Starts a request planned for {@code scheduledNanos} that was free to start at {@code dueNanos}
   * (later than planned when it waited for a concurrency slot): {@code session}'s next turn, or with
   * sessions and a null {@code session} a new session's first turn.
   */
  private void issue(long scheduledNanos, long dueNanos, Session session) {
    if (stopping || scheduledNanos >= acceptUntilNanos || capped(scheduledNanos)) {
      return;
    }
    advanceWindow();
    long id = plan.shard().id(nextId); // run-wide, unique over the workers of bench --workers
    RequestSpec spec;
    if (sessions == null) {
      spec = source.next(id);
    } else {
      if (session == null) {
        long sid = nextSessionId++;
        session = new Session(sid, sessions.open(sid), scheduledNanos);
        recorder.sessions().started();
      }
      spec = session.conversation.next(id);
      if (spec == null) { // a first turn that alone exceeds the context limit
        session.end(recorder.sessions(), Session.ending(session.conversation.end()), scheduledNanos);
        if (plan.load() instanceof LoadModel.Closed) {
          long next = ticker.nanos() + CONNECT_FAILURE_PAUSE_NANOS; // no hot loop of sessions that never fit
          loop.schedule(() -> issue(next, next, null), CONNECT_FAILURE_PAUSE_NANOS);
        }
        return;
      }
    }
    recorder.sendLag(Math.max(0, ticker.nanos() - dueNanos));
    Phase phase = phaseOf(scheduledNanos);
    if (phase == Phase.WARMUP) {
      warmupIssued++;
    }
    nextId++;
    capReached = plan.maxRequests() > 0 && nextId >= plan.maxRequests();
    RequestTimeline t = new RequestTimeline(spec, plan.index(), phase, scheduledNanos);
    Flight f = new Flight(t, id);
    f.session = session;
    f.index = inFlight.size();
    inFlight.add(f);
    watch(f, f.earliestTimeout(ticker.nanos()));
    if (phase == Phase.MEASURED) {
      measuredOutstanding++;
    }
    f.exchange = endpoint.start(t.spec(), f);
    if (session != null && session.conversation instanceof TypingConversation typing) {
      typed(f, typing, scheduledNanos);
    }
  }

  /**
   * {@code f}, just issued, is a keystroke's request: schedules the burst's next request, which
   * supersedes {@code f} if it is still in flight then, and the {@code --cancel-after} deadline.
   */
  private void typed(Flight f, TypingConversation typing, long scheduledNanos) {
    long gap = typing.keystrokeNanos();
    long cancelAfter = typing.cancelAfterNanos();
    if (gap >= 0) {
      f.followed = true;
      long next = scheduledNanos + gap; // the user's clock, not the send's
      loop.schedule(() -> keystroke(f, next), Math.max(0, next - ticker.nanos()));
    }
    if (cancelAfter > 0) {
      loop.schedule(() -> {
        if (!stopping && f.index >= 0) {
          f.exchange.abort(new Outcome.Cancelled(TypingConversation.CANCEL_AFTER));
        }
      }, cancelAfter);
    }
  }

  /** The next keystroke of {@code f}'s burst, due at {@code dueNanos}: cancels {@code f} if still in flight, sends the next. */
  private void keystroke(Flight f, long dueNanos) {
    if (stopping) {
      return;
    }
    if (f.index >= 0) {
      f.exchange.abort(new Outcome.Cancelled(TypingConversation.SUPERSEDED));
    }
    if (plan.load() instanceof LoadModel.Open) {
      arrive(dueNanos, f.session);
    } else {
      issue(dueNanos, dueNanos, f.session);
    }
  }

  /**
   * Whether {@code --max-requests} holds back a request scheduled at {@code scheduledNanos}: the
   * stage sent its cap (it then ends when its requests in flight have), or the warm-up sent its
   * share ({@link StagePlan#warmupRequestLimit}; a closed-loop user then waits for the window,
   * an open-loop arrival is not sent).
   */
  private boolean capped(long scheduledNanos) {
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
          loop.schedule(this::tick, plan.cooldownNanos());
        }
        return Phase.MEASURED;
      }
      return Phase.COOLDOWN;
    }
    long windowEnd = windowStartNanos + ((StopCondition.Duration) plan.stop()).nanos();
    return scheduledNanos < windowEnd ? Phase.MEASURED : Phase.COOLDOWN;
  }

  private void ended(Flight f, long nanos) {
    advanceWindow();
    remove(f);
    RequestTimeline t = f.timeline;
    if (t.phase() == Phase.MEASURED) {
      measuredOutstanding--;
    }
    boolean closesWindow =
        t.phase() == Phase.MEASURED
            && measuredOutstanding == 0
            && allMeasuredIssued
            && plan.stop() instanceof StopCondition.Requests
            && !windowEndRecorded;
    if (closesWindow || !countOffLoop(t)) {
      // The request that closes a --requests window is counted here, once per stage: the
      // window's end must follow its tokens.
      RequestMetrics m = RequestMetrics.of(t, counter);
      recorder.requestEnded(t, m);
      sink.accept(t, m);
    } else {
      handOver(t);
    }
    if (closesWindow) {
      // The window ends with the last measured request: at this event, so no later event precedes it.
      windowEndRecorded = true;
      windowEndNanos = Math.max(windowStartNanos, nanos);
      recorder.windowEnded(windowEndNanos);
    }
    if (f.session != null && f.session.conversation instanceof TypingConversation && t.phase() == Phase.MEASURED) {
      recorder.completions().ended(t);
    }
    if (stopping) {
      return;
    }
    if (f.followed) { // a keystroke's request: the burst's next request is the keystroke timer's
      drainWaiting();
      checkEnd();
      return;
    }
    Session session = f.session == null ? null : continued(f.session, t, nanos);
    switch (plan.load()) {
      case LoadModel.Closed c -> {
        long pause = session != null ? session.conversation.thinkNanos() : c.thinkTimeNanos();
        if (session == null && f.session != null && f.session.conversation instanceof TypingConversation typing) {
          pause = typing.pauseNanos(); // the user's pause between bursts
        }
        if (t.outcome().errorClass() == ErrorClass.CONNECT) {
          pause = Math.max(pause, CONNECT_FAILURE_PAUSE_NANOS);
        }
        long next = nanos + pause;
        if (pause == 0) {
          long now = ticker.nanos();
          issue(now, now, session);
        } else if (next < acceptUntilNanos) {
          loop.schedule(() -> issue(next, next, session), pause);
        }
      }
      case LoadModel.Open o -> {
        if (session != null) {
          long pause = session.conversation.thinkNanos();
          long next = nanos + pause;
          if (pause == 0) {
            arrive(ticker.nanos(), session);
          } else if (next < acceptUntilNanos) {
            loop.schedule(() -> arrive(next, session), pause);
          }
        }
        drainWaiting();
      }
    }
    checkEnd();
  }

  /** Open loop: issues queued arrivals while {@code --max-concurrency} has room. */
  private void drainWaiting() {
    if (!(plan.load() instanceof LoadModel.Open o)) {
      return;
    }
    while (!waiting.isEmpty()
        && (o.maxConcurrency().isEmpty() || inFlight.size() < o.maxConcurrency().getAsInt())) {
      Waiting w = waiting.pollFirst();
      issue(w.scheduledNanos(), ticker.nanos(), w.session());
    }
  }

  /**
   * {@code session} after its turn {@code t} ended at {@code nanos}: itself when another turn
   * follows, else null, its end recorded (a failed turn ends it: its answer cannot be appended).
   */
  private Session continued(Session session, RequestTimeline t, long nanos) {
    if (session.conversation instanceof TypingConversation) {
      // A burst's last request ends its session; cancelled by --cancel-after is the user's doing.
      boolean failed = !t.outcome().succeeded() && t.outcome().errorClass() != ErrorClass.CANCELLED;
      if (t.outcome().succeeded()) {
        session.answered(t);
      }
      session.end(recorder.sessions(), failed ? dev.tokenmeter.core.metrics.SessionRecorder.Ending.ERROR
          : dev.tokenmeter.core.metrics.SessionRecorder.Ending.FINISHED, nanos);
      return null;
    }
    if (!t.outcome().succeeded()) {
      session.end(recorder.sessions(), dev.tokenmeter.core.metrics.SessionRecorder.Ending.ERROR, nanos);
      return null;
    }
    session.answered(t);
    if (session.conversation.answered(t)) {
      return session;
    }
    session.end(recorder.sessions(), Session.ending(session.conversation.end()), nanos);
    return null;
  }

  /** {@code counter}, with -1 (no count: the request falls back to chunks) when it throws. */
  private static OutputTokenCounter failSafe(OutputTokenCounter counter) {
    return OutputTokenCounter.named(
        counter.name(),
        text -> {
          try {
            return counter.count(text);
          } catch (RuntimeException e) {
            return -1;
          }
        });
  }

  /**
   * True when {@code t}'s answer is counted (tokens and words) off the loop: there is a counting
   * executor, an answer to count, and fewer than {@link #MAX_COUNTS_OUTSTANDING} counts already
   * waiting for it. Past that the loop counts the answer itself, which slows it to the counter's
   * pace; otherwise, with a server faster than the counter (zero delay, 2,048-token answers), the
   * answers waiting to be counted piled up with their chunk logs until the heap ran out
   * (docs/PERFORMANCE.md, "Event loops and held reads at 1,000 streams").
   */
  private boolean countOffLoop(RequestTimeline t) {
    return counting != null && t.content().length() > 0 && countsOutstanding < MAX_COUNTS_OUTSTANDING;
  }

  /**
   * Hands {@code t}'s answer text to the counting executor; the loop only copies the text (about
   * 0.1 µs per KB). A counter that throws leaves the request counted by chunks.
   */
  private void handOver(RequestTimeline t) {
    StageRecorder.Pending p = recorder.requestEnding(t);
    countsOutstanding++;
    String text = t.content().toString();
    OutputTokenCounter c = t.reasoningChars() == 0 ? counter : null;
    counting.execute(
        () -> {
          AnswerCounts counts = AnswerCounts.of(text, c);
          loop.execute(() -> counted(p, t, counts));
        });
  }

  /** Back on the loop: {@code t}'s answer was counted. */
  private void counted(StageRecorder.Pending p, RequestTimeline t, AnswerCounts counts) {
    advanceWindow();
    RequestMetrics m = RequestMetrics.withCounts(t, counts);
    recorder.requestCounted(p, m);
    sink.accept(t, m);
    countsOutstanding--;
    if (stopping && countsOutstanding == 0) {
      done.complete(stopNanos);
    }
  }

  private void remove(Flight f) {
    int i = f.index;
    Flight last = inFlight.remove(inFlight.size() - 1);
    if (last != f) {
      inFlight.set(i, last);
      last.index = i;
    }
    f.index = -1;
    if (f.watched) {
      deadlines.remove(f);
      f.watched = false;
    }
  }

  /** Files {@code f} under {@code checkAt} for the sweep; {@link Flight#NEVER} files nothing. */
  private void watch(Flight f, long checkAt) {
    if (checkAt != Flight.NEVER) {
      f.checkAt = checkAt;
      f.watched = true;
      deadlines.add(f);
    }
  }

  private void checkEnd() {
    boolean over = allMeasuredIssued
        && measuredOutstanding == 0
        && !measuredArrivalsWaiting()
        && !arrivalDue()
        && ticker.nanos() >= acceptUntilNanos;
    // --max-requests spent: nothing more will be sent, so the stage ends with its last request (a
    // window not yet over is cut short).
    boolean spent = capReached && inFlight.isEmpty();
    if (!stopping && (over || spent)) {
      stop("stage ended", /* interrupted= */ false);
    }
  }

  /**
   * An open-loop arrival scheduled before the stage stops accepting that a late loop has not sent
   * yet: the stage waits for it (a replayed trace sends every record, however late).
   */
  private boolean arrivalDue() {
    return arrivals != null && nextArrivalNanos < acceptUntilNanos;
  }

  /** Arrivals scheduled inside the window still queued behind a concurrency cap (FIFO: oldest first). */
  private boolean measuredArrivalsWaiting() {
    return !waiting.isEmpty() && (windowEndNanos < 0 || waiting.peekFirst().scheduledNanos() < windowEndNanos);
  }

  private void stop(String reason, boolean interrupted) {
    if (stopping) {
      return;
    }
    stopping = true;
    probesOff = true;
    // An interrupted window stays open: finish() ends it at the stage end and marks it incomplete.
    waiting.clear();
    for (Flight f : new ArrayList<>(inFlight)) {
      f.exchange.abort(new Outcome.Cancelled(reason));
    }
    stopNanos = ticker.nanos();
    if (countsOutstanding == 0) {
      done.complete(stopNanos);
    } // else counted() completes it with stopNanos when the last count lands
  }

  // ---- self-watch and deadlines ----

  private void probe(long dueNanos) {
    if (stopping) {
      return;
    }
    advanceWindow();
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
        advanceWindow();
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
    long now = ticker.nanos();
    List<Flight> late = null;
    while (!deadlines.isEmpty() && deadlines.first().checkAt <= now) {
      Flight f = deadlines.pollFirst();
      f.watched = false;
      TimeoutKind k = f.deadlinePassed(now);
      if (k == null) {
        watch(f, f.earliestTimeout(now));
      } else {
        if (late == null) {
          late = new ArrayList<>();
        }
        f.timedOut = k;
        late.add(f);
      }
    }
    if (late != null) {
      // In the order of inFlight, as when every sweep walked it: the order the engine sees aborts.
      late.sort(Comparator.comparingInt(f -> f.index));
      for (Flight f : late) {
        f.exchange.abort(new Outcome.TimedOut(f.timedOut));
      }
      for (Flight f : late) {
        if (f.index >= 0 && !f.watched) {
          watch(f, now + 1); // not ended by its abort: abort it again at the next sweep
        }
      }
    }
    loop.schedule(this::sweep, SWEEP_NANOS);
  }

  /** One request in flight: the endpoint's listener and the engine's bookkeeping. */
  private final class Flight implements ExchangeListener {
    static final long NEVER = Long.MAX_VALUE;

    final RequestTimeline timeline;
    final long seq;
    /** The conversation this request is a turn of, null without sessions. */
    Session session;
    /** A keystroke's request whose burst goes on: a timer sends the next, superseding this one. */
    boolean followed;
    Exchange exchange;
    /** Position in {@link #inFlight}; -1 once ended. */
    int index;
    long lastActivityNanos = -1;
    TimeoutKind timedOut;
    /** When filed in {@link #deadlines}: no deadline of this flight passes before this instant. */
    long checkAt;
    boolean watched;

    Flight(RequestTimeline timeline, long seq) {
      this.timeline = timeline;
      this.seq = seq;
    }

    /**
     * The earliest instant after {@code now} at which {@link #deadlinePassed} could return a
     * timeout, given what happened so far ({@link #NEVER} when no timeout is set): activity only
     * moves deadlines later, so the flight need not be looked at before then.
     */
    long earliestTimeout(long now) {
      long sent = timeline.sentNanos();
      if (sent < 0) {
        return now + 1; // still connecting: look again at the next sweep
      }
      long at = NEVER;
      if (timeouts.totalNanos() > 0) {
        at = Math.min(at, sent + timeouts.totalNanos() + 1);
      }
      if (timeline.firstTokenNanos() < 0) {
        if (timeouts.firstTokenNanos() > 0) {
          at = Math.min(at, sent + timeouts.firstTokenNanos() + 1);
        }
        if (timeouts.idleNanos() > 0) {
          // The first token may come at any moment, and the idle clock then starts from its
          // arrival, stamped on a reading thread up to a sweep before this loop's now.
          at = Math.min(at, now + Math.max(1, timeouts.idleNanos() + 1 - SWEEP_NANOS));
        }
      } else if (timeouts.idleNanos() > 0) {
        at = Math.min(at, lastActivityNanos + timeouts.idleNanos() + 1);
      }
      return at;
    }

    TimeoutKind deadlinePassed(long now) {
      long sent = timeline.sentNanos();
      if (sent < 0) {
        return null; // still connecting: the connect timeout applies
      }
      if (timeouts.totalNanos() > 0 && now - sent > timeouts.totalNanos()) {
        return TimeoutKind.TOTAL;
      }
      if (timeline.firstTokenNanos() < 0) {
        if (timeouts.firstTokenNanos() > 0 && now - sent > timeouts.firstTokenNanos()) {
          return TimeoutKind.FIRST_TOKEN;
        }
      } else if (timeouts.idleNanos() > 0 && now - lastActivityNanos > timeouts.idleNanos()) {
        return TimeoutKind.IDLE;
      }
      return null;
    }

    @Override
    public void connected(long connectStartNanos, long connectedNanos) {
      timeline.connected(connectStartNanos, connectedNanos);
    }

    @Override
    public void sent(long nanos) {
      advanceWindow();
      timeline.sent(nanos);
      lastActivityNanos = nanos;
      recorder.requestSent(timeline, nanos);
    }

    @Override
    public void headers(int status, long nanos) {
      timeline.headers(status, nanos);
      lastActivityNanos = nanos;
    }

    @Override
    public void item(dev.tokenmeter.core.request.StreamItem item, long nanos) {
      timeline.item(item, nanos);
      lastActivityNanos = nanos;
    }

    @Override
    public void end(Outcome outcome, long nanos) {
      timeline.end(outcome, nanos);
      ended(this, nanos);
    }
  }
}
