package dev.tokenmeter.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.Scripted;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link Simulator} answers a request with. Immutable, thread-safe. Text and tool calls are
 * streamed at the simulator's timing, in the request's wire format, and counted in its usage.
 *
 * <pre>{@code
 * sim.answer(Answer.text("Paris is the capital of France."));
 * sim.answer(Answer.json("{\"city\":\"Paris\",\"population\":2102650}"));   // structured output
 * sim.answer(Answer.toolCall("get_weather", "{\"city\":\"Paris\"}"));
 * sim.enqueue(Answer.rateLimited(Duration.ofSeconds(1)));                 // next request: 429
 * sim.answer(Answer.error(503, "overloaded"));
 * sim.answer(Answer.refusal("I can't help with that."));                 // OpenAI chat's refusal field
 * }</pre>
 */
public final class Answer {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Scripted scripted;

  private Answer(Scripted scripted) {
    this.scripted = scripted;
  }

  /** A text answer; {@code max_tokens} cuts it as a model would (finish reason {@code length}). */
  public static Answer text(String text) {
    return new Answer(new Scripted.Text(Objects.requireNonNull(text, "text")));
  }

  /**
   * A JSON answer, for structured output ({@code response_format} / JSON mode): sent as the text
   * of the answer, compacted.
   *
   * @throws IllegalArgumentException when {@code json} is not valid JSON
   */
  public static Answer json(String json) {
    return new Answer(new Scripted.Text(compact(json, "Answer.json")));
  }

  /**
   * A call of tool {@code name} with {@code argumentsJson} (a JSON object). OpenAI chat and
   * Responses, Anthropic and Gemini carry tool calls; a simulator started for Ollama or TGI refuses it.
   *
   * @throws IllegalArgumentException when the arguments are not a JSON object
   */
  public static Answer toolCall(String name, String argumentsJson) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("Answer.toolCall needs the tool's name, e.g. toolCall(\"get_weather\", \"{}\")");
    }
    String args = compact(argumentsJson, "Answer.toolCall");
    if (!args.startsWith("{")) {
      throw new IllegalArgumentException("Answer.toolCall: the arguments must be a JSON object, e.g. {\"city\":\"Paris\"}; got " + args);
    }
    return new Answer(new Scripted.ToolCall(name, args));
  }

  /**
   * A refusal, as OpenAI's structured outputs send one: {@code delta.refusal} pieces when
   * streamed, {@code message.refusal} with {@code content} null otherwise. OpenAI chat only.
   */
  public static Answer refusal(String message) {
    return new Answer(new Scripted.Refusal(Objects.requireNonNull(message, "message")));
  }

  /**
   * An HTTP error at arrival, with the API's error body.
   *
   * @param status 400-599
   */
  public static Answer error(int status, String message) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("Answer.error: an error status is 400-599, got " + status);
    }
    String type = switch (status) {
      case 400 -> "BadRequestError";
      case 401 -> "AuthenticationError";
      case 403 -> "PermissionDeniedError";
      case 404 -> "NotFoundError";
      case 429 -> "RateLimitError";
      case 503 -> "ServiceUnavailableError";
      default -> status >= 500 ? "InternalServerError" : "BadRequestError";
    };
    return new Answer(new Scripted.HttpError(status, type, Objects.requireNonNull(message, "message"), -1));
  }

  /** HTTP 429 with {@code Retry-After} in whole seconds (rounded up), as a provider's rate limit. */
  public static Answer rateLimited(Duration retryAfter) {
    long seconds = (retryAfter.toMillis() + 999) / 1000;
    if (retryAfter.isNegative()) {
      throw new IllegalArgumentException("Answer.rateLimited: Retry-After cannot be negative, got " + retryAfter);
    }
    return new Answer(new Scripted.HttpError(429, "RateLimitError",
        "Rate limit reached (tokenmeter simulator). Please try again in " + seconds + "s.", seconds));
  }

  Scripted scripted() {
    return scripted;
  }

  @Override
  public String toString() {
    return switch (scripted) {
      case Scripted.Text t -> "text(" + abbreviate(t.text()) + ")";
      case Scripted.Refusal r -> "refusal(" + abbreviate(r.message()) + ")";
      case Scripted.ToolCall c -> "toolCall(" + c.name() + ", " + abbreviate(c.arguments()) + ")";
      case Scripted.HttpError e -> "error(" + e.status() + (e.retryAfterSeconds() >= 0 ? ", Retry-After " + e.retryAfterSeconds() : "") + ")";
    };
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? '"' + s + '"' : '"' + s.substring(0, 37) + "...\"";
  }

  private static String compact(String json, String who) {
    try {
      JsonNode node = JSON.readTree(Objects.requireNonNull(json, who + ": null JSON"));
      if (node == null) {
        throw new IllegalArgumentException(who + ": empty JSON");
      }
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(who + ": not valid JSON (" + e.getOriginalMessage() + "): " + json);
    }
  }
}
