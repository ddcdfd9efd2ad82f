package dev.tokenmeter.client;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
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
          writeMessages(g, "messages", nonSystem(messages));
        }
        stream(g, config, ours);
      }
      case RESPONSES -> {
        model(g, model, ours);
        if (ours.test("input")) {
          writeMessages(g, "input", messages);
        }
        limit(g, "max_output_tokens", max, ours);
        stream(g, config, ours);
      }
      case GEMINI -> gemini(g, messages, max, ours);
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

  private static void gemini(JsonGenerator g, List<Message> messages, int max, Predicate<String> ours)
      throws IOException {
    if (ours.test("contents")) {
      g.writeArrayFieldStart("contents");
      for (Message m : nonSystem(messages)) {
        g.writeStartObject();
        g.writeStringField("role", m.role().equals("assistant") ? "model" : "user");
        parts(g, m.content());
        g.writeEndObject();
      }
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
