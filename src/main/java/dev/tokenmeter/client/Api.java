package dev.tokenmeter.client;

import java.util.Locale;

/** The OpenAI-compatible APIs tokenmeter speaks. */
public enum Api {
  /** {@code POST /v1/chat/completions} with {@code messages}. */
  CHAT("/chat/completions"),
  /** {@code POST /v1/completions} with {@code prompt}. */
  COMPLETIONS("/completions");

  private final String path;

  Api(String path) {
    this.path = path;
  }

  /** Path below the API root ({@code /v1}). */
  public String path() {
    return path;
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code chat} or {@code completions}. */
  public static Api parse(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "chat", "chat-completions", "chat_completions" -> CHAT;
      case "completions", "completion", "text" -> COMPLETIONS;
      default ->
          throw new IllegalArgumentException(
              "unknown API '" + s + "': use 'chat' (/v1/chat/completions) or 'completions' (/v1/completions)");
    };
  }
}
