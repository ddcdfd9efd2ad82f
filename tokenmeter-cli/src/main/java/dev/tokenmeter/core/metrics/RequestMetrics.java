package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.request.ChunkLog;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TokenCountSource;
import java.util.Arrays;

/**
 * The numbers of the measurement contract (docs/METRICS.md) for one finished request, immutable. Times are
 * nanoseconds; a time that does not exist (no first token, never sent) is {@link #NONE}.
 *
 * <p>Output tokens {@code n}: {@code usage.completion_tokens} when the server sent it; else the
 * {@link OutputTokenCounter} over the answer text, used only when every chunk was answer text
 * (the timeline keeps no reasoning or tool-call text to count); else the text-chunk count. The
 * usage count, the tokenizer's count (made even when usage came) and the chunk count are all kept;
 * {@link #countsDisagree()} says when usage and chunks differ.
 *
 * <p>Tokens per chunk {@code k_i}: see {@link ChunkTokens}; {@code Σk_i = n}.
 *
 * <p>ITL per token: for each chunk {@code i ≥ 1} the gap {@code g_i = t_i − t_{i−1}} is split
 * evenly over the chunk's {@code k_i} tokens. A chunk with {@code k_i = 0} carries its gap forward
 * to the next chunk with {@code k > 0}, so the recorded values sum to {@code lastToken −
 * firstToken} exactly when the last chunk has {@code k > 0} (a trailing zero-token chunk's gap is
 * dropped). The integer split is exact: of a carried gap {@code G} over {@code k} tokens, {@code G
 * mod k} tokens get {@code ⌊G/k⌋ + 1} ns and the rest {@code ⌊G/k⌋}. The first chunk's {@code k_0
 * − 1} extra tokens have no preceding gap and are not recorded: ITL has {@code n − k_0} values,
 * while TPOT divides by {@code n − 1}. ITL per chunk is every {@code g_i}, {@code i ≥ 1}.
 *
 * <p>Failed requests get every field whose timestamps exist.
 */
public final class RequestMetrics {
  /** The value of a time that does not exist. */
  public static final long NONE = -1;

  private final long id;
  private final int stage;
  private final Phase phase;
  private final ErrorClass errorClass;
  private final String finishReason;
  private final int maxTokens;
  private final long scheduledNanos;
  private final long sentNanos;
  private final long firstTokenNanos;
  private final long endNanos;
  private final long ttftNanos;
  private final long ttftFromScheduledNanos;
  private final long timeToFirstContentNanos;
  private final long e2eNanos;
  private final long e2eFromScheduledNanos;
  private final long connectNanos;
  private final long sendLagNanos;
  private final double tpotNanos;
  private final int outputTokens;
  private final TokenCountSource outputTokenSource;
  private final int usageOutputTokens;
  private final int tokenizerOutputTokens;
  private final long outputWords;
  private final boolean answerOnly;
  private final int inputTokens;
  private final int turn;
  private final int usagePromptTokens;
  private final int clientPromptTokens;
  private final boolean clientPromptTokensExact;
  private final long[] chunkNanos;
  private final int[] chunkTokens;

