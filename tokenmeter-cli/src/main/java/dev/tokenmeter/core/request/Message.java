package dev.tokenmeter.core.request;

import java.util.Objects;

/**
 * One chat message: a role ({@code system}, {@code user}, {@code assistant}, {@code tool}) and its
 * text, and for an agent's steps the tool call it carries: the call an assistant message made (its
 * content then the text that came with it, often empty), or the call a {@code tool} message
 * answers with its result as content.
 *
 * @param tool the tool call, or null for a plain message
 */
public record Message(String role, String content, ToolCall tool) {
  public Message {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
  }

  /** A message without a tool call. */
  public Message(String role, String content) {
    this(role, content, null);
  }
}
