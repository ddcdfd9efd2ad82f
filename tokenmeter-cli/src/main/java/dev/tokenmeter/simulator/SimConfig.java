package dev.tokenmeter.simulator;

import dev.tokenmeter.core.time.Ticker;
import java.time.InstantSource;
import java.util.Objects;

/**
 * Everything {@link SimServer#start} needs. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code
 * SimConfig config = SimConfig.builder()
 *     .timing(TimingModel.fixed(50_000_000L, 20_000_000L))  // TTFT 50 ms, ITL 20 ms
 *     .groundTruthSink(records::add)
 *     .build();
 * }</pre>
 *
 * @param port TCP port on 127.0.0.1; 0 picks a free one
 * @param ioThreads event-loop threads (1 handles thousands of streams)
 * @param servedModelName the only model name accepted and echoed, as vLLM's
 *     {@code --served-model-name}
 * @param seed seeds output lengths, generated text, ids and faults
 * @param timing when tokens are emitted
 * @param outputLengths natural output lengths when {@code ignore_eos} is not set
 * @param defaultMaxTokens {@code max_tokens} when the request sets none
 * @param maxModelLen context length: prompt + {@code max_tokens} above it is a 400, as in vLLM
 * @param faults faults to inject
 * @param ticker the clock of every recorded time and every schedule
 * @param wallClock source of the {@code created} epoch seconds in responses
 * @param groundTruthSink receives one {@link EmissionRecord} per generation, or null for none
 * @param zeroDelayBatchTokens tokens due at the same instant coalesced into one flush (then the
 *     loop yields to other connections); tokens due at different instants are flushed one by one
 * @param roleChunkWithHeaders chat streams: send the role-only first chunk with the response
 *     headers (as OpenAI does) instead of together with the first token (as vLLM does)
 * @param eosChunk when a response stops naturally, its last token is EOS, sent as an empty-text
 *     chunk carrying {@code finish_reason} and counted in {@code completion_tokens} (vLLM);
 *     false: the last text token carries the finish reason
 * @param maxRequestBytes largest accepted request body; larger is a 413
 * @param promptCounter counts a prompt's text tokens for {@code usage.prompt_tokens}, the context
 *     limit and the engine's prefill (plus the chat framing of {@link PromptTokens})
 * @param prefixCacheTokens size of the {@link LruPrefixCache} stand-in that reports cached prompt
 *     tokens for a timing model without its own prefix cache; 0: none (cached tokens reported as 0)
 * @param script scripted answers ({@link Script}), or null: the simulator answers every request itself
 * @param parallelToolCalls how many tool calls an answer that calls tools carries, drawn per request
 *     (docs/SIM-SERVE.md, "Parallel tool calls"); 1 where the request forbids parallel calls
 */
