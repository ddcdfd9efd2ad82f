package dev.tokenmeter.proxy.dashboard;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.MeteredRequestSink;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import org.HdrHistogram.Histogram;

/**
 * The live dashboard's figures: fed every finished request by the proxy's record path (it is one
 * of its {@link MeteredRequestSink}s), asked for a {@link BoardView} of a window by each poll of the feed.
 * Memory is bounded whatever the traffic: two rings of token buckets ({@link TokenRates}), the last
 * hour's requests up to a cap ({@link RecentRequests}), a few minutes of decode TPS per upstream
 * ({@link WarmUp}).
 *
 * <p>Percentiles are HdrHistogram values with 3 significant digits summarised by {@link
 * Distribution}, recorded exactly as the ledger's {@code proxy usage} records them, so a window's
 * figures equal the ledger's for the same requests.
 *
 * <p>Thread-safe: {@link #accept} (record threads) and {@link #view} (the proxy's dashboard thread,
 * never an event loop) take one lock; {@code accept} does O(1) work plus one step per second its request's tokens
 * spanned, {@code view} one pass over the window's requests.
 *
 * <pre>{@code
 * LiveBoard board = new LiveBoard(LiveBoard.Setup.of(List.of("default"), name -> 0), InstantSource.system());
 * sinks.add(board);
 * BoardView last5m = board.view(300);
 * }</pre>
 */
public final class LiveBoard implements MeteredRequestSink {
  /** The longest window: one hour. */
  public static final long MAX_WINDOW_SECONDS = 3_600;
  /** Requests held for the per-request figures: 100,000 (about 6 MB). */
  public static final int DEFAULT_CAPACITY = 100_000;

  /**
   * What the board shows besides traffic.
   *
   * @param upstreams the configured upstreams, in order
   * @param inFlight requests in flight to an upstream now, by name
   * @param budgets the tenants' budgets (empty for none)
   * @param bookOrNull the book holding their use, or null when there are none
   * @param fluidTps the per-user decode TPS line, tokens/s
   * @param slos the SLO panel's rows
   * @param capacity requests held for the per-request figures
   */
  public record Setup(
      List<String> upstreams,
      ToIntFunction<String> inFlight,
      List<Budget> budgets,
      BudgetBook bookOrNull,
      double fluidTps,
      SloSource slos,
      int capacity) {
    public Setup {
      upstreams = List.copyOf(upstreams);
      budgets = List.copyOf(budgets);
      Objects.requireNonNull(inFlight, "inFlight");
      Objects.requireNonNull(slos, "slos");
      if (!budgets.isEmpty() && bookOrNull == null) {
        throw new IllegalArgumentException("budgets need the book that holds their use");
      }
    }

    /** No budgets, the 30 tok/s fluid line, no SLOs, the default capacity. */
    public static Setup of(List<String> upstreams, ToIntFunction<String> inFlight) {
      return new Setup(upstreams, inFlight, List.of(), null, 30, SloSource.NONE, DEFAULT_CAPACITY);
    }
  }

  private final Setup setup;
  private final InstantSource clock;
  private final long startedMs;
  private final TokenRates rates = new TokenRates();
  private final RecentRequests recent;
  private final Map<String, WarmUp> warmUps = new LinkedHashMap<>();
  private volatile java.util.function.Supplier<BoardView.Ledger> ledger = () -> BoardView.Ledger.NONE;

  public LiveBoard(Setup setup, InstantSource clock) {
    this.setup = Objects.requireNonNull(setup, "setup");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.startedMs = clock.millis();
    this.recent = new RecentRequests(setup.capacity(), MAX_WINDOW_SECONDS * 1000);
    setup.upstreams().forEach(u -> warmUps.put(u, new WarmUp()));
  }

  @Override
  public synchronized void accept(MeteredRequest r) {
    long now = clock.millis();
    rates.add(r, now);
    recent.add(RecentRequests.Entry.of(r), now);
    if (!r.refusedByProxy()) { // sent nowhere: no upstream warmed up
      warmUps.computeIfAbsent(r.upstream(), u -> new WarmUp()).add(r);
    }
  }

  /** Where the ledger's health comes from (the proxy's watch); until set, {@link BoardView.Ledger#NONE}. */
  public void ledgerHealth(java.util.function.Supplier<BoardView.Ledger> source) {
    ledger = Objects.requireNonNull(source, "source");
  }

  /**
   * The figures of the last {@code windowSeconds} (1 to 3,600), now.
   *
   * @throws IllegalArgumentException for a window out of range
   */
  public BoardView view(long windowSeconds) {
    if (windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) {
      throw new IllegalArgumentException("window must be 1 s to 1 h, got " + windowSeconds + " s");
    }
    Map<String, List<BoardView.BudgetView>> budgets = budgets(); // outside our lock: the book has its own
    BoardView.Slo slo = new BoardView.Slo(setup.slos().configured(), List.copyOf(setup.slos().rows()));
    BoardView.Ledger health = ledger.get(); // outside our lock: the watch has its own
    synchronized (this) {
      long now = clock.millis();
      long from = now - windowSeconds * 1000;
      recent.expire(now);
      WindowTally tally = new WindowTally(setup.fluidTps());
      recent.forEachStartedIn(from, now, tally::add);
      long completeFrom = Math.max(recent.completeFromMs(), startedMs);
      List<BoardView.UpstreamView> ups = new ArrayList<>();
      warmUps.forEach((name, w) -> {
        int inFlight = setup.upstreams().contains(name) ? setup.inFlight().applyAsInt(name) : 0;
        long[] counts = tally.byUpstream.getOrDefault(name, new long[2]);
        ups.add(new BoardView.UpstreamView(name, inFlight, counts[0], counts[1], w.view(now, inFlight)));
      });
      return new BoardView(now, windowSeconds, from, startedMs, rates(now, windowSeconds),
          new BoardView.Requests(tally.count, tally.errors, completeFrom, from < recent.completeFromMs()),
          tally.ttft(), tally.speed(), new TreeMap<>(tally.errorsByClass), ups, tally.tenants(budgets), slo, health);
    }
  }