  private RequestMetrics(RequestTimeline t, AnswerCounts counts) {
    if (t.outcome() == null) {
      throw new IllegalArgumentException("request " + t.id() + " has not ended");
    }
    id = t.id();
    stage = t.stage();
    phase = t.phase();
    errorClass = t.outcome().errorClass();
    finishReason = t.finishReason();
    maxTokens = t.spec().maxTokens().orElse(-1);
    scheduledNanos = t.scheduledNanos();
    sentNanos = t.sentNanos();
    firstTokenNanos = t.firstTokenNanos();
    endNanos = t.endNanos();
    ttftNanos = between(sentNanos, firstTokenNanos);
    ttftFromScheduledNanos = between(scheduledNanos, firstTokenNanos);
    timeToFirstContentNanos = between(sentNanos, t.firstContentNanos());
    e2eNanos = between(sentNanos, t.doneNanos());
    e2eFromScheduledNanos = between(scheduledNanos, t.doneNanos());
    connectNanos = between(t.connectStartNanos(), t.connectedNanos());
    sendLagNanos = between(scheduledNanos, sentNanos);

    int chunks = t.chunkCount();
    chunkNanos = new long[chunks];
    int[] chars = new int[chunks];
    for (ChunkLog.Cursor c = t.chunks().cursor(); c.next(); ) {
      chunkNanos[c.index()] = c.nanos();
      chars[c.index()] = c.chars();
    }
    usageOutputTokens = t.usageCompletionTokens();
    answerOnly = t.reasoningChars() == 0;
    tokenizerOutputTokens = answerOnly ? counts.tokenizerTokens() : -1;
    outputWords = counts.words();
    if (usageOutputTokens >= 0) {
      outputTokens = usageOutputTokens;
      outputTokenSource = TokenCountSource.USAGE;
    } else if (tokenizerOutputTokens >= 0) {
      outputTokens = tokenizerOutputTokens;
      outputTokenSource = TokenCountSource.TOKENIZER;
    } else {
      outputTokens = chunks;
      outputTokenSource = TokenCountSource.CHUNKS;
    }
    chunkTokens = ChunkTokens.distribute(outputTokens, chars, chunks);
    // Every token in one read (a whole answer in one chunk, or --no-stream) has no decode time
    // to divide: TPOT is undefined there, not 0, and decode TPS not infinite.
    long decodeNanos = firstTokenNanos >= 0 ? t.lastTokenNanos() - firstTokenNanos : 0;
    tpotNanos =
        outputTokens >= 2 && decodeNanos > 0
            ? (double) decodeNanos / (outputTokens - 1)
            : Double.NaN;

    usagePromptTokens = t.usagePromptTokens();
    clientPromptTokens = t.spec().promptTokens();
    clientPromptTokensExact = t.spec().promptTokensExact();
    inputTokens = usagePromptTokens >= 0 ? usagePromptTokens : clientPromptTokens;
    turn = t.spec().turn() == null ? 0 : t.spec().turn().turn();
  }

  /**
   * The metrics of {@code t}, which must have ended, counting its answer here (on the caller's
   * thread): with the tokenizer when there is one and the answer has no reasoning text, and words.
   *
   * @param counterOrNull the target's tokenizer, or null when there is none
   */
  public static RequestMetrics of(RequestTimeline t, OutputTokenCounter counterOrNull) {
    return new RequestMetrics(
        t, AnswerCounts.of(t.content(), t.reasoningChars() == 0 ? counterOrNull : null));
  }

  /** The metrics of {@code t}, which must have ended, with its answer counted elsewhere. */
  public static RequestMetrics withCounts(RequestTimeline t, AnswerCounts counts) {
    return new RequestMetrics(t, counts);
  }

  private static long between(long from, long to) {
    return from < 0 || to < 0 ? NONE : to - from;
  }

  // ---- identity and outcome ----

  public long id() {
    return id;
  }

  /** The request's turn in its conversation (1 for the first), 0 outside any conversation. */
  public int turn() {
    return turn;
  }

  public int stage() {
    return stage;
  }

  public Phase phase() {
    return phase;
  }

  /** True when the request completed. */
  public boolean succeeded() {
    return errorClass == null;
  }

  /** The failure class, null for a success. */
  public ErrorClass errorClass() {
    return errorClass;
  }

  /** The last finish reason the server sent, as its decoder named it; null when none came. */
  public String finishReason() {
    return finishReason;
  }

  /** The request's {@code max_tokens}, or -1 when it asked for none. */
  public int maxTokens() {
    return maxTokens;
  }

  public long scheduledNanos() {
    return scheduledNanos;
  }

  /** When the request was sent, {@link #NONE} when it never was. */
  public long sentNanos() {
    return sentNanos;
  }

  /** Arrival of the first text chunk, {@link #NONE} when none came. */
  public long firstTokenNanos() {
    return firstTokenNanos;
  }

  /** When the exchange ended. */
  public long endNanos() {
    return endNanos;
  }

  // ---- latencies ----

  /** {@code firstToken − sent}. */
  public long ttftNanos() {
    return ttftNanos;
  }

  /** {@code firstToken − scheduled}. */
  public long ttftFromScheduledNanos() {
    return ttftFromScheduledNanos;
  }

  /** {@code firstContent − sent}: time to the first answer token, after any reasoning. */
  public long timeToFirstContentNanos() {
    return timeToFirstContentNanos;
  }

  /** {@code done − sent}. */
  public long e2eNanos() {
    return e2eNanos;
  }

  /** {@code done − scheduled}. */
  public long e2eFromScheduledNanos() {
    return e2eFromScheduledNanos;
  }

  /** {@code connected − connectStart}; {@link #NONE} when a kept-alive connection was reused. */
  public long connectNanos() {
    return connectNanos;
  }

  /** {@code sent − scheduled}. */
  public long sendLagNanos() {
    return sendLagNanos;
  }

