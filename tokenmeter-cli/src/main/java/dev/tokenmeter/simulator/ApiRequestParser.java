package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the request bodies of the APIs other than OpenAI's chat and completions into the same
 * {@link RequestParser.Parsed} fields, so every API gets the same planning and engine timing.
 * Thread-safe.
 *
 * <p>Honoured per API: the model (body, or Gemini's path), the prompt (Anthropic's {@code system}
 * and {@code messages}; the Responses API's {@code instructions} and {@code input}; Gemini's
 * {@code systemInstruction} and {@code contents}; TGI's {@code inputs}; Ollama's {@code messages}
 * or {@code system} and {@code prompt}), the output limit ({@code max_tokens}, required by
 * Anthropic; {@code max_output_tokens}; {@code generationConfig.maxOutputTokens}; {@code
 * parameters.max_new_tokens}; {@code options.num_predict}), streaming ({@code stream}, default
 * true for Ollama as there; Gemini's and TGI's from the path) and, as simulator extensions on
 * every API, top-level {@code ignore_eos}, {@code min_tokens} and {@code seed}. These APIs always
 * report usage.
 */
final class ApiRequestParser {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private ApiRequestParser() {}

  /**
   * @param pathModel the model named in the path (Gemini), else null
   * @param pathStream whether the path asks for a stream (Gemini, TGI); ignored by the others
   * @param counter counts the prompt's text
   */
  static RequestParser.Parsed parse(
      GenerationRequest.Api api, InputStream body, String pathModel, boolean pathStream, PromptCounter counter)
      throws RequestParser.Rejected {
    JsonNode root = read(body);
    List<String> roles = new ArrayList<>();
    List<String> contents = new ArrayList<>();
    String model = RequestParser.optionalText(root, "model");
    boolean stream = RequestParser.optionalBoolean(root, "stream");
    int maxTokens;
    switch (api) {
      case ANTHROPIC -> {
        system(root.get("system"), roles, contents);
        messages(root, "messages", roles, contents);
        maxTokens = RequestParser.optionalPositiveInt(root, "max_tokens");
        if (maxTokens < 0) {
          throw RequestParser.Rejected.badRequest("max_tokens: Field required");
        }
      }
      case RESPONSES -> {
        system(root.get("instructions"), roles, contents);
        JsonNode input = root.get("input");
        if (input != null && input.isTextual()) {
          roles.add("user");
          contents.add(input.asText());
        } else {
          messages(root, "input", roles, contents);
        }
        maxTokens = RequestParser.optionalPositiveInt(root, "max_output_tokens");
      }
      case GEMINI -> {
        model = pathModel;
        stream = pathStream;
        system(root.path("systemInstruction").get("parts"), roles, contents);
        for (JsonNode c : array(root, "contents")) {
          roles.add(c.path("role").asText("user"));
          contents.add(RequestParser.contentText(c.get("parts")));
        }
        maxTokens = RequestParser.optionalPositiveInt(root.path("generationConfig"), "maxOutputTokens");
      }
      case TGI -> {
        stream = pathStream;
        String inputs = RequestParser.optionalText(root, "inputs");
        if (inputs == null) {
          throw RequestParser.Rejected.badRequest("inputs: field required");
        }
        roles.add("user");
        contents.add(inputs);
        maxTokens = RequestParser.optionalPositiveInt(root.path("parameters"), "max_new_tokens");
      }
      case OLLAMA, OLLAMA_GENERATE -> {
        stream = !root.has("stream") || root.get("stream").isNull() || stream;
        if (api == GenerationRequest.Api.OLLAMA) {
          messages(root, "messages", roles, contents);
        } else {
          system(root.get("system"), roles, contents);
          roles.add("user");
          contents.add(RequestParser.optionalText(root, "prompt") == null ? "" : root.get("prompt").asText());
        }
        maxTokens = RequestParser.optionalPositiveInt(root.path("options"), "num_predict");
      }
      default -> throw new IllegalArgumentException("read by RequestParser: " + api);
    }
    RequestParser.tools(root, roles, contents);
    int[] promptIds = PromptTokens.chatIds(roles, contents, counter);
    JsonNode seed = root.get("seed");
    int minTokens = Math.max(0, RequestParser.optionalPositiveInt(root, "min_tokens"));
    return new RequestParser.Parsed(
        api, model, stream, true, maxTokens, RequestParser.optionalBoolean(root, "ignore_eos"), minTokens,
        promptIds.length, seed != null && seed.canConvertToLong() ? seed.asLong() : null, promptIds,
        switch (api) {
          case ANTHROPIC -> ToolCalls.anthropic(root);
          case GEMINI -> ToolCalls.gemini(root);
          case RESPONSES -> ToolCalls.responses(root);
          default -> null;
        });
  }

  private static JsonNode read(InputStream body) throws RequestParser.Rejected {
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw RequestParser.Rejected.badRequest("Invalid JSON body: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw RequestParser.Rejected.badRequest("Unreadable body: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw RequestParser.Rejected.badRequest("Request body must be a JSON object");
    }
    return root;
  }

  /** A system prompt: a string, or an array of text parts or blocks. */
  private static void system(JsonNode system, List<String> roles, List<String> contents) throws RequestParser.Rejected {
    if (system != null && !system.isNull()) {
      roles.add("system");
      contents.add(RequestParser.contentText(system));
    }
  }

  private static void messages(JsonNode root, String field, List<String> roles, List<String> contents)
      throws RequestParser.Rejected {
    for (JsonNode m : array(root, field)) {
      String type = m.path("type").asText("");
      if (field.equals("input") && (type.equals("function_call") || type.equals("function_call_output"))) {
        // the Responses API's tool steps: the call (name and arguments) and the tool's output
        roles.add(type.equals("function_call") ? "assistant" : "tool");
        contents.add(type.equals("function_call") ? m.path("name").asText("") + m.path("arguments").asText("")
            : m.path("output").asText(""));
        continue;
      }
      if (!m.isObject() || !m.path("role").isTextual()) {
        throw RequestParser.Rejected.badRequest(field + ": each message must be an object with a string role");
      }
      roles.add(m.get("role").asText());
      contents.add(RequestParser.contentText(m.get("content")));
    }
  }

  private static JsonNode array(JsonNode root, String field) throws RequestParser.Rejected {
    JsonNode a = root.get(field);
    if (a == null || !a.isArray() || a.isEmpty()) {
      throw RequestParser.Rejected.badRequest(field + ": a non-empty array is required");
    }
    return a;
  }
}
