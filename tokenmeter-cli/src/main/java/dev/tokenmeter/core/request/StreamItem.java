package dev.tokenmeter.core.request;

import java.util.Objects;

/**
 * One thing a response stream said, in the order it said it. A single SSE chunk can yield several
 * items (a text delta, then a finish reason, then usage). A non-streaming response yields the same
 * items, all at one instant.
 */
public sealed interface StreamItem {

  /**
   * Generated text. Never empty: an empty {@code content: ""} delta carries no token and yields no
   * item.
   */
  record Text(String text, TextKind kind) implements StreamItem {
    public Text {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(kind, "kind");
    }
  }

  /**
   * A tool call began: its id ({@code null} where the API sends none, as Gemini may) and the
   * function's name. Its arguments follow as {@link Text} of kind {@link TextKind#TOOL_CALL}. Not
   * a token: the arguments are.
   *
   * <p>{@code index} is the key the API gives the call within its answer, where it gives one
   * (OpenAI's {@code tool_calls[].index}, Anthropic's content-block {@code index}, the Responses
   * API's {@code output_index}), else -1. With a key, id and name both null mean "the arguments that
   * follow belong to the call of this key": parallel calls' deltas may come in any order.
   */
  record ToolCallStart(String id, String name, int index) implements StreamItem {
    /** A call without a key: its arguments follow it. */
    public ToolCallStart(String id, String name) {
      this(id, name, -1);
    }
  }

  /** A role-only delta ({@code {"role":"assistant"}}): not a token, does not start TTFT. */
  record Role(String role) implements StreamItem {}

  /** {@code finish_reason} ({@code stop}, {@code length}, {@code tool_calls}, ...). */
  record Finish(String reason) implements StreamItem {}

  /**
   * Server-reported token usage. A field the server did not send is -1.
   *
   * @param promptTokens {@code usage.prompt_tokens}
   * @param completionTokens {@code usage.completion_tokens} (includes reasoning tokens, as in
   *     OpenAI's API)
   * @param reasoningTokens {@code usage.completion_tokens_details.reasoning_tokens}
   * @param cachedTokens {@code usage.prompt_tokens_details.cached_tokens} (included in {@code
   *     promptTokens})
   */
  record Usage(int promptTokens, int completionTokens, int reasoningTokens, int cachedTokens)
      implements StreamItem {
    /** Usage without a cached-token count. */
    public Usage(int promptTokens, int completionTokens, int reasoningTokens) {
      this(promptTokens, completionTokens, reasoningTokens, -1);
    }
  }

  /** An error object sent inside the stream (HTTP status was 200): the request failed. */
  record ErrorEvent(String message, String type, String code) implements StreamItem {}

  /** The {@code data: [DONE]} terminator. */
  record Done() implements StreamItem {}
}
