package dev.tokenmeter.core.request;

import java.util.Objects;

/** One chat message: a role ({@code system}, {@code user}, {@code assistant}, ...) and its text. */
public record Message(String role, String content) {
  public Message {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
  }
}
