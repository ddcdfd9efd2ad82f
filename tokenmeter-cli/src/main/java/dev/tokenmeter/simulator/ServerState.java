package dev.tokenmeter.simulator;

import dev.tokenmeter.core.time.Ticker;
import io.netty.channel.group.ChannelGroup;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/** What every connection of one server shares. Thread-safe. */
final class ServerState {
  final SimConfig config;
  final Ticker ticker;
  final ChannelGroup channels;
  /** The served model name as a JSON string literal, quotes included. */
  final String quotedModel;
  final LongAdder connectionsOpened = new LongAdder();
  final LongAdder requests = new LongAdder();
  final LongAdder generations = new LongAdder();
  final LongAdder tokens = new LongAdder();
  /** Emission jitter (actual − intended) of streamed tokens, ns; wait-free across event loops. */
  final Recorder jitterNanos = new Recorder(3);
  /** {@code GET /metrics}: vLLM's names, from the engine's state and the responses' token times. */
  final VllmMetrics metrics;
  /** The stand-in prefix cache when the timing model keeps none; null otherwise or when off. */
  final LruPrefixCache prefixCache;

  private final AtomicLong lastRequestId = new AtomicLong();
  private volatile boolean closing;

  ServerState(SimConfig config, ChannelGroup channels) {
    this.config = config;
    this.ticker = config.ticker();
    this.channels = channels;
    this.quotedModel = Bodies.quote(config.servedModelName());
    this.metrics = new VllmMetrics(config.servedModelName(), config.timing());
    this.prefixCache =
        config.timing().cachesPrefixes() || config.prefixCacheTokens() == 0
            ? null
            : new LruPrefixCache(config.prefixCacheTokens());
  }

  long nextRequestId() {
    return lastRequestId.incrementAndGet();
  }

  boolean closing() {
    return closing;
  }

  void markClosing() {
    closing = true;
  }

  SimStats stats() {
    return new SimStats(
        connectionsOpened.sum(), requests.sum(), generations.sum(), tokens.sum());
  }
}
