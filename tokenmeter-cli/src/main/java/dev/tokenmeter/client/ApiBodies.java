package dev.tokenmeter.client;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.ToolCall;
import dev.tokenmeter.core.request.ToolSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The request bodies of the APIs other than OpenAI's chat and completions, written field by field
 * into the encoder's generator. A field for which {@code ours} is false is left to {@code
 * --extra-body}, which the encoder writes last (a top-level field of the extra body replaces
 * tokenmeter's whole field: {@code {"generationConfig":{...}}} replaces the max output tokens too).
 *
 * <p>A text prompt is one user message. System messages go where the API wants them: Anthropic's
 * {@code system}, Gemini's {@code systemInstruction}; the Responses API and Ollama take them as
 * messages. The output limit is each API's own field: {@code max_tokens} (Anthropic, where it is
 * required: {@value #ANTHROPIC_DEFAULT_MAX_TOKENS} when no output length is set), {@code
 * max_output_tokens}, {@code generationConfig.maxOutputTokens}, TGI's {@code
 * parameters.max_new_tokens}, Ollama's {@code options.num_predict}.
 */
final class ApiBodies {

  /** Anthropic requires {@code max_tokens}; this is sent when the workload sets no output length. */
  static final int ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

  private ApiBodies() {}

  static void write(JsonGenerator g, EndpointConfig config, RequestSpec spec, Predicate<String> ours)
      throws IOException {
    List<Message> messages = messages(spec.prompt());
    String model = config.model() == null || config.model().isEmpty() ? null : config.model();
    int max = spec.maxTokens().orElse(-1);
    switch (config.api()) {
      case ANTHROPIC -> {
        model(g, model, ours);
        if (ours.test("max_tokens")) {
          g.writeNumberField("max_tokens", max > 0 ? max : ANTHROPIC_DEFAULT_MAX_TOKENS);
        }
        String system = system(messages);
        if (system != null && ours.test("system")) {
          g.writeStringField("system", system);
        }
        if (ours.test("messages")) {
          anthropicMessages(g, nonSystem(messages));
        }
        List<ToolSpec> tools = tools(spec.prompt());
        if (!tools.isEmpty() && ours.test("tools")) {
          g.writeArrayFieldStart("tools");
          for (ToolSpec t : tools) {
            g.writeStartObject();
            g.writeStringField("name", t.name());
            g.writeStringField("description", t.description());
            g.writeFieldName("input_schema");
            g.writeRawValue(t.parametersJson());
            g.writeEndObject();
          }
          g.writeEndArray();
        }
        stream(g, config, ours);
      }
      case RESPONSES -> {
        model(g, model, ours);
        if (ours.test("input")) {
          responsesInput(g, messages);
        }
        List<ToolSpec> tools = tools(spec.prompt());
        if (!tools.isEmpty() && ours.test("tools")) {
          g.writeArrayFieldStart("tools");
          for (ToolSpec t : tools) {
            g.writeStartObject();
            g.writeStringField("type", "function");
            g.writeStringField("name", t.name());
            g.writeStringField("description", t.description());
            g.writeFieldName("parameters");
            g.writeRawValue(t.parametersJson());
            g.writeEndObject();
          }
          g.writeEndArray();
        }
        limit(g, "max_output_tokens", max, ours);
        stream(g, config, ours);
      }
      case GEMINI -> gemini(g, messages, tools(spec.prompt()), max, ours);
      case TGI -> {
        if (ours.test("inputs")) {
          g.writeStringField("inputs", text(messages));
        }
        if (ours.test("parameters")) {
          g.writeObjectFieldStart("parameters");
          if (max > 0) {
            g.writeNumberField("max_new_tokens", max);
          }
          g.writeBooleanField("details", true);
          g.writeEndObject();
        }
        stream(g, config, ours);
      }
      case OLLAMA, OLLAMA_GENERATE -> {
        model(g, model, ours);
        if (config.api() == Api.OLLAMA && ours.test("messages")) {
          writeMessages(g, "messages", messages);
        } else if (config.api() == Api.OLLAMA_GENERATE && ours.test("prompt")) {
          if (spec.prompt() instanceof Prompt.Infill f) { // Ollama's generate API takes a suffix
            g.writeStringField("prompt", f.prefix());
            if (ours.test("suffix")) {
              g.writeStringField("suffix", f.suffix());
            }
          } else {
            g.writeStringField("prompt", text(messages));
          }
        }
        stream(g, config, ours);
        if (max > 0 && ours.test("options")) {
          g.writeObjectFieldStart("options");
          g.writeNumberField("num_predict", max);
          g.writeEndObject();
        }
      }
      case CHAT, COMPLETIONS -> throw new IllegalArgumentException("written by RequestBodyEncoder");
    }
  }

