package dev.tokenmeter.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * JSON helpers of the decoders other than OpenAI's: parse a payload into a tree, read counts and
 * texts, and name the API a payload looks like when it is not the one asked for.
 *
 * <pre>
 * design notes
 * - Trees, not the streaming parser ChunkParser uses: these APIs nest the token text two or three
 *   objects deep and send a few kinds of event each, and a tree keeps each mapping readable next
 *   to its wire format. The cost is an allocation per node; it is paid per event of these APIs
 *   only, never on the OpenAI path that the client-capacity figures of docs/PERFORMANCE.md measure.
 * - The hint ("this endpoint answered like an OpenAI server; try --api chat") comes first in the
 *   message: it is the line a user needs when --url and --api disagree.
 * </pre>
 */
final class WireJson {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private WireJson() {}

  /** The payload as a JSON object; a {@link ProtocolException} when it is not one. */
  static JsonNode object(byte[] b, int offset, int length, Api api) {
    JsonNode node;
    try {
      node = MAPPER.readTree(b, offset, length);
    } catch (JsonProcessingException e) {
      throw new ProtocolException("malformed JSON: " + e.getOriginalMessage(), b, offset, length, e);
    } catch (IOException e) {
      throw new ProtocolException("unreadable JSON: " + e.getMessage(), b, offset, length, e);
    }
    if (node == null || node.isMissingNode()) {
      throw new ProtocolException("empty payload", b, offset, length);
    }
    if (!node.isObject()) {
      throw notThisApi("expected a JSON object", node, api, b, offset, length);
    }
    return node;
  }

  /**
   * A failure for a payload that is JSON but not {@code api}'s: the hint naming the API it looks
   * like, when there is one, then {@code problem} and the payload excerpt.
   */
  static ProtocolException notThisApi(String problem, JsonNode node, Api api, byte[] b, int offset, int length) {
    ProtocolException e = new ProtocolException(problem, b, offset, length);
    String hint = hint(node, api);
    return hint == null ? e : new ProtocolException(hint + "; " + e.getMessage(), null);
  }

  /** {@code e} with the hint put first when its payload looks like another API's, else {@code e}. */
  static ProtocolException withHint(ProtocolException e, Api api, byte[] b, int offset, int length) {
    JsonNode node;
    try {
      node = MAPPER.readTree(b, offset, length);
    } catch (IOException notJson) {
      return e;
    }
    String hint = hint(node, api);
    return hint == null ? e : new ProtocolException(hint + "; " + e.getMessage(), e);
  }

  /** "this endpoint answered like X; try --api Y", or null when {@code node} is no known API's or is {@code api}'s. */
  static String hint(JsonNode node, Api api) {
    Api other = looksLike(node);
    if (other == null || other == api || (other.openAiCompatible() && api.openAiCompatible())) {
      return null;
    }
    String server =
        switch (other) {
          case CHAT, COMPLETIONS -> "an OpenAI server";
          case ANTHROPIC -> "Anthropic's Messages API";
          case RESPONSES -> "OpenAI's Responses API";
          case GEMINI -> "Gemini";
          case TGI -> "TGI's native API";
          case OLLAMA, OLLAMA_GENERATE -> "Ollama's native API";
        };
    return "this endpoint answered like " + server + "; try --api " + other.wireName();
  }

  /** The API whose payload {@code node} looks like (by fields only that API sends), or null. */
  static Api looksLike(JsonNode node) {
    if (node == null || !node.isObject()) {
      return null;
    }
    String type = node.path("type").asText("");
    if (type.startsWith("message_") || type.startsWith("content_block_") || type.equals("ping")
        || (type.equals("error") && node.path("error").has("type"))) {
      return Api.ANTHROPIC;
    }
    if (type.startsWith("response.") || node.path("object").asText("").equals("response")) {
      return Api.RESPONSES;
    }
    if (node.has("choices")) {
      return node.path("object").asText("").equals("text_completion") ? Api.COMPLETIONS : Api.CHAT;
    }
    if (node.has("candidates") || node.has("promptFeedback")) {
      return Api.GEMINI;
    }
    if (node.has("token") && node.has("generated_text")) {
      return Api.TGI;
    }
    if (node.path("done").isBoolean()) {
      return node.has("response") ? Api.OLLAMA_GENERATE : Api.OLLAMA;
    }
    return null;
  }

  /** A token count: the field's integer, or -1 when absent, null or not an integer. */
  static int count(JsonNode parent, String field) {
    JsonNode n = parent.get(field);
    return n != null && n.canConvertToInt() && n.isIntegralNumber() ? n.asInt() : -1;
  }

  /** A text field: its string, or null when absent, null, empty or not a string. */
  static String text(JsonNode parent, String field) {
    JsonNode n = parent.get(field);
    return n != null && n.isTextual() && !n.asText().isEmpty() ? n.asText() : null;
  }

  /** {@code a + b} of two counts where -1 means absent: absent only when both are. */
  static int plus(int a, int b) {
    return a < 0 ? b : b < 0 ? a : a + b;
  }
}
