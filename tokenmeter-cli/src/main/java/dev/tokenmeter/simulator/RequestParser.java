package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a chat or completions request body into the few fields the simulator honours. Jackson
 * tree parsing: once per request, off the per-token path. Thread-safe.
 *
 * <p>Honoured: {@code model}, {@code messages} / {@code prompt}, {@code max_tokens} ({@code
 * max_completion_tokens} wins in chat, as in vLLM), {@code stream}, {@code
 * stream_options.include_usage}, {@code ignore_eos}, {@code min_tokens}, {@code n} (must be 1),
 * {@code seed}. Everything else is accepted and ignored ({@code continuous_usage_stats} too).
 */
final class RequestParser {

  /** A request the server rejects: HTTP status, OpenAI error type, message. */
  static final class Rejected extends Exception {
    final int status;
    final String type;

    Rejected(int status, String type, String message) {
      super(message, null, false, false);
      this.status = status;
      this.type = type;
    }

    static Rejected badRequest(String message) {
      return new Rejected(400, "BadRequestError", message);
    }
  }

  /**
   * The honoured fields of one request.
   *
   * @param model the requested model, or null when absent
   * @param maxTokens the request's max tokens, or -1 when absent
   * @param seed the request's {@code seed}, or null
   * @param promptIds token ids of the prompt from the server's {@link PromptCounter} (stand-ins
   *     for an estimate), {@code promptTokens} of them (the ids themselves for a completions
   *     prompt of token ids): the prefix cache's content identity
   * @param toolOffer the tools the answer calls ({@link ToolCalls}), or null for a text answer
   */
  record Parsed(
      GenerationRequest.Api api,
      String model,
      boolean stream,
      boolean includeUsage,
      int maxTokens,
      boolean ignoreEos,
      int minTokens,
      int promptTokens,
      Long seed,
      int[] promptIds,
      ToolCalls.Offer toolOffer) {}

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private RequestParser() {}

  /** Parses {@code body}, counting its prompt's text with {@code counter}. */
  static Parsed parse(GenerationRequest.Api api, InputStream body, PromptCounter counter) throws Rejected {
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw Rejected.badRequest("Invalid JSON body: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw Rejected.badRequest("Unreadable body: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw Rejected.badRequest("Request body must be a JSON object");
    }
    String model = optionalText(root, "model");
    int[] promptIds =
        api == GenerationRequest.Api.CHAT ? chatPromptIds(root, counter) : completionPromptIds(root, counter);
    boolean stream = optionalBoolean(root, "stream");
    JsonNode options = root.get("stream_options");
    boolean includeUsage = false;
    if (options != null && !options.isNull()) {
      if (!stream) {
        throw Rejected.badRequest("Stream options can only be defined when `stream=True`.");
      }
      if (!options.isObject()) {
        throw Rejected.badRequest("stream_options must be an object");
      }
      includeUsage = optionalBoolean(options, "include_usage");
    }
    int maxTokens = optionalPositiveInt(root, "max_tokens");
    if (api == GenerationRequest.Api.CHAT) {
      int maxCompletion = optionalPositiveInt(root, "max_completion_tokens");
      if (maxCompletion > 0) {
        maxTokens = maxCompletion;
      }
    }
    JsonNode n = root.get("n");
    if (n != null && !n.isNull() && !(n.canConvertToExactIntegral() && n.asInt() == 1)) {
      throw Rejected.badRequest("n must be 1 (the simulator generates one choice), got " + n);
    }
    int minTokens = 0;
    JsonNode min = root.get("min_tokens");
    if (min != null && !min.isNull()) {
      if (!min.canConvertToExactIntegral() || min.asLong() < 0 || min.asLong() > Integer.MAX_VALUE) {
        throw Rejected.badRequest("min_tokens must be a non-negative integer, got " + min);
      }
      minTokens = min.asInt();
    }
    JsonNode seedNode = root.get("seed");
    Long seed = seedNode != null && seedNode.canConvertToLong() ? seedNode.asLong() : null;
    return new Parsed(
        api,
        model,
        stream,
        includeUsage,
        maxTokens,
        optionalBoolean(root, "ignore_eos"),
        minTokens,
        promptIds.length,
        seed,
        promptIds,
        api == GenerationRequest.Api.CHAT ? ToolCalls.openAi(root) : null);
  }