  /**
   * {@code (lastToken − firstToken) / (n − 1)}; NaN (undefined) when {@code n < 2} or when every
   * token arrived in one read ({@code lastToken = firstToken}: one chunk, or a non-streamed answer).
   */
  public double tpotNanos() {
    return tpotNanos;
  }

  /** Whether {@link #tpotNanos()} is undefined: fewer than 2 output tokens, or all in one read. */
  public boolean tpotUndefined() {
    return Double.isNaN(tpotNanos);
  }

  /** Per-request decode speed {@code 1 / TPOT} in tokens per second; NaN when TPOT is undefined. */
  public double decodeTokensPerSecond() {
    return tpotUndefined() ? Double.NaN : 1e9 / tpotNanos;
  }

  // ---- tokens ----

  /** Output tokens {@code n}. */
  public int outputTokens() {
    return outputTokens;
  }

  public TokenCountSource outputTokenSource() {
    return outputTokenSource;
  }

  /** {@code usage.completion_tokens}, -1 when not sent. */
  public int usageOutputTokens() {
    return usageOutputTokens;
  }

  /**
   * The client tokenizer's count of the answer, -1 when not counted (no tokenizer, or reasoning
   * text the client does not keep). Kept beside {@link #usageOutputTokens()} when both exist.
   */
  public int tokenizerOutputTokens() {
    return tokenizerOutputTokens;
  }

  /** Words of the answer text ({@link Words}). */
  public long outputWords() {
    return outputWords;
  }

  /** True when every text chunk was answer (content), no reasoning: the answer is all the output. */
  public boolean answerOnly() {
    return answerOnly;
  }

  /** Number of text chunks. */
  public int chunkCount() {
    return chunkNanos.length;
  }

  /** True when the server sent usage and its completion tokens differ from the chunk count. */
  public boolean countsDisagree() {
    return usageOutputTokens >= 0 && usageOutputTokens != chunkNanos.length;
  }

  /** Prompt tokens: {@code usage.prompt_tokens}, else the client's count; -1 when neither. */
  public int inputTokens() {
    return inputTokens;
  }

  /** True when {@link #inputTokens()} came from the server. */
  public boolean inputTokensFromUsage() {
    return usagePromptTokens >= 0;
  }

  /** {@code usage.prompt_tokens}, -1 when not sent. */
  public int usagePromptTokens() {
    return usagePromptTokens;
  }

  /** The client's prompt token count, -1 when unknown. */
  public int clientPromptTokens() {
    return clientPromptTokens;
  }

  /** True when {@link #clientPromptTokens()} came from the target's tokenizer, not an estimate. */
  public boolean clientPromptTokensExact() {
    return clientPromptTokensExact;
  }

  /** Arrival of chunk {@code i}. */
  public long chunkNanos(int i) {
    return chunkNanos[i];
  }

  /** Tokens chunk {@code i} carries ({@code k_i}). */
  public int chunkTokens(int i) {
    return chunkTokens[i];
  }

  // ---- inter-token latency ----

  /** Receives ITL values: {@code count} tokens (or gaps) of {@code valueNanos} each. */
  @FunctionalInterface
  public interface ItlSink {
    void accept(long valueNanos, long count);
  }

  /** Feeds the per-token ITL values (see the class comment) to {@code sink}, in chunk order. */
  public void forEachItlPerToken(ItlSink sink) {
    long carried = 0;
    for (int i = 1; i < chunkNanos.length; i++) {
      carried += chunkNanos[i] - chunkNanos[i - 1];
      int k = chunkTokens[i];
      if (k == 0) {
        continue;
      }
      long base = carried / k;
      long extra = carried % k;
      if (extra > 0) {
        sink.accept(base + 1, extra);
      }
      sink.accept(base, k - extra);
      carried = 0;
    }
  }

  /** Feeds every inter-chunk gap to {@code sink}, count 1 each. */
  public void forEachItlPerChunk(ItlSink sink) {
    for (int i = 1; i < chunkNanos.length; i++) {
      sink.accept(chunkNanos[i] - chunkNanos[i - 1], 1);
    }
  }

  @Override
  public String toString() {
    return "RequestMetrics[id=" + id + ", phase=" + phase + ", error=" + errorClass
        + ", ttftNanos=" + ttftNanos + ", e2eNanos=" + e2eNanos + ", n=" + outputTokens
        + " (" + outputTokenSource + "), chunkTokens=" + Arrays.toString(chunkTokens) + "]";
  }
}
