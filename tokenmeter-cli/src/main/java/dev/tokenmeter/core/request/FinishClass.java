package dev.tokenmeter.core.request;

import java.util.Locale;
import java.util.Set;

/**
 * Why an answer ended, in five classes that every API maps to (docs/METRICS.md, "Finish reasons"):
 * the decoders give OpenAI's names where one exists ({@code stop}, {@code length}, {@code
 * tool_calls}, {@code content_filter}) and the API's own otherwise (Gemini's {@code safety}, ...),
 * and this sorts them. A content-policy stop is a failure ({@link Outcome.ContentFiltered}), the
 * others are completions.
 */
public enum FinishClass {
  /** The model chose to stop (end of turn, a stop sequence). */
  STOP("stop"),
  /** Cut by the output limit ({@code max_tokens}) or the context window. */
  LENGTH("length"),
  /** The model called a tool. */
  TOOL_CALLS("tool_calls"),
  /** A content policy stopped it: OpenAI {@code content_filter}, Gemini's safety stops, Anthropic {@code refusal}. */
  CONTENT_FILTER("content_filter"),
  /** Any other reason, or none sent. */
  OTHER("other");

  /**
   * The content-policy reasons as the decoders pass them: OpenAI's (and Anthropic's {@code
   * refusal}, mapped to it), and Gemini's policy finishReasons in lower case (ai.google.dev,
   * "FinishReason": SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and their image forms).
   */
  private static final Set<String> CONTENT_POLICY =
      Set.of("content_filter", "refusal", "safety", "recitation", "blocklist", "prohibited_content", "spii",
          "image_safety", "image_prohibited_content", "image_recitation");

  private final String wireName;

  FinishClass(String wireName) {
    this.wireName = wireName;
  }

  /** Stable snake_case name used in summary.json and the console. */
  public String wireName() {
    return wireName;
  }

  /** The class of a finish reason as a decoder passed it; {@link #OTHER} for null. */
  public static FinishClass of(String finishReason) {
    if (finishReason == null) {
      return OTHER;
    }
    String r = finishReason.toLowerCase(Locale.ROOT);
    if (CONTENT_POLICY.contains(r)) {
      return CONTENT_FILTER;
    }
    return switch (r) {
      case "stop", "end_turn", "stop_sequence", "eos_token" -> STOP;
      case "length", "max_tokens" -> LENGTH;
      case "tool_calls", "function_call", "tool_use" -> TOOL_CALLS;
      default -> OTHER;
    };
  }
}
