package dev.tokenmeter.proxy;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A limit of requests in flight (the whole proxy's, or one upstream's) with a bounded queue of
 * requests waiting for a slot. Thread-safe and lock-free: it is entered and released on every
 * event loop, and never waits; a waiter is told of its slot through its callback, which runs on
 * the thread that released the slot and must only hand the news to the waiter's own loop.
 *
 * <pre>{@code
 * switch (gate.enter(() -> loop.execute(this::go))) {
 *   case InFlightGate.Entry.Admitted a -> go();
 *   case InFlightGate.Entry.Queued q -> timer = loop.schedule(() -> { if (gate.cancel(q.waiter())) refuse(); }, ...);
 *   case InFlightGate.Entry.Full f -> refuse();
 * }
 * // ... and once the request ends: gate.release();
 * }</pre>
 *
 * <p>Waiters are served first come, first served; a newcomer takes a free slot only when nobody
 * waits. A {@link Entry.Queued} waiter may be granted before {@link #enter} returns (its callback
 * then runs on this thread, so it must not act before the caller has read the entry: hand it to
 * the loop, as above). A waiter cancelled while a release looks at it is skipped, its slot given
 * to the next.
 */
final class InFlightGate {
  /** What {@link #enter} did with a request. */
  sealed interface Entry {
    /** It holds a slot now; {@link #release} it when the request ends. */
    record Admitted() implements Entry {}

    /** It waits; its callback runs once it holds a slot, unless {@link #cancel} removed it first. */
    record Queued(Waiter waiter) implements Entry {}

    /** {@code maxQueued} requests already wait: refuse it. */
    record Full() implements Entry {}
  }

  /** One waiting request: granted at most once, or cancelled. */
  static final class Waiter {
    private static final int WAITING = 0;
    private static final int GRANTED = 1;
    private static final int CANCELLED = 2;
    private final AtomicInteger state = new AtomicInteger(WAITING);
    private final Runnable onGranted;

    private Waiter(Runnable onGranted) {
      this.onGranted = onGranted;
    }
  }

  private static final Entry ADMITTED = new Entry.Admitted();
  private static final Entry FULL = new Entry.Full();

  private final int limit;
  private final int maxQueued;
  private final AtomicInteger free;
  private final AtomicInteger waiting = new AtomicInteger();
  private final ConcurrentLinkedQueue<Waiter> queue = new ConcurrentLinkedQueue<>();

  /**
   * @param limit requests in flight at once, 1 or more
   * @param maxQueued requests waiting at once, 0 or more (0: refuse at once when full)
   */
  InFlightGate(int limit, int maxQueued) {
    if (limit < 1 || maxQueued < 0) {
      throw new IllegalArgumentException("limit must be at least 1 and the queue 0 or more: " + limit + ", " + maxQueued);
    }
    this.limit = limit;
    this.maxQueued = maxQueued;
    this.free = new AtomicInteger(limit);
  }

  /** Takes a slot, or queues for one ({@code onGranted} runs when it is given), or says the queue is full. */
  Entry enter(Runnable onGranted) {
    if (queue.isEmpty() && tryTake()) {
      return ADMITTED;
    }
    if (waiting.incrementAndGet() > maxQueued) {
      waiting.decrementAndGet();
      return FULL;
    }
    Waiter w = new Waiter(onGranted);
    queue.add(w);
    dispatch(); // a slot freed between the try above and the add finds its waiter here
    return new Entry.Queued(w);
  }

  /**
   * Withdraws a waiter (its time in the queue is up, or its client left). True: it was still
   * waiting and never will hold a slot; false: it was granted one (its callback has run or will),
   * which it must {@link #release} in turn.
   */
  boolean cancel(Waiter w) {
    if (!w.state.compareAndSet(Waiter.WAITING, Waiter.CANCELLED)) {
      return false;
    }
    waiting.decrementAndGet();
    queue.remove(w); // O(queue); a release would skip it anyway
    return true;
  }

  /** Gives back a slot: to the longest waiter, else to the next newcomer. */
  void release() {
    free.incrementAndGet();
    dispatch();
  }

  /** Requests holding a slot now. */
  int inFlight() {
    return limit - free.get();
  }

  /** Requests waiting now. */
  int queued() {
    return waiting.get();
  }

  int limit() {
    return limit;
  }

  /** While a slot is free and someone waits, give it to the first live waiter. */
  private void dispatch() {
    while (!queue.isEmpty() && tryTake()) {
      Waiter w = queue.poll();
      if (w != null && w.state.compareAndSet(Waiter.WAITING, Waiter.GRANTED)) {
        waiting.decrementAndGet();
        w.onGranted.run();
      } else {
        free.incrementAndGet(); // nobody live to give it to; look again
      }
    }
  }

  private boolean tryTake() {
    for (int f = free.get(); f > 0; f = free.get()) {
      if (free.compareAndSet(f, f - 1)) {
        return true;
      }
    }
    return false;
  }
}
