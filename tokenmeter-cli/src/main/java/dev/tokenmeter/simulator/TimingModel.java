package dev.tokenmeter.simulator;

/**
 * When the simulator emits each token of a response: the seam for the engine model.
 *
 * <p>Emission times are absolute and never depend on when earlier tokens were actually written:
 * token 0 is due at {@code arrival + firstTokenDelayNanos(r)}, token {@code i ≥ 1} at the due
 * time of token {@code i − 1} plus {@code interTokenDelayNanos(r, i)}. A late wake-up therefore
 * does not delay later tokens.
 *
 * <p>Calls are lazy and ordered: {@code firstTokenDelayNanos} when the request is accepted,
 * {@code interTokenDelayNanos(r, i)} when token {@code i − 1} is emitted, then {@link
 * #onFinish} once when the response ends for any reason. A stateful model (continuous batching,
 * a roofline over the current batch) can therefore look at the load at that moment. Calls for one
 * request come from that connection's event-loop thread; with several event loops, calls for
 * different requests come from different threads, so implementations must be thread-safe. They
 * run on the server's event loop and must not block. Delays are nanoseconds, {@code ≥ 0}.
 *
 * <p>A model that cannot tell yet (an engine whose next iteration has not started, so the
 * request's next token has no time yet) answers {@link #NOT_YET}; the generation then asks the
 * same question again at {@link #retryAtNanos}, and goes on asking until it gets a delay. The
 * delay is still counted from the previous due time (or from arrival for token 0), so a model
 * that knows absolute emission times stays exact.
 */
public interface TimingModel {

  /** A delay method's answer when the delay is not known yet: ask again at {@link #retryAtNanos}. */
  long NOT_YET = -1;

  /** Nanoseconds from arrival to the first token (time to first token, prefill and queueing). */
  long firstTokenDelayNanos(GenerationRequest r);

  /** Nanoseconds between token {@code tokenIndex − 1} and token {@code tokenIndex} (≥ 1). */
  long interTokenDelayNanos(GenerationRequest r, int tokenIndex);

  /**
   * When to ask again, as a {@link dev.tokenmeter.core.time.Ticker} reading, after a delay method
   * answered {@link #NOT_YET} for {@code r}. A model answering NOT_YET must make progress by then
   * (answer a delay, or a later retry time). Only called after NOT_YET.
   */
  default long retryAtNanos(GenerationRequest r) {
    throw new UnsupportedOperationException("this timing model never answers NOT_YET");
  }

  /**
   * When {@code r} was first scheduled (ticker time), for the queue time of the server's metrics; -1
   * when the model has no queue (the default: scheduled on arrival) or has not scheduled it yet.
   */
  default long scheduledNanos(GenerationRequest r) {
    return -1;
  }

  /**
   * Whether this model keeps its own prefix cache and answers {@link #cachedPromptTokens}. False
   * (the default): the server keeps a block-hash LRU stand-in ({@link LruPrefixCache}) that reports
   * hits without changing the model's timing.
   */
  default boolean cachesPrefixes() {
    return false;
  }

  /**
   * Prompt tokens of {@code r} served from this model's prefix cache: known once {@link
   * #firstTokenDelayNanos} answered a delay (the request was scheduled), 0 before that and for a
   * model that does not cache. Called before {@link #onFinish}.
   */
  default int cachedPromptTokens(GenerationRequest r) {
    return 0;
  }

  /** Called once when the response to {@code r} ends (completed, failed or cut). No-op default. */
  default void onFinish(GenerationRequest r) {}

  /**
   * A constant time to first token and a constant inter-token latency: token {@code i} is due at
   * exactly {@code arrival + ttftNanos + i · itlNanos}.
   */
  static TimingModel fixed(long ttftNanos, long itlNanos) {
    return new Fixed(ttftNanos, itlNanos);
  }

  /** Every token due at arrival: the server emits as fast as it can (batched writes). */
  static TimingModel zero() {
    return new Fixed(0, 0);
  }

  /**
   * The model of {@link #fixed}.
   *
   * @param ttftNanos delay from arrival to the first token
   * @param itlNanos delay between consecutive tokens
   */
  record Fixed(long ttftNanos, long itlNanos) implements TimingModel {
    public Fixed {
      if (ttftNanos < 0 || itlNanos < 0) {
        throw new IllegalArgumentException("delays must be >= 0: " + ttftNanos + ", " + itlNanos);
      }
    }

    @Override
    public long firstTokenDelayNanos(GenerationRequest r) {
      return ttftNanos;
    }

    @Override
    public long interTokenDelayNanos(GenerationRequest r, int tokenIndex) {
      return itlNanos;
    }
  }
}
