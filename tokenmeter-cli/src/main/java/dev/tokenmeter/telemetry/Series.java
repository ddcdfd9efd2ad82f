package dev.tokenmeter.telemetry;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.ledger.MeteredRequest;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;

/**
 * The data points of one label combination, resolved once so that recording a request costs one
 * map look-up for all its metrics instead of one per metric. Thread-safe (the data points are).
 */
final class Series {
  /** Label values of {@code gen_ai_token_type}, in the order of {@link #tokens}. */
  static final String[] TOKEN_TYPES = {"input", "output", "reasoning", "cache_read"};

  /** The labels, already folded by the caps; {@code error} null when the request completed. */
  record Key(Operation operation, String model, String upstream, String tenant, ErrorClass error,
      String currency) {}

  private final Operation operation;
  private final CounterDataPoint requests;
  private final DistributionDataPoint overhead;
  private final CounterDataPoint cost;
  // GenAI operations only (null otherwise).
  private final DistributionDataPoint[] tokens;
  private final DistributionDataPoint operationDuration;
  private final DistributionDataPoint serverDuration;
  // Completed chat and text completions only (null otherwise).
  private final DistributionDataPoint ttft;
  private final DistributionDataPoint tpot;
  private final DistributionDataPoint decodeSpeed;
  private final DistributionDataPoint itlP50;
  private final DistributionDataPoint itlP99;
  private final DistributionDataPoint itlMax;

  Series(MetricFamilies f, Key k) {
    String op = k.operation().wireName();
    String error = k.error() == null ? "" : k.error().wireName();
    operation = k.operation();
    requests = f.requests.labelValues(op, k.model(), k.upstream(), k.tenant(), error);
    overhead = f.requestOverhead.labelValues(k.upstream());
    cost = k.currency() == null ? null : f.cost.labelValues(k.tenant(), k.model(), k.currency());
    boolean genAi = operation.genAi();
    boolean ok = operation.generates() && k.error() == null;
    if (genAi) {
      tokens = new DistributionDataPoint[TOKEN_TYPES.length];
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = f.tokenUsage.labelValues(op, k.model(), k.upstream(), k.tenant(), TOKEN_TYPES[i]);
      }
      operationDuration = f.operationDuration.labelValues(op, k.model(), k.upstream(), k.tenant(), error);
      serverDuration = f.serverRequestDuration.labelValues(op, k.model(), k.upstream(), k.tenant(), error);
    } else {
      tokens = null;
      operationDuration = null;
      serverDuration = null;
    }
    ttft = ok ? f.timeToFirstToken.labelValues(op, k.model(), k.upstream(), k.tenant()) : null;
    tpot = ok ? f.timePerOutputToken.labelValues(op, k.model(), k.upstream(), k.tenant()) : null;
    decodeSpeed = ok ? f.decodeSpeed.labelValues(op, k.model(), k.upstream()) : null;
    itlP50 = ok ? f.interTokenLatency.labelValues(op, k.model(), k.upstream(), "p50") : null;
    itlP99 = ok ? f.interTokenLatency.labelValues(op, k.model(), k.upstream(), "p99") : null;
    itlMax = ok ? f.interTokenLatency.labelValues(op, k.model(), k.upstream(), "max") : null;
  }

  /** Records {@code r}, whose labels fold to this series' key. Unknown values are left out. */
  void record(MeteredRequest r) {
    requests.inc();
    if (r.proxyQueueNanos() >= 0) {
      overhead.observe(seconds(r.proxyQueueNanos()));
    }
    if (cost != null && r.cost() >= 0) { // NaN (unpriced) compares false
      cost.inc(r.cost());
    }
    if (!operation.genAi()) {
      return;
    }
    observeCount(tokens[0], r.inputTokens());
    observeCount(tokens[1], r.outputTokens());
    observeCount(tokens[2], r.reasoningTokens());
    observeCount(tokens[3], r.cachedTokens());
    if (r.e2eNanos() >= 0) {
      operationDuration.observe(seconds(r.e2eNanos()));
      if (r.proxyQueueNanos() >= 0) {
        serverDuration.observe(seconds(r.proxyQueueNanos() + r.e2eNanos()));
      }
    }
    if (ttft != null) {
      recordCompleted(r);
    }
  }

  private void recordCompleted(MeteredRequest r) {
    if (r.ttftNanos() >= 0) {
      ttft.observe(seconds(r.ttftNanos()));
    }
    if (r.tpotNanos() >= 0) { // NaN when n < 2
      tpot.observe(r.tpotNanos() / 1e9);
    }
    double tps = r.decodeTokensPerSecond();
    if (!Double.isNaN(tps)) {
      decodeSpeed.observe(tps);
    }
    observeNanos(itlP50, r.itlP50Nanos());
    observeNanos(itlP99, r.itlP99Nanos());
    observeNanos(itlMax, r.itlMaxNanos());
  }

  private static void observeCount(DistributionDataPoint p, int count) {
    if (count >= 0) {
      p.observe(count);
    }
  }

  private static void observeNanos(DistributionDataPoint p, long nanos) {
    if (nanos >= 0) {
      p.observe(seconds(nanos));
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