  private Map<String, List<BoardView.BudgetView>> budgets() {
    Map<String, List<BoardView.BudgetView>> out = new TreeMap<>();
    for (Budget b : setup.budgets()) {
      double spent = setup.bookOrNull().spent(b);
      double reserved = setup.bookOrNull().reserved(b);
      out.computeIfAbsent(b.tenant(), t -> new ArrayList<>()).add(new BoardView.BudgetView(b.describe(), b.unit(),
          b.period().word(), b.enforce(), b.limit(), spent, reserved, spent / b.limit()));
    }
    return out;
  }

  private BoardView.Rates rates(long now, long windowSeconds) {
    double in;
    double out;
    if (windowSeconds <= TokenRates.SECOND_BUCKETS) {
      long last = rates.seconds.bucketOf(now);
      in = sum(rates.seconds.series(last, (int) windowSeconds, true));
      out = sum(rates.seconds.series(last, (int) windowSeconds, false));
    } else {
      long last = rates.minutes.bucketOf(now);
      int n = (int) ((windowSeconds + 59) / 60);
      in = sum(rates.minutes.series(last, n, true));
      out = sum(rates.minutes.series(last, n, false));
    }
    return new BoardView.Rates(Math.round(in), Math.round(out), in / windowSeconds, out / windowSeconds,
        series(rates.seconds, now, (int) Math.min(windowSeconds, TokenRates.SECOND_BUCKETS)),
        series(rates.minutes, now, (int) Math.min(TokenRates.MINUTE_BUCKETS,
            rates.minutes.bucketOf(now) - rates.minutes.bucketOf(startedMs) + 1)));
  }

  private static BoardView.Series series(TokenRates.Ring ring, long now, int count) {
    long last = ring.bucketOf(now);
    double perSecond = ring.bucketMillis / 1000.0;
    double[] in = ring.series(last, count, true);
    double[] out = ring.series(last, count, false);
    for (int i = 0; i < count; i++) {
      in[i] /= perSecond;
      out[i] /= perSecond;
    }
    return new BoardView.Series((last - count + 1) * ring.bucketMillis, ring.bucketMillis, in, out);
  }

  private static double sum(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return s;
  }

  /** The per-request figures of one window, added up request by request. */
  private static final class WindowTally {
    final double fluidTps;
    long count;
    long errors;
    long belowFluid;
    final Histogram ttftNanos = new Histogram(3);
    final Histogram decodeMilliTps = new Histogram(3);
    final Map<String, Long> errorsByClass = new TreeMap<>();
    final Map<String, long[]> byUpstream = new TreeMap<>();
    final Map<String, long[]> tokensByTenant = new TreeMap<>();
    final Map<String, Map<String, Double>> spendByTenant = new TreeMap<>();

    WindowTally(double fluidTps) {
      this.fluidTps = fluidTps;
    }

    void add(RecentRequests.Entry e) {
      count++;
      long[] up = byUpstream.computeIfAbsent(e.upstream(), u -> new long[2]);
      up[0]++;
      long[] t = tokensByTenant.computeIfAbsent(e.tenant(), k -> new long[3]);
      t[0]++;
      t[1] += Math.max(0, e.inputTokens());
      t[2] += Math.max(0, e.outputTokens());
      Map<String, Double> spend = spendByTenant.computeIfAbsent(e.tenant(), k -> new TreeMap<>());
      if (!Double.isNaN(e.cost())) {
        spend.merge(e.currency() == null ? "" : e.currency(), e.cost(), Double::sum);
      }
      if (e.errorClass() != null) {
        errors++;
        up[1]++;
        errorsByClass.merge(e.errorClass().wireName(), 1L, Long::sum);
        return; // distributions are of completed requests, as the ledger's
      }
      if (e.ttftNanos() >= 0) {
        ttftNanos.recordValue(e.ttftNanos());
      }
      if (!Double.isNaN(e.decodeTps())) {
        decodeMilliTps.recordValue(Math.max(0, Math.round(e.decodeTps() * 1000)));
        if (e.decodeTps() < fluidTps) {
          belowFluid++;
        }
      }
    }

    BoardView.Latency ttft() {
      Distribution d = Distribution.of(ttftNanos, Metric.Unit.NANOSECONDS.perReportUnit());
      return new BoardView.Latency(d.count(), orNull(d.p50()), orNull(d.p99()));
    }

    BoardView.Speed speed() {
      Distribution d = Distribution.of(decodeMilliTps, Metric.DECODE_TPS);
      return new BoardView.Speed(d.count(), orNull(d.p50()), orNull(d.p10()), fluidTps, belowFluid);
    }

    List<BoardView.TenantView> tenants(Map<String, List<BoardView.BudgetView>> budgets) {
      TreeMap<String, BoardView.TenantView> out = new TreeMap<>();
      tokensByTenant.forEach((name, t) -> out.put(name, new BoardView.TenantView(name, t[0], t[1], t[2],
          spendByTenant.get(name), budgets.getOrDefault(name, List.of()))));
      budgets.forEach((name, b) -> out.putIfAbsent(name, new BoardView.TenantView(name, 0, 0, 0, Map.of(), b)));
      return List.copyOf(out.values());
    }

    private static Double orNull(double v) {
      return Double.isNaN(v) ? null : v;
    }
  }
}
