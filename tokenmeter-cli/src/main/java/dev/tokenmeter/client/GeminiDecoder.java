package dev.tokenmeter.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Gemini's {@code streamGenerateContent?alt=sse} (ai.google.dev, "Generating content"): every event
 * is a whole {@code GenerateContentResponse} carrying the next parts of the candidate, and the
 * stream ends with the body, not with a terminator event; the last event has the {@code
 * finishReason}.
 *
 * <p>Mapping: a part's {@code text} is answer text, or reasoning when the part says {@code
 * "thought": true}; a {@code functionCall} part's {@code args} are tool input. {@code
 * usageMetadata} (cumulative, repeated in every event) is the usage. {@code finishReason}: {@code
 * STOP} is "stop", {@code MAX_TOKENS} "length"; the content-policy stops ({@code SAFETY}, {@code
 * RECITATION}, {@code BLOCKLIST}, {@code PROHIBITED_CONTENT}, {@code SPII}, ...) pass with their own
 * name in lower case, which {@link dev.tokenmeter.core.request.FinishClass} counts as a
 * content-policy stop (error class {@code content_filter}), as OpenAI's {@code content_filter}; the
 * reasons that say generation went wrong ({@link #FAILURES}) are a stream error. A prompt blocked
 * before generation ({@code promptFeedback.blockReason}) and an {@code error} object are stream
 * errors too.
 */
final class GeminiDecoder implements StreamDecoder {

  /** finishReasons that mean the server failed to generate, not that it chose to stop. */
  static final Set<String> FAILURES =
      Set.of("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "OTHER",
          "FINISH_REASON_UNSPECIFIED");

  @Override
  public void event(String eventType, byte[] b, int offset, int length, Consumer<StreamItem> out) {
    body(b, offset, length, out);
  }

  @Override
  public void body(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    JsonNode r = WireJson.object(b, offset, length, Api.GEMINI);
    JsonNode error = r.get("error");
    if (error != null && error.isObject()) {
      out.accept(
          new StreamItem.ErrorEvent(error.path("message").asText(""), error.path("status").asText(null),
              error.path("code").asText(null)));
      return;
    }
    boolean known = r.has("candidates") || r.has("usageMetadata") || r.has("promptFeedback");
    if (!known) {
      throw WireJson.notThisApi("not a Gemini response: no candidates, usageMetadata or promptFeedback",
          r, Api.GEMINI, b, offset, length);
    }
    String finish = null;
    for (JsonNode candidate : r.path("candidates")) {
      for (JsonNode part : candidate.path("content").path("parts")) {
        part(part, out);
      }
      if (candidate.path("finishReason").isTextual()) {
        finish = candidate.path("finishReason").asText();
      }
    }
    if (finish != null) {
      out.accept(new StreamItem.Finish(finishReason(finish)));
    }
    if (r.path("usageMetadata").isObject()) {
      out.accept(usage(r.get("usageMetadata")).item());
    }
    String blocked = r.path("promptFeedback").path("blockReason").asText(null);
    if (blocked != null) {
      out.accept(new StreamItem.ErrorEvent("Gemini blocked the prompt: " + blocked, "prompt_blocked", blocked));
    } else if (finish != null && FAILURES.contains(finish)) {
      out.accept(new StreamItem.ErrorEvent("Gemini ended the answer with finishReason " + finish, "finish_reason", finish));
    }
  }

  private static void part(JsonNode part, Consumer<StreamItem> out) {
    String text = WireJson.text(part, "text");
    if (text != null) {
      boolean thought = part.path("thought").asBoolean(false);
      out.accept(new StreamItem.Text(text, thought ? TextKind.REASONING : TextKind.CONTENT));
    } else if (part.path("functionCall").isObject()) {
      JsonNode call = part.path("functionCall");
      out.accept(new StreamItem.ToolCallStart(WireJson.text(call, "id"), WireJson.text(call, "name")));
      JsonNode args = call.path("args");
      out.accept(new StreamItem.Text(args.isMissingNode() ? "{}" : args.toString(), TextKind.TOOL_CALL));
    }
  }

  /** {@code STOP} "stop", {@code MAX_TOKENS} "length", any other reason in lower case. */
  static String finishReason(String reason) {
    return switch (reason) {
      case "STOP" -> "stop";
      case "MAX_TOKENS" -> "length";
      default -> reason.toLowerCase(Locale.ROOT);
    };
  }

  /**
   * input = {@code promptTokenCount} (cached content included, as Gemini documents it); output =
   * {@code candidatesTokenCount} + {@code thoughtsTokenCount} (Gemini counts thinking apart from
   * the candidates); reasoning = {@code thoughtsTokenCount}; cached = {@code
   * cachedContentTokenCount}.
   */
  static ApiUsage usage(JsonNode u) {
    int thoughts = WireJson.count(u, "thoughtsTokenCount");
    return new ApiUsage(
        WireJson.count(u, "promptTokenCount"),
        WireJson.plus(WireJson.count(u, "candidatesTokenCount"), thoughts),
        thoughts,
        WireJson.count(u, "cachedContentTokenCount"));
  }
}
