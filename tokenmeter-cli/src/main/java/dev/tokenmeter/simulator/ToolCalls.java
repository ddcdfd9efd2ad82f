package dev.tokenmeter.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * When the simulator answers with a tool call, and with which arguments (docs/SIM-SERVE.md, "Tool
 * calls"). Stateless, thread-safe.
 *
 * <p>The rule, the same in OpenAI's chat, Anthropic's Messages, Gemini and the Responses API: a request with tools gets a
 * call of one of them when {@code tool_choice} demands one (OpenAI {@code "required"} or a named
 * function; Anthropic {@code any} or a named {@code tool}), never with {@code "none"}, and with
 * {@code auto} (or none given) when the last message is not a tool result (OpenAI role {@code
 * tool}; Anthropic a user message holding a {@code tool_result} block): an agent loop's step calls
 * a tool, the step after the tool's answer answers in text. The tool called is the named one, else
 * the first. Its arguments fill the parameter schema's required properties by type (see {@link
 * #arguments}).
 */
final class ToolCalls {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Characters of the arguments per output token: about 4, as for text (PromptTokens). */
  static final int CHARS_PER_TOKEN = 4;

  /**
   * A tool call to answer with.
   *
   * @param name the function's name
   * @param arguments the arguments, compact JSON
   */
  record Call(String name, String arguments) {
    /** The arguments cut into output tokens of {@link #CHARS_PER_TOKEN} characters. */
    List<String> pieces() {
      List<String> out = new ArrayList<>();
      for (int i = 0; i < arguments.length(); i += CHARS_PER_TOKEN) {
        out.add(arguments.substring(i, Math.min(arguments.length(), i + CHARS_PER_TOKEN)));
      }
      return out;
    }
  }

  private ToolCalls() {}

  /** OpenAI chat: {@code tools[].function} ({@code name}, {@code parameters}) and {@code tool_choice}. */
  static Call openAi(JsonNode root) {
    JsonNode tools = root.get("tools");
    if (tools == null || !tools.isArray() || tools.isEmpty()) {
      return null;
    }
    JsonNode choice = root.get("tool_choice");
    String named = choice != null && choice.isObject() ? text(choice.path("function").get("name")) : null;
    String mode = choice != null && choice.isTextual() ? choice.asText() : "auto";
    JsonNode messages = root.path("messages");
    boolean afterTool = !messages.isEmpty() && "tool".equals(messages.get(messages.size() - 1).path("role").asText());
    if (named == null && (mode.equals("none") || mode.equals("auto") && afterTool)) {
      return null;
    }
    for (JsonNode t : tools) {
      JsonNode f = t.path("function");
      String name = text(f.get("name"));
      if (name != null && (named == null || named.equals(name))) {
        return new Call(name, arguments(f.get("parameters")));
      }
    }
    return null;
  }

  /** Anthropic Messages: {@code tools[]} ({@code name}, {@code input_schema}) and {@code tool_choice.type}. */
  static Call anthropic(JsonNode root) {
    JsonNode tools = root.get("tools");
    if (tools == null || !tools.isArray() || tools.isEmpty()) {
      return null;
    }
    JsonNode choice = root.path("tool_choice");
    String type = choice.path("type").asText("auto");
    String named = type.equals("tool") ? text(choice.get("name")) : null;
    JsonNode messages = root.path("messages");
    boolean afterTool = false;
    if (!messages.isEmpty()) {
      JsonNode last = messages.get(messages.size() - 1);
      for (JsonNode block : last.path("content")) {
        afterTool |= "tool_result".equals(block.path("type").asText());
      }
    }
    if (named == null && (type.equals("none") || type.equals("auto") && afterTool)) {
      return null;
    }
    for (JsonNode t : tools) {
      String name = text(t.get("name"));
      if (name != null && (named == null || named.equals(name))) {
        return new Call(name, arguments(t.get("input_schema")));
      }
    }
    return null;
  }

  /**
   * Gemini: {@code tools[].functionDeclarations[]} ({@code name}, {@code parameters} or {@code
   * parametersJsonSchema}) and {@code toolConfig.functionCallingConfig} ({@code mode} {@code ANY}
   * demands a call, of the first of {@code allowedFunctionNames} when given; {@code NONE} forbids
   * one; {@code AUTO}, the default, calls unless the last content holds a {@code functionResponse}
   * part).
   */
  static Call gemini(JsonNode root) {
    List<JsonNode> declarations = new ArrayList<>();
    for (JsonNode t : root.path("tools")) {
      for (JsonNode d : t.path("functionDeclarations")) {
        declarations.add(d);
      }
    }
    if (declarations.isEmpty()) {
      return null;
    }
    JsonNode config = root.path("toolConfig").path("functionCallingConfig");
    String mode = config.path("mode").asText("AUTO");
    String named = config.path("allowedFunctionNames").isArray() ? text(config.path("allowedFunctionNames").get(0)) : null;
    JsonNode contents = root.path("contents");
    boolean afterTool = false;
    if (!contents.isEmpty()) {
      for (JsonNode part : contents.get(contents.size() - 1).path("parts")) {
        afterTool |= part.has("functionResponse");
      }
    }
    if (mode.equals("NONE") || !mode.equals("ANY") && afterTool) {
      return null;
    }
    for (JsonNode d : declarations) {
      String name = text(d.get("name"));
      if (name != null && (named == null || named.equals(name))) {
        JsonNode schema = d.has("parameters") ? d.get("parameters") : d.get("parametersJsonSchema");
        return new Call(name, arguments(schema));
      }
    }
    return null;
  }

  /**
   * The Responses API: {@code tools[]} of type {@code function} ({@code name}, {@code parameters})
   * and {@code tool_choice} ({@code "required"}, a {@code {"type":"function","name":…}}, {@code
   * "none"}, or {@code "auto"}, which calls unless the last {@code input} item is a {@code
   * function_call_output}).
   */
  static Call responses(JsonNode root) {
    JsonNode tools = root.get("tools");
    if (tools == null || !tools.isArray() || tools.isEmpty()) {
      return null;
    }
    JsonNode choice = root.get("tool_choice");
    String named = choice != null && choice.isObject() ? text(choice.get("name")) : null;
    String mode = choice != null && choice.isTextual() ? choice.asText() : "auto";
    JsonNode input = root.path("input");
    boolean afterTool = input.isArray() && !input.isEmpty()
        && "function_call_output".equals(input.get(input.size() - 1).path("type").asText());
    if (named == null && (mode.equals("none") || mode.equals("auto") && afterTool)) {
      return null;
    }
    for (JsonNode t : tools) {
      String name = text(t.get("name"));
      if ("function".equals(t.path("type").asText()) && name != null && (named == null || named.equals(name))) {
        return new Call(name, arguments(t.get("parameters")));
      }
    }
    return null;
  }

  /**
   * Arguments valid for a JSON-Schema object: each required property by its type (string: its
   * first {@code enum} value or {@code "example"}; integer and number: {@code minimum} or 1;
   * boolean: true; array: empty; object: its own required properties; null: null). {@code {}} for
   * a schema without required properties.
   */
  static String arguments(JsonNode schema) {
    return fill(schema, 0).toString();
  }

  private static JsonNode fill(JsonNode schema, int depth) {
    ObjectNode out = JSON.createObjectNode();
    if (schema == null || depth > 8) {
      return out;
    }
    JsonNode properties = schema.path("properties");
    for (JsonNode required : schema.path("required")) {
      String name = required.asText();
      JsonNode p = properties.path(name);
      JsonNode enumValues = p.path("enum");
      String type = p.path("type").isArray() ? p.path("type").path(0).asText() : p.path("type").asText("string");
      if (enumValues.isArray() && !enumValues.isEmpty()) {
        out.set(name, enumValues.get(0));
        continue;
      }
      switch (type) {
        case "integer" -> out.put(name, p.path("minimum").asLong(1));
        case "number" -> out.put(name, p.path("minimum").asDouble(1));
        case "boolean" -> out.put(name, true);
        case "array" -> out.putArray(name);
        case "object" -> out.set(name, fill(p, depth + 1));
        case "null" -> out.putNull(name);
        default -> out.put(name, "example");
      }
    }
    return out;
  }

  private static String text(JsonNode node) {
    return node != null && node.isTextual() && !node.asText().isEmpty() ? node.asText() : null;
  }
}