  private static int[] chatPromptIds(JsonNode root, PromptCounter counter) throws Rejected {
    JsonNode messages = root.get("messages");
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw Rejected.badRequest("messages: a non-empty array of messages is required");
    }
    List<String> roles = new ArrayList<>(messages.size());
    List<String> contents = new ArrayList<>(messages.size());
    for (JsonNode message : messages) {
      if (!message.isObject() || !message.path("role").isTextual()) {
        throw Rejected.badRequest("each message must be an object with a string role");
      }
      roles.add(message.path("role").asText());
      String text = contentText(message.get("content"));
      for (JsonNode call : message.path("tool_calls")) { // a tool call's name and arguments are prompt text too
        text += call.path("function").path("name").asText("") + call.path("function").path("arguments").asText("");
      }
      contents.add(text);
    }
    tools(root, roles, contents);
    return PromptTokens.chatIds(roles, contents, counter);
  }

  /**
   * The request's tool definitions ({@code tools}, any API's form) as prompt text ahead of the
   * messages, as a chat template renders them: an agent's requests carry them every step.
   */
  static void tools(JsonNode root, List<String> roles, List<String> contents) {
    JsonNode tools = root.get("tools");
    if (tools != null && tools.isArray() && !tools.isEmpty()) {
      roles.add(0, "system");
      contents.add(0, tools.toString());
    }
  }

  /**
   * A message's text: a string, or each part of a content-part array: its {@code text}, else the
   * tool steps' parts as their JSON (Anthropic {@code tool_use} input and {@code tool_result}
   * content, Gemini {@code functionCall} and {@code functionResponse}), which a server's template
   * renders into the prompt too.
   */
  static String contentText(JsonNode content) throws Rejected {
    if (content == null || content.isNull()) {
      return "";
    }
    if (content.isTextual()) {
      return content.asText();
    }
    if (content.isArray()) {
      StringBuilder text = new StringBuilder();
      for (JsonNode part : content) {
        if (part.has("text")) {
          text.append(part.path("text").asText(""));
        } else if (part.has("input")) {
          text.append(part.path("name").asText("")).append(part.get("input"));
        } else if (part.has("content")) {
          JsonNode c = part.get("content");
          text.append(c.isArray() ? contentText(c) : c.asText(""));
        } else if (part.has("functionCall")) {
          text.append(part.get("functionCall"));
        } else if (part.has("functionResponse")) {
          text.append(part.get("functionResponse"));
        }
      }
      return text.toString();
    }
    throw Rejected.badRequest("message content must be a string or an array of parts");
  }

  private static int[] completionPromptIds(JsonNode root, PromptCounter counter) throws Rejected {
    JsonNode prompt = root.get("prompt");
    if (prompt == null || prompt.isNull()) {
      throw Rejected.badRequest("prompt is required");
    }
    if (prompt.isTextual()) {
      String suffix = optionalText(root, "suffix");
      if (suffix == null || suffix.isEmpty()) {
        return counter.ids(prompt.asText());
      }
      // Fill in the middle: the model reads the text before and after the cursor (vLLM and
      // llama.cpp wrap both in the model's FIM tokens, a few more than counted here).
      int[] before = counter.ids(prompt.asText());
      int[] after = counter.ids(suffix);
      int[] ids = java.util.Arrays.copyOf(before, before.length + after.length);
      System.arraycopy(after, 0, ids, before.length, after.length);
      return ids;
    }
    if (prompt.isArray() && !prompt.isEmpty()) {
      if (prompt.get(0).isIntegralNumber()) {
        int[] ids = new int[prompt.size()]; // token ids: exact
        for (int i = 0; i < ids.length; i++) {
          ids[i] = prompt.get(i).asInt();
        }
        return ids;
      }
      if (prompt.size() == 1 && prompt.get(0).isTextual()) {
        return counter.ids(prompt.get(0).asText());
      }
      throw Rejected.badRequest("only one prompt per request is supported");
    }
    throw Rejected.badRequest("prompt must be a string, a list of token ids or a list of 1 string");
  }

  static String optionalText(JsonNode root, String field) throws Rejected {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw Rejected.badRequest(field + " must be a string");
    }
    return node.asText();
  }

  static boolean optionalBoolean(JsonNode root, String field) throws Rejected {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      return false;
    }
    if (!node.isBoolean()) {
      throw Rejected.badRequest(field + " must be a boolean");
    }
    return node.asBoolean();
  }

  /** The field as an int ≥ 1, or -1 when absent or null. */
  static int optionalPositiveInt(JsonNode root, String field) throws Rejected {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      return -1;
    }
    if (!node.canConvertToExactIntegral() || node.asLong() < 1 || node.asLong() > Integer.MAX_VALUE) {
      throw Rejected.badRequest(field + " must be an integer >= 1, got " + node);
    }
    return node.asInt();
  }
}
