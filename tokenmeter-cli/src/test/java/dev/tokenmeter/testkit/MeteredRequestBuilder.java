package dev.tokenmeter.testkit;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.MeteredRequest;

/**
 * Builds {@link MeteredRequest}s for tests, the one way tests make them: a completed streamed
 * chat request with every figure unknown until set. Unless set, a failure's error text is
 * "failed", a completion's finish reason "stop", the output count's source {@code usage} when there
 * is a count, and the chunks one per output token. Not thread-safe; {@link #build} may be called
 * repeatedly.
 *
 * <pre>{@code
 * MeteredRequest r = MeteredRequestBuilder.chat("acme", "llama", "vllm")
 *     .tokens(100, 50, -1, -1).times(1_000, 80_000_000L, 1e7, 900_000_000L).build();
 * }</pre>
 */
public final class MeteredRequestBuilder {
  private static int nextId;

  private String requestId;
  private long startedAtEpochMillis = 1_764_000_000_000L;
  private String tenant = MeteredRequest.ANONYMOUS;
  private String model = "m";
  private String upstream = "u";
  private String endpoint = "/v1/chat/completions";
  private boolean streamed = true;
  private int httpStatus = 200;
  private ErrorClass errorClass;
  private String error;
  private boolean errorSet;
  private String finishReason;
  private boolean finishReasonSet;
  private int inputTokens = -1;
  private int outputTokens = -1;
  private TokenCountSource source;
  private boolean sourceSet;
  private int reasoningTokens = -1;
  private int cachedTokens = -1;
  private long proxyQueueNanos = -1;
  private long ttftNanos = -1;
  private double tpotNanos = Double.NaN;
  private long e2eNanos = -1;
  private long itlP50Nanos = -1;
  private long itlP99Nanos = -1;
  private long itlMaxNanos = -1;
  private int chunks;
  private boolean chunksSet;
  private int inFlightAtStart;
  private double cost = Double.NaN;
  private String currency;
  private String conversation;
  private dev.tokenmeter.ledger.PromptBlocks promptBlocks;

  public static MeteredRequestBuilder chat(String tenant, String model, String upstream) {
    MeteredRequestBuilder b = new MeteredRequestBuilder();
    b.tenant = tenant;
    b.model = model;
    b.upstream = upstream;
    return b;
  }

  /** Every field of {@code r}, to change some. */
  public static MeteredRequestBuilder from(MeteredRequest r) {
    MeteredRequestBuilder b = chat(r.tenant(), r.model(), r.upstream());
    b.requestId = r.requestId();
    b.startedAtEpochMillis = r.startedAtEpochMillis();
    b.endpoint = r.endpoint();
    b.streamed = r.streamed();
    b.httpStatus = r.httpStatus();
    b.errorClass = r.errorClass();
    b.error(r.error());
    b.finishReason(r.finishReason());
    b.inputTokens = r.inputTokens();
    b.outputTokens = r.outputTokens();
    b.source(r.outputTokensSource());
    b.reasoningTokens = r.reasoningTokens();
    b.cachedTokens = r.cachedTokens();
    b.times(r.proxyQueueNanos(), r.ttftNanos(), r.tpotNanos(), r.e2eNanos());
    b.itl(r.itlP50Nanos(), r.itlP99Nanos(), r.itlMaxNanos());
    b.chunks(r.chunks());
    b.inFlightAtStart = r.inFlightAtStart();
    b.cost = r.cost();
    b.currency = r.currency();
    b.conversation = r.conversation();
    b.promptBlocks = r.promptBlocksOrNull();
    return b;
  }

  /** The request's id (default: "req-N", N counting up). */
  public MeteredRequestBuilder id(String id) {
    requestId = id;
    return this;
  }

  public MeteredRequestBuilder startedAt(long epochMillis) {
    startedAtEpochMillis = epochMillis;
    return this;
  }

  public MeteredRequestBuilder endpoint(String path) {
    endpoint = path;
    return this;
  }

  public MeteredRequestBuilder streamed(boolean s) {
    streamed = s;
    return this;
  }

  /** The HTTP status with no failure (-1: none came). */
  public MeteredRequestBuilder status(int status) {
    httpStatus = status;
    return this;
  }

  /** A failure of class {@code error} with the given HTTP status (-1: none came). */
  public MeteredRequestBuilder failed(ErrorClass error, int status) {
    errorClass = error;
    httpStatus = status;
    return this;
  }

  /** The error text (default: "failed" for a failure, null otherwise). */
  public MeteredRequestBuilder error(String text) {
    error = text;
    errorSet = true;
    return this;
  }

  /** The finish reason (default: "stop" for a completion, null for a failure). */
  public MeteredRequestBuilder finishReason(String reason) {
    finishReason = reason;
    finishReasonSet = true;
    return this;
  }

  public MeteredRequestBuilder tokens(int input, int output, int reasoning, int cached) {
    inputTokens = input;
    outputTokens = output;
    reasoningTokens = reasoning;
    cachedTokens = cached;
    return this;
  }

  /** Where the output count came from (default: usage when there is a count). */
  public MeteredRequestBuilder source(TokenCountSource s) {
    source = s;
    sourceSet = true;
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

  /** Stream chunks (default: one per output token). */
  public MeteredRequestBuilder chunks(int n) {
    chunks = n;
    chunksSet = true;
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

  public MeteredRequestBuilder conversation(String key) {
    conversation = key;
    return this;
  }

  /** The prompt's keyed block hashes (proxy export-trace), or null. */
  public MeteredRequestBuilder promptBlocks(dev.tokenmeter.ledger.PromptBlocks blocks) {
    promptBlocks = blocks;
    return this;
  }

  public MeteredRequest build() {
    return new MeteredRequest(requestId != null ? requestId : "req-" + (++nextId), startedAtEpochMillis, tenant, model,
        upstream, endpoint, streamed, httpStatus, errorClass,
        errorSet ? error : errorClass == null ? null : "failed",
        finishReasonSet ? finishReason : errorClass == null ? "stop" : null,
        inputTokens, outputTokens,
        sourceSet ? source : outputTokens < 0 ? null : TokenCountSource.USAGE, reasoningTokens, cachedTokens,
        proxyQueueNanos, ttftNanos, tpotNanos, e2eNanos, itlP50Nanos, itlP99Nanos, itlMaxNanos,
        chunksSet ? chunks : Math.max(0, outputTokens), inFlightAtStart, cost, currency, conversation,
        promptBlocks);
  }
}
