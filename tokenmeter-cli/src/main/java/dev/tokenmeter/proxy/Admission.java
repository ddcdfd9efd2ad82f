package dev.tokenmeter.proxy;

import io.netty.channel.EventLoop;
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request's way through the in-flight limits (docs/PROXY.md, "At the edge"): its upstream's
 * limit when it has one, then the proxy's, waiting in each limit's queue for as long as {@link
 * AdmissionLimits#queueTimeoutNanos()} allows in all. Taking the upstream's slot first means a
 * request waiting for a busy upstream holds no slot of the proxy's, which requests to other
 * upstreams could use.
 *
 * <p>Confined to the client's event loop: a gate's callback hands its news to the loop, the wait's
 * timer is the loop's ({@link EventLoop#schedule}), and nothing here waits.
 */
final class Admission {
  /** What becomes of the request; called on the loop, once. */
  interface Listener {
    /** It holds every slot: forward it, and {@link #close} this once it ends. */
    void admitted();

    /** It cannot have its slots (a full queue, or the time is up): answer 503 with {@code message}. */
    void refused(String message);
  }

  private enum State { WAITING, ADMITTED, DONE }

  private final InFlightGate[] gates;
  private final String[] names;
  private final EventLoop loop;
  private final AdmissionLimits limits;
  private final Listener listener;
  private State state = State.WAITING;
  /** Gates whose slot this request holds: {@code gates[0 .. held)}. */
  private int held;
  /** This request's place in {@code gates[held]}'s queue, or null. */
  private InFlightGate.Waiter waiter;
  private ScheduledFuture<?> timer;

  /**
   * @param gates the limits to pass, in order (none: admitted at once)
   * @param names what each limit is, for the refusal's words ({@code upstream 'vllm'})
   */
  Admission(InFlightGate[] gates, String[] names, EventLoop loop, AdmissionLimits limits, Listener listener) {
    this.gates = gates;
    this.names = names;
    this.loop = loop;
    this.limits = limits;
    this.listener = listener;
  }

  /** Tries each limit in turn; the listener hears now or later. */
  void start() {
    next();
  }

  /** Whether it still waits for a slot. */
  boolean waiting() {
    return state == State.WAITING;
  }

  /** Gives back every slot held and withdraws from any queue: the request ended or its client left. Idempotent. */
  void close() {
    if (state == State.DONE) {
      return;
    }
    state = State.DONE;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    if (waiter != null && !gates[held].cancel(waiter)) {
      held++; // granted meanwhile: its callback will find this closed
    }
    waiter = null;
    releaseHeld();
  }

  private void next() {
    while (held < gates.length) {
      InFlightGate gate = gates[held];
      switch (gate.enter(() -> loop.execute(this::granted))) {
        case InFlightGate.Entry.Admitted a -> held++;
        case InFlightGate.Entry.Queued q -> {
          waiter = q.waiter();
          if (timer == null) {
            timer = loop.schedule(this::timedOut, limits.queueTimeoutNanos(), TimeUnit.NANOSECONDS);
          }
          return;
        }
        case InFlightGate.Entry.Full f -> {
          refuse(gate.limit() + " requests are in flight to " + names[held] + " (its limit) and "
              + limits.maxQueued() + " more wait (the queue's limit)");
          return;
        }
      }
    }
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    state = State.ADMITTED;
    listener.admitted();
  }

  private void granted() {
    if (state != State.WAITING) {
      return; // closed meanwhile; close() gave the slot back
    }
    waiter = null;
    held++;
    next();
  }

  private void timedOut() {
    timer = null;
    if (state != State.WAITING || waiter == null || !gates[held].cancel(waiter)) {
      return; // granted meanwhile: granted() is on its way
    }
    waiter = null;
    refuse(String.format(Locale.ROOT, "waited %.1f s (the queue's limit) for one of the %d slots of %s",
        limits.queueTimeoutNanos() / 1e9, gates[held].limit(), names[held]));
  }

  private void refuse(String why) {
    state = State.DONE;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    releaseHeld();
    listener.refused("tokenmeter proxy: over capacity: " + why + "; retry after " + limits.retryAfterSeconds() + " s");
  }

  private void releaseHeld() {
    while (held > 0) {
      gates[--held].release();
    }
  }
}
