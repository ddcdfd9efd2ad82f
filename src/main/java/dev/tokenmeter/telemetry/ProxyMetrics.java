package dev.tokenmeter.telemetry;

import dev.tokenmeter.ledger.RecordSink;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The proxy's live metrics, exposed at {@code /metrics} in the Prometheus text format under the
 * OpenTelemetry GenAI semantic-convention names (docs/PROXY.md). Finished requests arrive through
 * {@link RecordSink#accept}; requests in flight per upstream (the queue depth) through {@link
 * #started} and {@link #ended}, which the stream path may call: they must be wait-free.
 *
 * <p>Thread-safe.
 */
public interface ProxyMetrics extends RecordSink {
  /** A request to {@code upstream} started (headers received and routed). Wait-free. */
  void started(String upstream);

  /** A request to {@code upstream} ended, however it ended. Wait-free. */
  void ended(String upstream);

  /** Records dropped by the proxy's record path because a queue was full (a counter). */
  void dropped(String where);

  /**
   * The proxy refused a request itself, before any upstream: {@code reason} is one of {@code
   * auth}, {@code tenant}, {@code budget}, {@code upstream}, {@code invalid}, {@code overload}
   * (a counter). Wait-free: the stream path calls it.
   */
  void refused(String reason);

  /** The content type of {@link #scrape}'s output, for the HTTP response header. */
  String contentType();

  /** Writes the current exposition (Prometheus text format 0.0.4) to {@code out}. */
  void scrape(OutputStream out) throws IOException;
}
