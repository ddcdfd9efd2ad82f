package dev.tokenmeter.testkit;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.MeteredRequest;

/**
 * Builds {@link MeteredRequest}s for tests: a completed streamed chat request with every figure
 * unknown until set. Not thread-safe; {@link #build} may be called repeatedly.
 */
public final class MeteredRequestBuilder {
  private static int nextId;

  private String tenant = MeteredRequest.ANONYMOUS;
  private String model = "m";
  private String upstream = "u";
  private String endpoint = "/v1/chat/completions";
  private int httpStatus = 200;
  private ErrorClass errorClass;
  private int inputTokens = -1;
  private int outputTokens = -1;
  private int reasoningTokens = -1;
  private int cachedTokens = -1;
  private long proxyQueueNanos = -1;
  private long ttftNanos = -1;
  private double tpotNanos = Double.NaN;
  private long e2eNanos = -1;
  private long itlP50Nanos = -1;
  private long itlP99Nanos = -1;
  private long itlMaxNanos = -1;
  private double cost = Double.NaN;
  private String currency;
  private int inFlightAtStart;

  public static MeteredRequestBuilder chat(String tenant, String model, String upstream) {
    MeteredRequestBuilder b = new MeteredRequestBuilder();
    b.tenant = tenant;
    b.model = model;
    b.upstream = upstream;
    return b;
  }

  public MeteredRequestBuilder endpoint(String path) {
    endpoint = path;
    return this;
  }

  /** A failure of class {@code error} with the given HTTP status (-1: none came). */
  public MeteredRequestBuilder failed(ErrorClass error, int status) {
    errorClass = error;
    httpStatus = status;
    return this;
  }

  public MeteredRequestBuilder tokens(int input, int output, int reasoning, int cached) {
    inputTokens = input;
    outputTokens = output;
    reasoningTokens = reasoning;
    cachedTokens = cached;
    return this;
  }

  /** Times in nanoseconds: proxy overhead, TTFT, TPOT, E2E. */
  public MeteredRequestBuilder times(long queueNanos, long ttft, double tpot, long e2e) {
    proxyQueueNanos = queueNanos;
    ttftNanos = ttft;
    tpotNanos = tpot;
    e2eNanos = e2e;
    return this;
  }

  public MeteredRequestBuilder itl(long p50Nanos, long p99Nanos, long maxNanos) {
    itlP50Nanos = p50Nanos;
    itlP99Nanos = p99Nanos;
    itlMaxNanos = maxNanos;
    return this;
  }

  public MeteredRequestBuilder cost(double amount, String currencyCode) {
    cost = amount;
    currency = currencyCode;
    return this;
  }

  /** Requests already in flight to the same upstream when this one started. */
  public MeteredRequestBuilder inFlightAtStart(int n) {
    inFlightAtStart = n;
    return this;
  }

  public MeteredRequest build() {
    return new MeteredRequest("req-" + (++nextId), 1_764_000_000_000L, tenant, model, upstream,
        endpoint, true, httpStatus, errorClass, errorClass == null ? null : "failed",
        errorClass == null ? "stop" : null, inputTokens, outputTokens,
        outputTokens < 0 ? null : TokenCountSource.USAGE, reasoningTokens, cachedTokens,
        proxyQueueNanos, ttftNanos, tpotNanos, e2eNanos, itlP50Nanos, itlP99Nanos, itlMaxNanos,
        Math.max(0, outputTokens), inFlightAtStart, cost, currency);
  }
}
