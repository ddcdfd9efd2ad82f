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
 *
 * <p>Parallel calls: an answer carries {@link SimConfig#parallelToolCalls()} calls (drawn per
 * request), the tools offered taken in turn (call i of the named tool, else of tool i mod n), unless
 * the request forbids parallel calls (OpenAI's and the Responses API's {@code
 * "parallel_tool_calls": false}, Anthropic's {@code tool_choice.disable_parallel_tool_use}); then
 * one. Gemini has no such switch.
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

  /**
   * What a request lets the simulator call: the tools it may call, in order (the named one alone
   * when it names one), and whether it allows several calls in one answer.
   */
  record Offer(List<Call> tools, boolean parallel) {
    Offer {
      tools = List.copyOf(tools);
      if (tools.isEmpty()) {
        throw new IllegalArgumentException("an offer has at least one tool");
      }
    }

    /** The first tool offered: what a single call calls. */
    Call first() {
      return tools.get(0);
    }

    /** The calls of an answer that makes {@code k} of them (1 when parallel calls are forbidden). */
    List<Call> calls(int k) {
      int n = parallel ? Math.max(1, k) : 1;
      List<Call> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(tools.get(i % tools.size()));
      }
      return out;
    }
  }

  /**
   * The tool calls of one answer, in order, with their ids (null for Gemini, which sends none).
   * Its output tokens are call 0's {@link Call#pieces pieces}, then call 1's, and so on.
   */
  record Reply(List<Call> calls, List<String> ids) {
    Reply {
      calls = List.copyOf(calls);
      ids = java.util.Collections.unmodifiableList(new ArrayList<>(ids));
      if (calls.isEmpty() || ids.size() != calls.size()) {
        throw new IllegalArgumentException("a reply has at least one call and one id (or null) per call");
      }
    }

    /** One call with its id. */
    static Reply of(Call call, String id) {
      return new Reply(List.of(call), java.util.Collections.singletonList(id));
    }

    int size() {
      return calls.size();
    }

    Call call(int i) {
      return calls.get(i);
    }

    String id(int i) {
      return ids.get(i);
    }

    /** Every call's pieces, call after call: one per output token. */
    List<String> pieces() {
      List<String> out = new ArrayList<>();
      for (Call c : calls) {
        out.addAll(c.pieces());
      }
      return out;
    }

    /** The output token at which each call's arguments begin. */
    int[] starts() {
      int[] out = new int[calls.size()];
      int at = 0;
      for (int i = 0; i < out.length; i++) {
        out[i] = at;
        at += calls.get(i).pieces().size();
      }
      return out;
    }

    /**
     * The arguments each call reached in {@code text}, the pieces written (all of them, or those
     * before a cut at {@code max_tokens}): whole arguments, and the cut call's partial ones last;
     * calls not reached are left out.
     */
    List<String> split(String text) {
      List<String> out = new ArrayList<>();
      int at = 0;
      for (Call c : calls) {
        if (at >= text.length()) {
          break;
        }
        int end = Math.min(text.length(), at + c.arguments().length());
        out.add(text.substring(at, end));
        at = end;
      }
      return out;
    }
  }

  private ToolCalls() {}

  /**
   * The calls of an answer to a request offering {@code offer}: {@code k} calls ({@link
   * Offer#calls}) with ids {@code prefix + hex + "_" + i} (the first without the suffix, as a
   * single call's id always was), none for Gemini ({@code prefix} null).
   */
  static Reply reply(Offer offer, int k, String prefix, String hex) {
    List<Call> calls = offer.calls(k);
    List<String> ids = new ArrayList<>(calls.size());
    for (int i = 0; i < calls.size(); i++) {
      ids.add(prefix == null ? null : prefix + hex + (i == 0 ? "" : "_" + i));
    }
    return new Reply(calls, ids);
  }

  /** OpenAI chat: {@code tools[].function} ({@code name}, {@code parameters}) and {@code tool_choice}. */
  static Offer openAi(JsonNode root) {
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
    List<Call> offered = new ArrayList<>();
    for (JsonNode t : tools) {
      JsonNode f = t.path("function");
      String name = text(f.get("name"));
      if (name != null && (named == null || named.equals(name))) {
        offered.add(new Call(name, arguments(f.get("parameters"))));
      }
    }
    return offer(offered, !root.path("parallel_tool_calls").isBoolean() || root.get("parallel_tool_calls").asBoolean());
  }

  /** Anthropic Messages: {@code tools[]} ({@code name}, {@code input_schema}) and {@code tool_choice.type}. */
  static Offer anthropic(JsonNode root) {
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
    List<Call> offered = new ArrayList<>();
    for (JsonNode t : tools) {
      String name = text(t.get("name"));
      if (name != null && (named == null || named.equals(name))) {
        offered.add(new Call(name, arguments(t.get("input_schema"))));
      }
    }
    return offer(offered, !choice.path("disable_parallel_tool_use").asBoolean(false));
  }

  /**
   * Gemini: {@code tools[].functionDeclarations[]} ({@code name}, {@code parameters} or {@code
   * parametersJsonSchema}) and {@code toolConfig.functionCallingConfig} ({@code mode} {@code ANY}
   * demands a call, of the first of {@code allowedFunctionNames} when given; {@code NONE} forbids
   * one; {@code AUTO}, the default, calls unless the last content holds a {@code functionResponse}
   * part).
   */
  static Offer gemini(JsonNode root) {
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
    List<Call> offered = new ArrayList<>();
    for (JsonNode d : declarations) {
      String name = text(d.get("name"));
      if (name != null && (named == null || named.equals(name))) {
        JsonNode schema = d.has("parameters") ? d.get("parameters") : d.get("parametersJsonSchema");
        offered.add(new Call(name, arguments(schema)));
      }
    }
    return offer(offered, true);
  }

  /**
   * The Responses API: {@code tools[]} of type {@code function} ({@code name}, {@code parameters})
   * and {@code tool_choice} ({@code "required"}, a {@code {"type":"function","name":…}}, {@code
   * "none"}, or {@code "auto"}, which calls unless the last {@code input} item is a {@code
   * function_call_output}).
   */
  static Offer responses(JsonNode root) {
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
    List<Call> offered = new ArrayList<>();
    for (JsonNode t : tools) {
      String name = text(t.get("name"));
      if ("function".equals(t.path("type").asText()) && name != null && (named == null || named.equals(name))) {
        offered.add(new Call(name, arguments(t.get("parameters"))));
      }
    }
    return offer(offered, !root.path("parallel_tool_calls").isBoolean() || root.get("parallel_tool_calls").asBoolean());
  }

  private static Offer offer(List<Call> offered, boolean parallel) {
    return offered.isEmpty() ? null : new Offer(offered, parallel);
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
