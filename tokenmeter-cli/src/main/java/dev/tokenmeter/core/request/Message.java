package dev.tokenmeter.core.request;

import java.util.List;
import java.util.Objects;

/**
 * One chat message: a role ({@code system}, {@code user}, {@code assistant}, {@code tool}) and its
 * text, and for an agent's steps the tool calls it carries: the calls an assistant message made,
 * in order (one, or several parallel calls; its content then the text that came with them, often
 * empty), or, on a {@code tool} message, the one call it answers with its result as content.
 *
 * @param tools the tool calls, empty for a plain message
 */
public record Message(String role, String content, List<ToolCall> tools) {
  public Message {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
    tools = tools == null ? List.of() : List.copyOf(tools);
  }

  /** A message without a tool call. */
  public Message(String role, String content) {
    this(role, content, List.of());
  }

  /** A message carrying one tool call, or none when {@code tool} is null. */
  public Message(String role, String content, ToolCall tool) {
    this(role, content, tool == null ? List.of() : List.of(tool));
  }

  /** The first tool call (the one a {@code tool} message answers), or null for a plain message. */
  public ToolCall tool() {
    return tools.isEmpty() ? null : tools.get(0);
  }
}
