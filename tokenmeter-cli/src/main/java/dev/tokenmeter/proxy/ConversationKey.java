package dev.tokenmeter.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The conversation a request belongs to, as its client names it, for the ledger's {@code
 * conversation} column (docs/PROXY.md, "Conversations"). Stateless.
 *
 * <p>First found wins: the configured header ({@code --conversation-header}); OpenAI's {@code
 * prompt_cache_key} (the key its prompt cache routes on, "requests sharing a long prefix"); OpenAI's
 * {@code user} (the end user: a conversation key only in the loose sense, many clients send one
 * per chat session); Anthropic's {@code metadata.user_id}. Gemini has no standard field: use the
 * header. Values are kept as sent, cut to {@link #MAX_CHARS} characters; blank ones count as none.
 */
final class ConversationKey {

  /** Longest key kept: a longer one is cut (as OpenAI caps {@code user} at 256 in practice, 64 documented). */
  static final int MAX_CHARS = 256;

  private ConversationKey() {}

  /**
   * @param headers the request's headers
   * @param headerOrNull the configured header's name, or null
   * @param bodyOrNull the request body's JSON object, or null when it is not one
   * @return the key, or null when the request names none
   */
  static String of(HttpHeaders headers, String headerOrNull, JsonNode bodyOrNull) {
    if (headerOrNull != null) {
      String h = usable(headers.get(headerOrNull));
      if (h != null) {
        return h;
      }
    }
    if (bodyOrNull == null) {
      return null;
    }
    String key = text(bodyOrNull.get("prompt_cache_key"));
    if (key == null) {
      key = text(bodyOrNull.get("user"));
    }
    if (key == null) {
      key = text(bodyOrNull.path("metadata").get("user_id"));
    }
    return key;
  }

  private static String text(JsonNode node) {
    return node != null && node.isTextual() ? usable(node.asText()) : null;
  }

  private static String usable(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    return value.length() > MAX_CHARS ? value.substring(0, MAX_CHARS) : value;
  }
}
