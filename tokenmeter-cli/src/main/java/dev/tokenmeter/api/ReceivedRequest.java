package dev.tokenmeter.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;

/**
 * One generation request a {@link Simulator} received, and what it sent back. Immutable.
 *
 * <pre>{@code
 * ReceivedRequest r = sim.received().get(0);
 * assertEquals("What is the weather in Paris?", r.lastUserText());
 * assertEquals(12, r.completionTokens());        // the usage the simulator reported
 * assertTrue(r.json().path("stream").asBoolean());
 * }</pre>
 *
 * @param api the API the request was made in
 * @param path the request path, e.g. {@code /v1/chat/completions}
 * @param body the request body as sent
 * @param status the HTTP status answered (200, a scripted error, a rejection)
 * @param promptTokens the simulator's count of prompt tokens, as in the response's usage (0 for an error)
 * @param completionTokens the output tokens of the answer, as in the response's usage when it
 *     ran to its end (0 for an error)
 * @param scripted whether a scripted {@link Answer} was sent (else the simulator's own text)
 */
public record ReceivedRequest(
    Api api, String path, String body, int status, int promptTokens, int completionTokens, boolean scripted) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The body as JSON (a missing node when it is not JSON). */
  public JsonNode json() {
    try {
      JsonNode n = JSON.readTree(body);
      return n == null ? MissingNode.getInstance() : n;
    } catch (IOException e) {
      return MissingNode.getInstance();
    }
  }

  /**
   * The text of the last user turn, whatever the API: OpenAI and Anthropic {@code messages},
   * Ollama {@code messages} or {@code prompt}, Gemini {@code contents}, TGI {@code inputs}, OpenAI
   * completions' {@code prompt} and Responses' {@code input}. Text parts are joined; empty when none.
   */
  public String lastUserText() {
    JsonNode root = json();
    JsonNode messages = root.has("messages") ? root.get("messages") : root.get("contents");
    if (messages == null && root.path("input").isArray()) {
      messages = root.get("input");
    }
    if (messages != null && messages.isArray()) {
      for (int i = messages.size() - 1; i >= 0; i--) {
        JsonNode m = messages.get(i);
        if ("user".equals(m.path("role").asText())) {
          return text(m.has("content") ? m.get("content") : m.get("parts"));
        }
      }
      return "";
    }
    for (String field : new String[] {"prompt", "inputs", "input"}) {
      if (root.path(field).isTextual()) {
        return root.get(field).asText();
      }
    }
    return "";
  }

  private static String text(JsonNode content) {
    if (content == null) {
      return "";
    }
    if (content.isTextual()) {
      return content.asText();
    }
    StringBuilder out = new StringBuilder();
    for (JsonNode part : content) {
      if (part.path("text").isTextual()) {
        out.append(part.get("text").asText());
      }
    }
    return out.toString();
  }
}