  private static void gemini(JsonGenerator g, List<Message> messages, List<ToolSpec> tools, int max,
      Predicate<String> ours) throws IOException {
    if (ours.test("contents")) {
      g.writeArrayFieldStart("contents");
      List<Message> turns = nonSystem(messages);
      for (int i = 0; i < turns.size(); i++) {
        Message m = turns.get(i);
        g.writeStartObject();
        g.writeStringField("role", m.role().equals("assistant") ? "model" : "user");
        if (m.tools().isEmpty()) {
          parts(g, m.content());
        } else {
          int end = m.role().equals("tool") ? resultsEnd(turns, i) : i + 1;
          geminiToolParts(g, turns.subList(i, end));
          i = end - 1;
        }
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    if (!tools.isEmpty() && ours.test("tools")) {
      g.writeArrayFieldStart("tools");
      g.writeStartObject();
      g.writeArrayFieldStart("functionDeclarations");
      for (ToolSpec t : tools) {
        g.writeStartObject();
        g.writeStringField("name", t.name());
        g.writeStringField("description", t.description());
        g.writeFieldName("parameters");
        g.writeRawValue(t.parametersJson());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndArray();
    }
    String system = system(messages);
    if (system != null && ours.test("systemInstruction")) {
      g.writeObjectFieldStart("systemInstruction");
      parts(g, system);
      g.writeEndObject();
    }
    if (max > 0 && ours.test("generationConfig")) {
      g.writeObjectFieldStart("generationConfig");
      g.writeNumberField("maxOutputTokens", max);
      g.writeEndObject();
    }
  }

  private static void parts(JsonGenerator g, String text) throws IOException {
    g.writeArrayFieldStart("parts");
    g.writeStartObject();
    g.writeStringField("text", text);
    g.writeEndObject();
    g.writeEndArray();
  }

  private static void model(JsonGenerator g, String model, Predicate<String> ours) throws IOException {
    if (model != null && ours.test("model")) {
      g.writeStringField("model", model);
    }
  }

  private static void limit(JsonGenerator g, String field, int max, Predicate<String> ours) throws IOException {
    if (max > 0 && ours.test(field)) {
      g.writeNumberField(field, max);
    }
  }

  private static void stream(JsonGenerator g, EndpointConfig config, Predicate<String> ours) throws IOException {
    if (ours.test("stream")) {
      g.writeBooleanField("stream", config.stream());
    }
  }

  private static void writeMessages(JsonGenerator g, String field, List<Message> messages)
      throws IOException {
    g.writeArrayFieldStart(field);
    for (Message m : messages) {
      g.writeStartObject();
      g.writeStringField("role", m.role());
      g.writeStringField("content", m.content());
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  private static List<ToolSpec> tools(Prompt prompt) {
    return prompt instanceof Prompt.Chat c ? c.tools() : List.of();
  }

  /** {@code arguments} as a JSON object to write raw: {@code {}} when absent or not an object. */
  private static String object(String arguments) {
    String a = arguments == null ? "" : arguments.strip();
    return a.startsWith("{") && a.endsWith("}") ? a : "{}";
  }

  /** OpenAI chat's {@code tools}: {@code [{"type":"function","function":{name, description, parameters}}]}. */
  static void openAiTools(JsonGenerator g, List<ToolSpec> tools) throws IOException {
    g.writeArrayFieldStart("tools");
    for (ToolSpec t : tools) {
      g.writeStartObject();
      g.writeStringField("type", "function");
      g.writeObjectFieldStart("function");
      g.writeStringField("name", t.name());
      g.writeStringField("description", t.description());
      g.writeFieldName("parameters");
      g.writeRawValue(t.parametersJson());
      g.writeEndObject();
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  /**
   * OpenAI chat: an assistant message's tool calls ({@code content} null when empty, {@code
   * tool_calls[]}, one entry per call, with {@code id}, {@code type}, {@code function.name} and
   * {@code function.arguments} as a string), or a tool result ({@code role: tool}, {@code
   * tool_call_id}): one such message per call answered.
   */
  static void openAiToolMessage(JsonGenerator g, Message m) throws IOException {
    g.writeStartObject();
    g.writeStringField("role", m.role());
    if (m.role().equals("tool")) {
      g.writeStringField("tool_call_id", m.tool().id());
      g.writeStringField("content", m.content());
    } else {
      if (m.content().isEmpty()) {
        g.writeNullField("content");
      } else {
        g.writeStringField("content", m.content());
      }
      g.writeArrayFieldStart("tool_calls");
      for (ToolCall c : m.tools()) {
        g.writeStartObject();
        g.writeStringField("id", c.id());
        g.writeStringField("type", "function");
        g.writeObjectFieldStart("function");
        g.writeStringField("name", c.name());
        g.writeStringField("arguments", c.arguments() == null ? "{}" : c.arguments());
        g.writeEndObject();
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  /**
   * Anthropic's messages: tool calls are the assistant's {@code tool_use} blocks (after its text,
   * if any), one per call, with the arguments as the {@code input} object; the results of one
   * answer's calls are one user message holding a {@code tool_result} block per call, naming its
   * {@code tool_use_id} (Anthropic wants every result of an answer in the next message).
   */
  private static void anthropicMessages(JsonGenerator g, List<Message> messages) throws IOException {
    g.writeArrayFieldStart("messages");
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      g.writeStartObject();
      if (m.tools().isEmpty()) {
        g.writeStringField("role", m.role());
        g.writeStringField("content", m.content());
      } else if (m.role().equals("tool")) {
        g.writeStringField("role", "user");
        g.writeArrayFieldStart("content");
        int end = resultsEnd(messages, i);
        for (Message r : messages.subList(i, end)) {
          g.writeStartObject();
          g.writeStringField("type", "tool_result");
          g.writeStringField("tool_use_id", r.tool().id());
          g.writeStringField("content", r.content());
          g.writeEndObject();
        }
        i = end - 1;
        g.writeEndArray();
      } else {
        g.writeStringField("role", "assistant");
        g.writeArrayFieldStart("content");
        if (!m.content().isEmpty()) {
          g.writeStartObject();
          g.writeStringField("type", "text");
          g.writeStringField("text", m.content());
          g.writeEndObject();
        }
        for (ToolCall c : m.tools()) {
          g.writeStartObject();
          g.writeStringField("type", "tool_use");
          g.writeStringField("id", c.id());
          g.writeStringField("name", c.name());
          g.writeFieldName("input");
          g.writeRawValue(object(c.arguments()));
          g.writeEndObject();
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  /**
   * Gemini: tool calls are the model's {@code functionCall} parts ({@code name}, {@code args}, and
   * {@code id} when the server gave one), one per call, after its text if any; the results of one
   * answer's calls are {@code functionResponse} parts ({@code name}, {@code response: {"content":
   * text}}), one per call, in one user turn. {@code ms} is one assistant message, or a run of tool
   * results.
   */
  private static void geminiToolParts(JsonGenerator g, List<Message> ms) throws IOException {
    g.writeArrayFieldStart("parts");
    Message first = ms.get(0);
    boolean result = first.role().equals("tool");
    if (!result && !first.content().isEmpty()) {
      g.writeStartObject();
      g.writeStringField("text", first.content());
      g.writeEndObject();
    }
    for (Message m : ms) {
      for (ToolCall c : result ? List.of(m.tool()) : m.tools()) {
        g.writeStartObject();
        g.writeObjectFieldStart(result ? "functionResponse" : "functionCall");
        if (!c.id().isEmpty() && !c.id().startsWith("tm_")) { // tm_: made by AgentSessions, unknown to the server
          g.writeStringField("id", c.id());
        }
        g.writeStringField("name", c.name());
        if (result) {
          g.writeObjectFieldStart("response");
          g.writeStringField("content", m.content());
          g.writeEndObject();
        } else {
          g.writeFieldName("args");
          g.writeRawValue(object(c.arguments()));
        }
        g.writeEndObject();
        g.writeEndObject();
      }
    }
    g.writeEndArray();
  }

  /** The end (exclusive) of the run of tool results starting at {@code from}: one answer's results. */
  private static int resultsEnd(List<Message> messages, int from) {
    int end = from;
    while (end < messages.size() && messages.get(end).role().equals("tool") && messages.get(end).tool() != null) {
      end++;
    }
    return end;
  }

  /**
   * The Responses API's {@code input}: messages as {@code {role, content}}; tool calls as {@code
   * function_call} items ({@code call_id}, {@code name}, {@code arguments}), one per call, after the
   * assistant's text if any; a tool result as a {@code function_call_output} item, one per call.
   */
  private static void responsesInput(JsonGenerator g, List<Message> messages) throws IOException {
    g.writeArrayFieldStart("input");
    for (Message m : messages) {
      boolean call = m.tool() != null && !m.role().equals("tool");
      if (m.tool() == null || call && !m.content().isEmpty()) {
        g.writeStartObject();
        g.writeStringField("role", m.role());
        g.writeStringField("content", m.content());
        g.writeEndObject();
      }
      for (ToolCall c : call ? m.tools() : m.tools().subList(0, Math.min(1, m.tools().size()))) {
        g.writeStartObject();
        g.writeStringField("type", call ? "function_call" : "function_call_output");
        g.writeStringField("call_id", c.id());
        if (call) {
          g.writeStringField("name", c.name());
          g.writeStringField("arguments", c.arguments() == null ? "{}" : c.arguments());
        } else {
          g.writeStringField("output", m.content());
        }
        g.writeEndObject();
      }
    }
    g.writeEndArray();
  }

  private static List<Message> messages(Prompt prompt) {
    return switch (prompt) {
      case Prompt.Text t -> List.of(new Message("user", t.text()));
      case Prompt.Infill f -> List.of(new Message("user", f.asText()));
      case Prompt.Chat c -> c.messages();
    };
  }

  /** The system messages' text, joined by blank lines; null when there is none. */
  private static String system(List<Message> messages) {
    StringBuilder sb = new StringBuilder();
    for (Message m : messages) {
      if (m.role().equals("system")) {
        sb.append(sb.isEmpty() ? "" : "\n\n").append(m.content());
      }
    }
    return sb.isEmpty() ? null : sb.toString();
  }

  private static List<Message> nonSystem(List<Message> messages) {
    List<Message> out = new ArrayList<>(messages.size());
    for (Message m : messages) {
      if (!m.role().equals("system")) {
        out.add(m);
      }
    }
    return out;
  }

  /** The prompt as one text, for the APIs that take text: the messages' contents, one per line. */
  static String text(List<Message> messages) {
    StringBuilder sb = new StringBuilder();
    for (Message m : messages) {
      sb.append(sb.isEmpty() ? "" : "\n").append(m.content());
    }
    return sb.toString();
  }
}
