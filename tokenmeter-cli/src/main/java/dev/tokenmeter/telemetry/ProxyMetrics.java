package dev.tokenmeter.telemetry;

import dev.tokenmeter.ledger.MeteredRequestSink;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * The proxy's live metrics, exposed at {@code /metrics} in the Prometheus text format under the
 * OpenTelemetry GenAI semantic-convention names (docs/PROXY.md). Finished requests arrive through
 * {@link MeteredRequestSink#accept}; requests in flight per upstream (the queue depth) through {@link
 * #started} and {@link #ended}, which the stream path may call: they must be wait-free.
 *
 * <p>Thread-safe.
 */
public interface ProxyMetrics extends MeteredRequestSink {
  /** The queue whose overflow {@link #dropped} names: the record path's lanes. */
  String RECORD_QUEUE = "record_queue";

  /** Every reason {@link #refused} is given; each series reads 0 from the first scrape. */
  List<String> REFUSAL_REASONS = List.of("auth", "tenant", "budget", "upstream", "invalid", "too_large", "overload");

  /** A request to {@code upstream} started (headers received and routed). Wait-free. */
  void started(String upstream);

  /** A request to {@code upstream} ended, however it ended. Wait-free. */
  void ended(String upstream);

  /**
   * Records dropped by the proxy's record path because a queue was full (a counter); {@link
   * #RECORD_QUEUE} reads 0 from the first scrape.
   */
  void dropped(String where);

  /**
   * The proxy refused a request itself, before any upstream: {@code reason} is one of {@code
   * auth}, {@code tenant}, {@code budget}, {@code upstream}, {@code invalid}, {@code too_large}, {@code
   * overload} ({@link #REFUSAL_REASONS}; a counter). Wait-free: the stream path calls it.
   */
  void refused(String reason);

  /** The content type of {@link #scrape}'s output, for the HTTP response header. */
  String contentType();

  /** Writes the current exposition (Prometheus text format 0.0.4) to {@code out}. */
  void scrape(OutputStream out) throws IOException;
}