public record SimConfig(
    int port,
    int ioThreads,
    String servedModelName,
    long seed,
    TimingModel timing,
    OutputLengths outputLengths,
    int defaultMaxTokens,
    int maxModelLen,
    Faults faults,
    Ticker ticker,
    InstantSource wallClock,
    GroundTruthSink groundTruthSink,
    int zeroDelayBatchTokens,
    boolean roleChunkWithHeaders,
    boolean eosChunk,
    int maxRequestBytes,
    PromptCounter promptCounter,
    int prefixCacheTokens,
    Script script,
    OutputLengths parallelToolCalls) {

  public SimConfig {
    if (prefixCacheTokens != 0 && prefixCacheTokens < LruPrefixCache.BLOCK_TOKENS) {
      throw new IllegalArgumentException(
          "prefixCacheTokens must be 0 or >= " + LruPrefixCache.BLOCK_TOKENS + ": " + prefixCacheTokens);
    }
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port: " + port);
    }
    if (ioThreads < 1 || defaultMaxTokens < 1 || maxModelLen < 1 || zeroDelayBatchTokens < 1) {
      throw new IllegalArgumentException(
          "ioThreads, defaultMaxTokens, maxModelLen, zeroDelayBatchTokens must be >= 1");
    }
    if (maxRequestBytes < 1024) {
      throw new IllegalArgumentException("maxRequestBytes must be >= 1024: " + maxRequestBytes);
    }
    if (servedModelName == null || servedModelName.isEmpty()) {
      throw new IllegalArgumentException("servedModelName must be non-empty");
    }
    Objects.requireNonNull(timing, "timing");
    Objects.requireNonNull(outputLengths, "outputLengths");
    Objects.requireNonNull(faults, "faults");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(wallClock, "wallClock");
    Objects.requireNonNull(promptCounter, "promptCounter");
    Objects.requireNonNull(parallelToolCalls, "parallelToolCalls");
  }

  /** The defaults: see {@link Builder}. */
  public static SimConfig defaults() {
    return builder().build();
  }

  /** A builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration. */
  public Builder toBuilder() {
    return new Builder()
        .port(port)
        .ioThreads(ioThreads)
        .servedModelName(servedModelName)
        .seed(seed)
        .timing(timing)
        .outputLengths(outputLengths)
        .defaultMaxTokens(defaultMaxTokens)
        .maxModelLen(maxModelLen)
        .faults(faults)
        .ticker(ticker)
        .wallClock(wallClock)
        .groundTruthSink(groundTruthSink)
        .zeroDelayBatchTokens(zeroDelayBatchTokens)
        .roleChunkWithHeaders(roleChunkWithHeaders)
        .eosChunk(eosChunk)
        .maxRequestBytes(maxRequestBytes)
        .promptCounter(promptCounter)
        .prefixCacheTokens(prefixCacheTokens)
        .script(script)
        .parallelToolCalls(parallelToolCalls);
  }

  /**
   * Builds a {@link SimConfig}. Defaults: port 0, 1 I/O thread, model "tokenmeter-sim", seed 42,
   * TTFT 50 ms and ITL 20 ms (50 tokens/s, an unloaded 8B model on one GPU), natural lengths
   * uniform in [16, 512], default {@code max_tokens} 256, context 32,768, no faults, the system
   * ticker and wall clock, no sink, 32 tokens per zero-delay flush, vLLM's role-chunk and EOS
   * behaviour, 8 MiB request bodies, prompts counted at 4 characters a token ({@link
   * PromptCounter#charsPerFour}), a 524,288-token stand-in prefix cache ({@link LruPrefixCache}).
   * Not thread-safe.
   */
  public static final class Builder {
    private int port;
    private int ioThreads = 1;
    private String servedModelName = "tokenmeter-sim";
    private long seed = 42;
    private TimingModel timing = TimingModel.fixed(50_000_000L, 20_000_000L);
    private OutputLengths outputLengths = OutputLengths.uniform(16, 512);
    private OutputLengths parallelToolCalls = OutputLengths.fixed(1);
    private int defaultMaxTokens = 256;
    private int maxModelLen = 32_768;
    private Faults faults = Faults.none();
    private Ticker ticker = Ticker.system();
    private InstantSource wallClock = InstantSource.system();
    private GroundTruthSink groundTruthSink;
    private int zeroDelayBatchTokens = 32;
    private boolean roleChunkWithHeaders;
    private boolean eosChunk = true;
    private int maxRequestBytes = 8 << 20;
    private PromptCounter promptCounter = PromptCounter.charsPerFour();
    private int prefixCacheTokens = LruPrefixCache.DEFAULT_TOKENS;
    private Script script;

    private Builder() {}

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder ioThreads(int ioThreads) {
      this.ioThreads = ioThreads;
      return this;
    }

    public Builder servedModelName(String servedModelName) {
      this.servedModelName = servedModelName;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder timing(TimingModel timing) {
      this.timing = timing;
      return this;
    }

    public Builder outputLengths(OutputLengths outputLengths) {
      this.outputLengths = outputLengths;
      return this;
    }

    public Builder defaultMaxTokens(int defaultMaxTokens) {
      this.defaultMaxTokens = defaultMaxTokens;
      return this;
    }

    public Builder maxModelLen(int maxModelLen) {
      this.maxModelLen = maxModelLen;
      return this;
    }

    public Builder faults(Faults faults) {
      this.faults = faults;
      return this;
    }

    public Builder ticker(Ticker ticker) {
      this.ticker = ticker;
      return this;
    }

    public Builder wallClock(InstantSource wallClock) {
      this.wallClock = wallClock;
      return this;
    }

    public Builder groundTruthSink(GroundTruthSink groundTruthSink) {
      this.groundTruthSink = groundTruthSink;
      return this;
    }

    public Builder zeroDelayBatchTokens(int zeroDelayBatchTokens) {
      this.zeroDelayBatchTokens = zeroDelayBatchTokens;
      return this;
    }

    public Builder roleChunkWithHeaders(boolean roleChunkWithHeaders) {
      this.roleChunkWithHeaders = roleChunkWithHeaders;
      return this;
    }

    public Builder eosChunk(boolean eosChunk) {
      this.eosChunk = eosChunk;
      return this;
    }

    public Builder maxRequestBytes(int maxRequestBytes) {
      this.maxRequestBytes = maxRequestBytes;
      return this;
    }

    public Builder promptCounter(PromptCounter promptCounter) {
      this.promptCounter = promptCounter;
      return this;
    }

    /** Size of the stand-in prefix cache ({@link SimConfig#prefixCacheTokens()}); 0 turns it off. */
    public Builder prefixCacheTokens(int prefixCacheTokens) {
      this.prefixCacheTokens = prefixCacheTokens;
      return this;
    }

    /** Tool calls per tool-calling answer ({@link SimConfig#parallelToolCalls()}); default 1. */
    public Builder parallelToolCalls(OutputLengths parallelToolCalls) {
      this.parallelToolCalls = parallelToolCalls;
      return this;
    }

    /** Scripted answers ({@link SimConfig#script()}); null (the default): none. */
    public Builder script(Script script) {
      this.script = script;
      return this;
    }

    public SimConfig build() {
      return new SimConfig(
          port,
          ioThreads,
          servedModelName,
          seed,
          timing,
          outputLengths,
          defaultMaxTokens,
          maxModelLen,
          faults,
          ticker,
          wallClock,
          groundTruthSink,
          zeroDelayBatchTokens,
          roleChunkWithHeaders,
          eosChunk,
          maxRequestBytes,
          promptCounter,
          prefixCacheTokens,
          script,
          parallelToolCalls);
    }
  }
}
