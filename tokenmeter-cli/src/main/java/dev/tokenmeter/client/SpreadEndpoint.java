package dev.tokenmeter.client;

import dev.tokenmeter.core.loadgen.Endpoint;
import dev.tokenmeter.core.loadgen.Exchange;
import dev.tokenmeter.core.loadgen.ExchangeListener;
import dev.tokenmeter.core.loadgen.Loop;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An endpoint whose connections are spread over several event loops, each an {@link
 * ApiEndpoint} with a thread of its own, so that reading, stamping and parsing many streams
 * runs on several cores (with one loop, 1,000 streams that receive a token at the same moment are
 * read one after another, and the last one's stamp lags the first by the whole read pass:
 * docs/PERFORMANCE.md, "Event loops and held reads at 1,000 streams").
 *
 * <p>The engine stays single-threaded: it runs on the first loop ({@link #loop()}), which also
 * carries its share of the connections. Every callback of an exchange on another loop is handed to
 * the engine's loop in the order it was made; its timestamp was taken at the socket read, on the
 * exchange's own loop, so the hand-over's delay is in no measured time. An {@link Exchange#abort}
 * ends the exchange for the engine at once, as on one loop, and closes its connection on its own
 * loop a moment later; whatever that loop reports after the abort is dropped.
 *
 * <p>The hand-over is bounded: at most {@link #HAND_OVER_LIMIT} callbacks wait for the engine's
 * loop at once. A loop that would exceed it waits, reading nothing meanwhile, so its sockets fill
 * and the server is held back by TCP, as one loop holds it back by reading only as fast as it
 * records. Without the bound a loop on a CPU of its own (or one sharing the engine's CPU) read a
 * zero-delay server faster than the engine recorded: at 1,000 streams of 2,048 tokens, 850,000
 * queued callbacks filled a 143 MiB heap in 9 s (docs/PERFORMANCE.md, "Event loops and held
 * reads at 1,000 streams"). Paced streams never come
 * near the bound; when a loop does wait, its loop-lag probe shows it, so the run's client-health
 * verdict says that the client, not the server, set the pace.
 *
 * <p>Which loop a request goes to: one where the engine last saw a request complete and not yet
 * reused (its keep-alive connection is probably idle there, so a closed loop's next request reuses
 * it rather than opening another connection on another loop), else the loop with the fewest
 * requests in flight. With one loop this is the {@link ApiEndpoint} itself, nothing in between.
 *
 * <p>Threading: as {@link Endpoint}. {@link #start}, {@link Exchange#abort} and every listener
 * callback on {@link #loop()}.
 */
public final class SpreadEndpoint implements Endpoint {
  /**
   * Callbacks that may wait for the engine's loop at once, from all other loops together. 16,384
   * are about 2 MB (a token's callback and its text); a read pass of 1,000 streams carries up to a
   * few thousand.
   */
  public static final int HAND_OVER_LIMIT = 16_384;

  private final ApiEndpoint[] loops;
  /** Permits for callbacks handed to the engine's loop and not yet run there. */
  private final Semaphore handOver;
  private final int handOverLimit;
  /** The most callbacks that waited for the engine's loop at once (diagnostics and tests). */
  private final AtomicInteger handOverPeak = new AtomicInteger();
  private volatile boolean closed;
  private final Loop engine;
  private final Ticker ticker;
  /** Requests started on each loop and not yet ended for the engine. Engine loop only. */
  private final int[] inFlight;
  /** Requests that completed on each loop since its last start there (likely idle connections). */
  private final int[] completed;
  /** Requests started on each loop so far. Engine loop only. */
  private final long[] started;
  private int rotor;

  private SpreadEndpoint(ApiEndpoint[] loops, Ticker ticker, int handOverLimit) {
    this.loops = loops;
    this.handOverLimit = handOverLimit;
    this.handOver = new Semaphore(handOverLimit);
    this.engine = loops[0].loop();
    this.ticker = ticker;
    this.inFlight = new int[loops.length];
    this.completed = new int[loops.length];
    this.started = new long[loops.length];
  }

  /**
   * An endpoint over {@code loops} event loops (at least 1), their threads named {@code
   * tokenmeter-client}, {@code tokenmeter-client-2}, ...
   */
  public static SpreadEndpoint open(EndpointConfig config, Ticker ticker, int loops) {
    return open(config, ticker, loops, HAND_OVER_LIMIT);
  }

  /**
   * As {@link #open(EndpointConfig, Ticker, int)}, with at most {@code handOverLimit} callbacks
   * waiting for the engine's loop at once (tests use a small one).
   */
  public static SpreadEndpoint open(EndpointConfig config, Ticker ticker, int loops, int handOverLimit) {
    if (loops < 1) {
      throw new IllegalArgumentException("an endpoint needs at least one event loop, got " + loops);
    }
    if (handOverLimit < 1) {
      throw new IllegalArgumentException("the hand-over limit must be at least 1, got " + handOverLimit);
    }
    String token = ApiEndpoint.newRunToken();
    ApiEndpoint[] opened = new ApiEndpoint[loops];
    try {
      for (int i = 0; i < loops; i++) {
        String thread = i == 0 ? "tokenmeter-client" : "tokenmeter-client-" + (i + 1);
        opened[i] = ApiEndpoint.create(config, ticker, token, thread);
      }
    } catch (RuntimeException e) {
      for (ApiEndpoint o : opened) {
        if (o != null) {
          o.close();
        }
      }
      throw e;
    }
    return new SpreadEndpoint(opened, ticker, handOverLimit);
  }

  /** The engine's loop: the first of {@link #loops()}. */
  @Override
  public Loop loop() {
    return engine;
  }

  /** Every event loop, the engine's first. */
  @Override
  public List<Loop> loops() {
    List<Loop> all = new ArrayList<>(loops.length);
    for (ApiEndpoint o : loops) {
      all.add(o.loop());
    }
    return all;
  }

  @Override
  public Exchange start(RequestSpec spec, ExchangeListener listener) {
    if (loops.length == 1) {
      started[0]++;
      return loops[0].start(spec, listener);
    }
    int k = pick();
    inFlight[k]++;
    started[k]++;
    if (k == 0) {
      return loops[0].start(spec, new Local(listener));
    }
    Remote r = new Remote(k, listener);
    ApiEndpoint there = loops[k];
    there.loop().execute(() -> r.exchange = there.start(spec, r));
    return r;
  }

  /** The loop for the next request (see the class comment). */
  private int pick() {
    int n = loops.length;
    for (int i = 0; i < n; i++) {
      int k = (rotor + i) % n;
      if (completed[k] > 0) {
        completed[k]--;
        return k;
      }
    }
    int best = rotor % n;
    for (int i = 1; i < n; i++) {
      int k = (rotor + i) % n;
      if (inFlight[k] < inFlight[best]) {
        best = k;
      }
    }
    rotor = best + 1;
    return best;
  }

  /** An exchange on loop {@code k} ended for the engine. Engine loop only. */
  private void ended(int k, Outcome outcome) {
    inFlight[k]--;
    if (outcome instanceof Outcome.Completed) {
      completed[k]++;
    }
  }

  /**
   * Closes every loop's idle connections and retires its busy ones ({@link
   * ApiEndpoint#closeIdleConnections}); completes with how many were idle, in all.
   */
  public CompletableFuture<Integer> closeIdleConnections() {
    List<CompletableFuture<Integer>> each = new ArrayList<>();
    for (ApiEndpoint o : loops) {
      each.add(o.closeIdleConnections());
    }
    return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
        .thenApply(v -> each.stream().mapToInt(CompletableFuture::join).sum());
  }

  /**
   * Connections opened so far on every loop together. Any thread but the loops' own: it waits for
   * each loop to read its count.
   */
  public long connectionsOpened() {
    long sum = 0;
    for (ApiEndpoint o : loops) {
      CompletableFuture<Long> n = new CompletableFuture<>();
      o.loop().execute(() -> n.complete(o.connectionsOpened()));
      sum += n.join();
    }
    return sum;
  }

  /** Requests started on each loop so far (for diagnostics and tests). As {@link #connectionsOpened}. */
  public long[] startedPerLoop() {
    CompletableFuture<long[]> copy = new CompletableFuture<>();
    engine.execute(() -> copy.complete(started.clone()));
    return copy.join();
  }

  /** The {@code X-Request-Id} sent for request {@code requestId} (the same on every loop). */
  public String requestIdHeader(long requestId) {
    return loops[0].requestIdHeader(requestId);
  }

  /** The most callbacks that waited for the engine's loop at once so far. Any thread. */
  public int handOverPeak() {
    return handOverPeak.get();
  }

  /**
   * Takes a hand-over permit, waiting while {@link #HAND_OVER_LIMIT} callbacks are queued; false
   * (no permit) once the endpoint is closed or the thread interrupted, so that closing never waits
   * on an engine that has stopped. The calling loop's thread only.
   */
  private boolean takePermit() {
    try {
      while (!handOver.tryAcquire(50, TimeUnit.MILLISECONDS)) {
        if (closed) {
          return false;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    int queued = handOverLimit - handOver.availablePermits();
    if (queued > handOverPeak.get()) {
      handOverPeak.accumulateAndGet(queued, Math::max);
    }
    return true;
  }

  @Override
  public void close() {
    closed = true;
    for (ApiEndpoint o : loops) {
      o.close();
    }
  }

  /** The engine's listener for an exchange on the engine's own loop: counts its end. */
  private final class Local implements ExchangeListener {
    private final ExchangeListener listener;

    Local(ExchangeListener listener) {
      this.listener = listener;
    }

    @Override
    public void connected(long connectStartNanos, long connectedNanos) {
      listener.connected(connectStartNanos, connectedNanos);
    }

    @Override
    public void sent(long nanos) {
      listener.sent(nanos);
    }

    @Override
    public void headers(int status, long nanos) {
      listener.headers(status, nanos);
    }

    @Override
    public void item(StreamItem item, long nanos) {
      listener.item(item, nanos);
    }

    @Override
    public void end(Outcome outcome, long nanos) {
      ended(0, outcome);
      listener.end(outcome, nanos);
    }
  }

  /**
   * An exchange on another loop: to the engine an {@link Exchange}, to that loop's endpoint an
   * {@link ExchangeListener} whose every call is handed to the engine's loop.
   */
  private final class Remote implements Exchange, ExchangeListener {
    private final int k;
    private final ExchangeListener listener;
    /** The exchange on loop {@code k}. That loop's thread only. */
    Exchange exchange;
    /** Whether the engine has seen this exchange end. Engine loop only. */
    private boolean ended;

    Remote(int k, ExchangeListener listener) {
      this.k = k;
      this.listener = listener;
    }

    @Override
    public void abort(Outcome outcome) {
      if (ended) {
        return;
      }
      ended = true;
      ended(k, outcome);
      listener.end(outcome, ticker.nanos());
      // Queued after the task that started the exchange there, so it runs after it (null only
      // when that start threw, which the loop has logged).
      loops[k].loop().execute(() -> {
        if (exchange != null) {
          exchange.abort(outcome);
        }
      });
    }

    @Override
    public void connected(long connectStartNanos, long connectedNanos) {
      deliver(() -> listener.connected(connectStartNanos, connectedNanos));
    }

    @Override
    public void sent(long nanos) {
      deliver(() -> listener.sent(nanos));
    }

    @Override
    public void headers(int status, long nanos) {
      deliver(() -> listener.headers(status, nanos));
    }

    @Override
    public void item(StreamItem item, long nanos) {
      deliver(() -> listener.item(item, nanos));
    }

    /**
     * Runs {@code call} on the engine's loop, unless the engine has seen this exchange end by then;
     * waits first while the hand-over is full (the class comment).
     */
    private void deliver(Runnable call) {
      boolean permit = takePermit();
      try {
        engine.execute(() -> {
          if (permit) {
            handOver.release();
          }
          if (!ended) {
            call.run();
          }
        });
      } catch (RejectedExecutionException e) {
        if (permit) {
          handOver.release(); // the engine's loop has shut down: nobody listens any more
        }
      }
    }

    @Override
    public void end(Outcome outcome, long nanos) {
      deliver(() -> {
        ended = true;
        ended(k, outcome);
        listener.end(outcome, nanos);
      });
    }
  }
}
