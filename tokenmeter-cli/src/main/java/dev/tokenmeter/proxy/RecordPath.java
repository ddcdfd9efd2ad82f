package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.MeteredRequestSink;
import dev.tokenmeter.telemetry.ProxyMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The proxy's record path: bounded queues, each drained by its own thread, that turn the stream
 * path's {@link RecordEvent}s into {@link MeteredRequest}s and hand them to the sinks.
 *
 * <p>The stream path only calls {@link #open} and the {@code offer} methods: they never wait. When
 * a lane's queue is full the event is dropped and the whole request's record with it (a record
 * missing reads would be wrong): the request is counted in {@link #droppedRecords()} and reported
 * once to {@link ProxyMetrics#dropped} as {@code record_queue}. A request's events all go to one
 * lane, so they are replayed in order.
 *
 * <p>The stream path never wakes a busy lane's thread: while events keep coming the thread drains
 * its queue, sleeps {@link #BUSY_SLEEP_NANOS} when it finds it empty and looks again, so an event
 * reaches the sinks up to that much later. Only a thread idle for {@link #IDLE_AFTER_NANOS} waits
 * on the queue, to be woken by the next event. Waking the thread for every event (a futex call on
 * the event loop, a context switch to the record thread) cost about a fifth of the proxy's CPU per
 * token when every token was its own read (docs/PERFORMANCE.md, "The proxy's wake-ups and its heap").
 *
 * <p>Thread-safe.
 */
final class RecordPath implements AutoCloseable {
  /** How long {@link #close()} lets the lanes drain, at most. */
  private static final long CLOSE_WAIT_MILLIS = 2_000;

  /** How long a busy lane's thread sleeps when its queue is empty before looking again. */
  static final long BUSY_SLEEP_NANOS = 2_000_000;

  /** Nothing queued for this long, a lane's thread waits on its queue to be woken instead. */
  static final long IDLE_AFTER_NANOS = 200_000_000;

  /** Events taken off a queue under one lock. */
  private static final int DRAIN_BATCH = 1_024;

  private final List<BlockingQueue<RecordEvent>> lanes = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final List<MeteredRequestSink> sinks;
  private final ProxyMetrics metricsOrNull;
  private final AtomicLong nextLane = new AtomicLong();
  private final LongAdder dropped = new LongAdder();
  private final LongAdder recorded = new LongAdder();
  private final LongAdder sinkFailures = new LongAdder();
  private final LongAdder wakeUps = new LongAdder();
  private volatile boolean closing;

  RecordPath(
      int threads,
      int queueCapacity,
      List<MeteredRequestSink> sinks,
      ProxyMetrics metricsOrNull,
      TokenCounters counters,
      Prices prices) {
    if (threads < 1 || queueCapacity < 1) {
      throw new IllegalArgumentException("record threads and queue capacity must be at least 1");
    }
    this.sinks = List.copyOf(sinks);
    this.metricsOrNull = metricsOrNull;
    for (int i = 0; i < threads; i++) {
      BlockingQueue<RecordEvent> q = new ArrayBlockingQueue<>(queueCapacity);
      lanes.add(q);
      RecordContext ctx = new RecordContext(counters, prices);
      Thread t = new Thread(() -> drain(q, ctx), "tokenmeter-record-" + i);
      t.setDaemon(true);
      this.threads.add(t);
      t.start();
    }
  }

  /** A new request's record, on one lane. Stream path. */
  RequestState open(RequestInfo info) {
    return open(info, BudgetBook.Hold.NONE);
  }

  /** A new request's record, on one lane, that settles {@code hold} when it ends. Stream path. */
  RequestState open(RequestInfo info, BudgetBook.Hold hold) {
    return new RequestState(info, (int) (nextLane.getAndIncrement() % lanes.size()), hold);
  }

  /** Queues {@code e} without waiting; a full queue loses the request's record. Stream path. */
  void offer(RecordEvent e) {
    RequestState m = e.state();
    if (m.lost()) {
      return;
    }
    if (!lanes.get(m.lane).offer(e) && m.markLost()) {
      m.hold.keep(); // unmetered: its whole reservation counts
      dropped.increment();
      if (metricsOrNull != null) {
        metricsOrNull.dropped(ProxyMetrics.RECORD_QUEUE);
      }
    }
  }

  /** Requests whose record was dropped because a queue was full. */
  long droppedRecords() {
    return dropped.sum();
  }

  /** Records handed to the sinks. */
  long recorded() {
    return recorded.sum();
  }

  /** Times a sink threw (the record still went to the other sinks). */
  long sinkFailures() {
    return sinkFailures.sum();
  }

  /** Times a lane's thread woke from a sleep or from waiting on its queue. */
  long wakeUps() {
    return wakeUps.sum();
  }

  private void drain(BlockingQueue<RecordEvent> q, RecordContext ctx) {
    List<RecordEvent> batch = new ArrayList<>(DRAIN_BATCH);
    long lastEvent = System.nanoTime();
    while (true) {
      if (q.drainTo(batch, DRAIN_BATCH) > 0) {
        for (RecordEvent e : batch) {
          handle(e, ctx);
        }
        batch.clear();
        lastEvent = System.nanoTime();
        continue;
      }
      if (closing) {
        return;
      }
      if (System.nanoTime() - lastEvent < IDLE_AFTER_NANOS) {
        // Not waiting on the queue, so an offer finds no waiter to wake.
        LockSupport.parkNanos(BUSY_SLEEP_NANOS);
        wakeUps.increment();
        if (Thread.interrupted()) {
          return;
        }
        continue;
      }
      RecordEvent e;
      try {
        e = q.poll(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException ie) {
        return;
      }
      wakeUps.increment();
      if (e != null) {
        handle(e, ctx);
        lastEvent = System.nanoTime();
      }
    }
  }

  private void handle(RecordEvent e, RecordContext ctx) {
    RequestState m = e.state();
    if (m.lost()) {
      return;
    }
    switch (e) {
      case RecordEvent.Sent s -> m.sent(s.nanos());
      case RecordEvent.Headers h -> m.headers(h.status(), h.contentType(), h.nanos(), ctx.parser());
      case RecordEvent.Bytes b -> m.bytes(b.bytes(), b.nanos());
      case RecordEvent.Ended end -> deliver(settled(m, m.finish(end.ending(), end.message(), end.nanos(), ctx)));
      case RecordEvent.Refused r -> deliver(m.refused(r.status(), r.message()));
    }
  }

  /**
   * Settles {@code m}'s budget hold with what {@code r} used. A failed request with no count (no
   * answer, an error status) used nothing; an unknown count otherwise keeps its reservation.
   */
  private static MeteredRequest settled(RequestState m, MeteredRequest r) {
    boolean nothing = !r.ok() && r.inputTokens() < 0 && r.outputTokens() <= 0
        && (r.httpStatus() < 200 || r.httpStatus() >= 300);
    if (nothing) {
      m.hold.settle(0, 0, 0);
    } else {
      m.hold.settle(r.inputTokens(), r.outputTokens(), r.cost());
    }
    return r;
  }

  private void deliver(MeteredRequest r) {
    recorded.increment();
    for (MeteredRequestSink sink : sinks) {
      try {
        sink.accept(r);
      } catch (RuntimeException ex) {
        sinkFailures.increment(); // one bad sink must not stop the others or the record thread
      }
    }
  }

  /** Drains what is queued (at most about 2 s) and stops the record threads. */
  @Override
  public void close() {
    closing = true;
    for (Thread t : threads) {
      try {
        t.join(CLOSE_WAIT_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
