package dev.tokenmeter.proxy;

import dev.tokenmeter.client.TlsSettings;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.telemetry.ProxyMetrics;
import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.ssl.SslContext;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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

    UpstreamState(Upstream upstream) {
      this.upstream = upstream;
      this.sslOrNull =
          upstream.tls() ? new TlsSettings(upstream.caCertOrNull(), false).nettyContext() : null;
    }
  }

  final ProxyConfig config;
  final RecordPath record;
  final ProxyMetrics metricsOrNull;
  /** The tenants' budgets, or null when none is configured. */
  final BudgetBook budgetsOrNull;
  final Ticker ticker;
  final InstantSource clock;
  final Class<? extends Channel> channelClass;
  final ChannelGroup channels;
  final Map<String, UpstreamState> upstreams = new HashMap<>();
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
      ChannelGroup channels) {
    this.config = config;
    this.record = record;
    this.metricsOrNull = metricsOrNull;
    this.budgetsOrNull = budgetsOrNull;
    this.ticker = ticker;
    this.clock = clock;
    this.channelClass = channelClass;
    this.channels = channels;
    for (Upstream u : config.routing().upstreams().values()) {
      upstreams.put(u.name(), new UpstreamState(u));
    }
    this.idPrefix = "tm-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16) + "-";
  }

  /** A new request id, unique to this proxy process ({@code tm-RANDOM-N}). */
  String nextRequestId() {
    return idPrefix + nextId.incrementAndGet();
  }

  UpstreamState state(Upstream u) {
    return upstreams.get(u.name());
  }
}
