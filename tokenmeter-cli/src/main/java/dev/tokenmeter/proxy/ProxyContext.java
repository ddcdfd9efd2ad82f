package dev.tokenmeter.proxy;

import dev.tokenmeter.client.TlsSettings;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.proxy.balance.Balancer;
import dev.tokenmeter.proxy.dashboard.AdminGate;
import dev.tokenmeter.proxy.dashboard.LiveBoard;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.telemetry.ProxyMetrics;
import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.ssl.SslContext;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

/** What every connection of one proxy shares. Thread-safe. */
final class ProxyContext {

  /** Per upstream: requests in flight and whether it refused {@code stream_options}. */
  static final class UpstreamState {
    final Upstream upstream;
    /** The TLS client context of an https upstream, else null. */
    final SslContext sslOrNull;
    final AtomicInteger inFlight = new AtomicInteger();
    /** Set once the upstream answered 400 to an added {@code stream_options}: never add it again. */
    final AtomicBoolean refusesUsageOption = new AtomicBoolean();

    /** The limits a request to it passes, in order: its own (when it has one), then the proxy's. */
    final InFlightGate[] gates;
    /** What each of {@link #gates} is, in a refusal's words. */
    final String[] gateNames;

    UpstreamState(Upstream upstream, AdmissionLimits limits, InFlightGate proxyGate) {
      this.upstream = upstream;
      this.sslOrNull =
          upstream.tls() ? new TlsSettings(upstream.caCertOrNull(), false).nettyContext() : null;
      Integer own = limits.maxInFlightByUpstream().get(upstream.name());
      String proxy = "the proxy";
      if (own == null) {
        gates = new InFlightGate[] {proxyGate};
        gateNames = new String[] {proxy};
      } else {
        gates = new InFlightGate[] {new InFlightGate(own, limits.maxQueued()), proxyGate};
        gateNames = new String[] {"upstream '" + upstream.name() + "'", proxy};
      }
    }
  }

  final ProxyConfig config;
  final RecordPath record;
  final ProxyMetrics metricsOrNull;
  /** The tenants' budgets, or null when none is configured. */
  final BudgetBook budgetsOrNull;
  /** Each model's context length, for the hold of a request that names no output limit. */
  final ContextLengths contexts;
  final Ticker ticker;
  final InstantSource clock;
  final Class<? extends Channel> channelClass;
  final ChannelGroup channels;
  final Map<String, UpstreamState> upstreams = new HashMap<>();
  /** Picks within pools, or null when no route names several upstreams. */
  final Balancer balancerOrNull;
  /** The live dashboard's figures, served at {@code /dashboard/data}. */
  final LiveBoard board;
  /** Who may open the dashboard. */
  final AdminGate gate;
  /**
   * Computes the dashboard's feed off the event loops: one daemon thread, 64 polls queued at most
   * (then 503). A poll walks the window's requests: milliseconds with 100,000 held.
   */
  final java.util.concurrent.ThreadPoolExecutor dashboardExecutor =
      new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, java.util.concurrent.TimeUnit.MILLISECONDS,
          new java.util.concurrent.ArrayBlockingQueue<>(64), r -> {
            Thread t = new Thread(r, "tokenmeter-dashboard");
            t.setDaemon(true);
            return t;
          });
  /** Requests the proxy refused itself, by reason ({@link ProxyMetrics#refused}'s words). */
  final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.LongAdder> refusals =
      new java.util.concurrent.ConcurrentHashMap<>();
  /** Client connections open now (counted from channelActive to channelInactive, refused ones too). */
  final AtomicInteger connections = new AtomicInteger();
  /** Client connections closed as they opened: {@link AdmissionLimits#maxConnections()} were open. */
  final java.util.concurrent.atomic.LongAdder refusedConnections = new java.util.concurrent.atomic.LongAdder();
  private final ToIntFunction<String> inFlight = name -> upstreams.get(name).inFlight.get();
  private final String idPrefix;
  private final AtomicLong nextId = new AtomicLong();

  ProxyContext(
      ProxyConfig config,
      RecordPath record,
      ProxyMetrics metricsOrNull,
      BudgetBook budgetsOrNull,
      Ticker ticker,
      InstantSource clock,
      Class<? extends Channel> channelClass,
      ChannelGroup channels,
      Balancer balancerOrNull,
      LiveBoard board) {
    this.config = config;
    this.board = board;
    this.gate = AdminGate.of(config.listen().getAddress().isLoopbackAddress(), config.adminTokenOrNull());
    this.balancerOrNull = balancerOrNull;
    this.record = record;
    this.metricsOrNull = metricsOrNull;
    this.budgetsOrNull = budgetsOrNull;
    this.contexts = new ContextLengths(config.budgets().contextLengths());
    this.ticker = ticker;
    this.clock = clock;
    this.channelClass = channelClass;
    this.channels = channels;
    AdmissionLimits limits = config.admission();
    InFlightGate proxyGate = new InFlightGate(limits.maxInFlight(), limits.maxQueued());
    for (Upstream u : config.routing().upstreams().values()) {
      upstreams.put(u.name(), new UpstreamState(u, limits, proxyGate));
    }
    this.idPrefix = "tm-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16) + "-";
  }

  /** A new request id, unique to this proxy process ({@code tm-RANDOM-N}). */
  String nextRequestId() {
    return idPrefix + nextId.incrementAndGet();
  }

  /**
   * The upstream for a request: its route's, or the one the balancer picks from its route's pool;
   * null when the routing header names an unknown upstream. Event loop; never waits.
   */
  Upstream route(String modelOrNull, HttpHeaders headers) {
    List<String> pool = config.routing().pool(modelOrNull, headers);
    if (pool == null) {
      return null;
    }
    int i = pool.size() > 1 && balancerOrNull != null ? balancerOrNull.pick(pool, inFlight) : 0;
    return config.routing().upstreams().get(pool.get(i));
  }

  /** Requests in flight to upstream {@code name} now; 0 for a name not configured. */
  int inFlight(String name) {
    UpstreamState s = upstreams.get(name);
    return s == null ? 0 : s.inFlight.get();
  }

  /** Counts a refusal of {@code reason}, here and in the metrics. Wait-free once the reason was seen. */
  void refused(String reason) {
    refusals.computeIfAbsent(reason, r -> new java.util.concurrent.atomic.LongAdder()).increment();
    if (metricsOrNull != null) {
      metricsOrNull.refused(reason);
    }
  }

  UpstreamState state(Upstream u) {
    return upstreams.get(u.name());
  }
}
