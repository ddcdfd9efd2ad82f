package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.TokenCountSource;

/**
 * One line of {@code requests.jsonl} read back (docs/RESULTS.md, "requests.jsonl"): the per-request
 * figures a crashed run left on disk. Times are nanoseconds from the run's start (the file's
 * {@code *_at_ms} base); a value the line lacks is {@code -1} ({@code NaN} for TPOT and decode
 * TPS).
 *
 * @param errorClass null when the request succeeded
 * @param source where {@code outputTokens} came from
 * @param finishReason the server's last finish reason, null when none came
 * @param maxTokens the request's {@code max_tokens}, -1 when it named none
 * @param session the session it belongs to ({@code bench --turns}), -1 when none
 * @param turn its turn in the session (1 first), 0 when none
 * @param cachedTokens the cached prompt tokens the server reported ({@code usage_cached_tokens}),
 *     -1 when it reported none
 */
public record SavedRequest(
    long id,
    int stage,
    Phase phase,
    boolean ok,
    ErrorClass errorClass,
    long scheduledNanos,
    long sentNanos,
    long ttftNanos,
    long ttftFromScheduledNanos,
    long ttfcNanos,
    long e2eNanos,
    long e2eFromScheduledNanos,
    long connectNanos,
    double tpotNanos,
    double decodeTokensPerSecond,
    int outputTokens,
    TokenCountSource source,
    long outputWords,
    long reasoningChars,
    int inputTokens,
    String finishReason,
    int maxTokens,
    long session,
    int turn,
    int cachedTokens) {

  private static final double NS_PER_MS = 1e6;

  /**
   * Reads one parsed line.
   *
   * @throws IllegalArgumentException when a required field ({@code id}, {@code stage}, {@code
   *     phase}, {@code ok}, {@code scheduled_at_ms}) is missing or a name is unknown
   */
  public static SavedRequest of(JsonNode line) {
    for (String f : new String[] {"id", "stage", "phase", "ok", "scheduled_at_ms"}) {
      if (!line.hasNonNull(f)) {
        throw new IllegalArgumentException("no " + f + " field");
      }
    }
    boolean ok = line.get("ok").asBoolean();
    return new SavedRequest(
        line.get("id").asLong(),
        line.get("stage").asInt(),
        wire(Phase.values(), line.get("phase").asText(), Phase::wireName),
        ok,
        ok ? null : wire(ErrorClass.values(), line.path("error_class").asText(), ErrorClass::wireName),
        nanos(line, "scheduled_at_ms"),
        nanos(line, "sent_at_ms"),
        nanos(line, "ttft_ms"),
        nanos(line, "ttft_from_scheduled_ms"),
        nanos(line, "ttfc_ms"),
        nanos(line, "e2e_ms"),
        nanos(line, "e2e_from_scheduled_ms"),
        nanos(line, "connect_ms"),
        line.hasNonNull("tpot_ms") ? line.get("tpot_ms").asDouble() * NS_PER_MS : Double.NaN,
        line.hasNonNull("decode_tps") ? line.get("decode_tps").asDouble() : Double.NaN,
        line.path("output_tokens").asInt(0),
        wire(TokenCountSource.values(), line.path("output_tokens_source").asText("chunks"),
            TokenCountSource::wireName),
        line.path("output_words").asLong(0),
        line.path("reasoning_chars").asLong(0),
        line.path("input_tokens").asInt(-1),
        line.hasNonNull("finish_reason") ? line.get("finish_reason").asText() : null,
        line.path("max_tokens").asInt(-1),
        line.path("session").asLong(-1),
        line.path("turn").asInt(0),
        line.path("usage_cached_tokens").asInt(-1));
  }

  /** When the first token arrived, -1 when none did. */
  public long firstTokenNanos() {
    return sentNanos < 0 || ttftNanos < 0 ? -1 : sentNanos + ttftNanos;
  }

  /** When the request ended: sent + E2E, or its scheduled time when it was never sent. */
  public long endNanos() {
    return sentNanos < 0 || e2eNanos < 0 ? scheduledNanos : sentNanos + e2eNanos;
  }

  /** When the last token arrived ({@code firstToken + TPOT × (n − 1)}), -1 when no token did. */
  public long lastTokenNanos() {
    long first = firstTokenNanos();
    if (first < 0) {
      return -1;
    }
    return Double.isNaN(tpotNanos) || outputTokens < 2 ? first : first + Math.round(tpotNanos * (outputTokens - 1));
  }

  private static long nanos(JsonNode line, String field) {
    return line.hasNonNull(field) ? Math.round(line.get(field).asDouble() * NS_PER_MS) : -1;
  }

  private static <E> E wire(E[] values, String name, java.util.function.Function<E, String> wireName) {
    for (E v : values) {
      if (wireName.apply(v).equals(name)) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown value '" + name + "'");
  }
}
