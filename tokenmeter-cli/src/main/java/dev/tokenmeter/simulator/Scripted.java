package dev.tokenmeter.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scripted answer ({@link Script}): text, a tool call or an HTTP error. Immutable. */
public sealed interface Scripted {

  /**
   * A text answer, streamed as the simulator streams its own: one piece per output token (see
   * {@link #pieces}), cut at the request's {@code max_tokens} with finish reason {@code length}.
   */
  record Text(String text) implements Scripted {
    private static final Pattern PIECE = Pattern.compile("\\s*\\S{1,6}|\\s+");

    public Text {
      Objects.requireNonNull(text, "text");
    }

    /**
     * The text cut into output tokens: a word of up to 6 characters with the spaces before it
     * (longer words take several), about what a BPE tokenizer makes of English prose.
     */
    public List<String> pieces() {
      List<String> out = new ArrayList<>();
      Matcher m = PIECE.matcher(text);
      while (m.find()) {
        out.add(m.group());
      }
      if (out.isEmpty()) {
        out.add("");
      }
      return out;
    }
  }

  /**
   * A call of the tool {@code name} with {@code arguments} (compact JSON), streamed as the
   * simulator streams its own tool calls: OpenAI chat and Responses, Anthropic, Gemini.
   */
  record ToolCall(String name, String arguments) implements Scripted {
    public ToolCall {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * A refusal (OpenAI chat's {@code refusal} field, as structured outputs send it): streamed as
   * {@code delta.refusal} pieces, or {@code message.refusal} with {@code content} null. Chat only.
   */
  record Refusal(String message) implements Scripted {
    public Refusal {
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * An HTTP error at arrival, with the API's error body ({@code message} and {@code type}), and a
   * {@code Retry-After} header of {@code retryAfterSeconds} when it is 0 or more (-1: none).
   */
  record HttpError(int status, String type, String message, long retryAfterSeconds) implements Scripted {
    public HttpError {
      if (status < 400 || status > 599) {
        throw new IllegalArgumentException("an error status is 400-599, got " + status);
      }
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(message, "message");
    }
  }

  /** Whether the wire format of {@code api} can carry this answer. */
  default boolean servableOn(GenerationRequest.Api api) {
    return switch (this) {
      case Text t -> true;
      case HttpError e -> true;
      case Refusal r -> api == GenerationRequest.Api.CHAT;
      case ToolCall c -> switch (api) {
        case CHAT, ANTHROPIC, GEMINI, RESPONSES -> true;
        case COMPLETIONS, TGI, OLLAMA, OLLAMA_GENERATE -> false;
      };
    };
  }
}
