package dev.tokenmeter.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Writes request bodies: OpenAI's chat and completions here, the other APIs' in {@link ApiBodies}. Fields of the configured extra body are written last and replace
 * tokenmeter's own field of the same name (so {@code --extra-body '{"stream_options":{}}'} wins).
 * Not thread-safe (reuses one buffer); one per event loop.
 */
final class RequestBodyEncoder {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final JsonFactory factory = MAPPER.getFactory();
  private final EndpointConfig config;
  private final ObjectNode extra;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(4096);

  RequestBodyEncoder(EndpointConfig config) {
    this.config = config;
    this.extra = parseExtra(config.extraBodyJson());
  }

  /**
   * Parses {@code --extra-body}.
   *
   * @throws IllegalArgumentException naming the problem when it is not a JSON object
   */
  static ObjectNode parseExtra(String json) {
    if (json == null || json.isBlank()) {
      return MAPPER.createObjectNode();
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "--extra-body is not valid JSON (" + e.getOriginalMessage() + "); example: '{\"ignore_eos\":true}'");
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException(
          "--extra-body must be a JSON object, e.g. '{\"ignore_eos\":true}'");
    }
    return (ObjectNode) node;
  }

  /** The UTF-8 body for {@code spec}. */
  byte[] encode(RequestSpec spec) {
    buffer.reset();
    try (JsonGenerator g = factory.createGenerator(buffer)) {
      g.writeStartObject();
      if (config.api().openAiCompatible()) {
        writeOpenAi(g, spec);
      } else {
        ApiBodies.write(g, config, spec, field -> !extra.has(field));
      }
      for (Map.Entry<String, JsonNode> e : extra.properties()) {
        g.writeFieldName(e.getKey());
        MAPPER.writeTree(g, e.getValue());
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return buffer.toByteArray();
  }

  private void writeOpenAi(JsonGenerator g, RequestSpec spec) throws IOException {
    if (config.model() != null && !config.model().isEmpty() && !extra.has("model")) {
      g.writeStringField("model", config.model());
    }
    if (config.api() == Api.CHAT) {
      writeMessages(g, spec.prompt());
      if (spec.prompt() instanceof Prompt.Chat c && !c.tools().isEmpty() && !extra.has("tools")) {
        ApiBodies.openAiTools(g, c.tools());
      }
    } else {
      writePrompt(g, spec.prompt());
    }
    if (spec.maxTokens().isPresent() && !extra.has("max_tokens")) {
      g.writeNumberField("max_tokens", spec.maxTokens().getAsInt());
    }
    if (!extra.has("stream")) {
      g.writeBooleanField("stream", config.stream());
    }
    if (config.stream() && config.includeUsage() && !extra.has("stream_options")) {
      g.writeObjectFieldStart("stream_options");
      g.writeBooleanField("include_usage", true);
      g.writeEndObject();
    }
  }

  private void writeMessages(JsonGenerator g, Prompt prompt) throws IOException {
    if (extra.has("messages")) {
      return;
    }
    g.writeArrayFieldStart("messages");
    switch (prompt) {
      case Prompt.Text t -> writeMessage(g, "user", t.text());
      case Prompt.Infill f -> writeMessage(g, "user", f.asText());
      case Prompt.Chat c -> {
        for (Message m : c.messages()) {
          if (m.tool() == null) {
            writeMessage(g, m.role(), m.content());
          } else {
            ApiBodies.openAiToolMessage(g, m);
          }
        }
      }
    }
    g.writeEndArray();
  }

  private static void writeMessage(JsonGenerator g, String role, String content) throws IOException {
    g.writeStartObject();
    g.writeStringField("role", role);
    g.writeStringField("content", content);
    g.writeEndObject();
  }

  /**
   * The completions API takes text: a chat prompt's messages are joined, one per line; a
   * fill-in-the-middle prompt is {@code prompt} (before the cursor) and {@code suffix} (after it),
   * as OpenAI's legacy completions API documents them.
   */
  private void writePrompt(JsonGenerator g, Prompt prompt) throws IOException {
    if (prompt instanceof Prompt.Infill f) {
      if (!extra.has("prompt")) {
        g.writeStringField("prompt", f.prefix());
      }
      if (!extra.has("suffix")) {
        g.writeStringField("suffix", f.suffix());
      }
      return;
    }
    if (extra.has("prompt")) {
      return;
    }
    String text =
        switch (prompt) {
          case Prompt.Text t -> t.text();
          case Prompt.Infill f -> f.prefix(); // not reached: written above
          case Prompt.Chat c -> {
            StringBuilder sb = new StringBuilder();
            for (Message m : c.messages()) {
              if (!sb.isEmpty()) {
                sb.append('\n');
              }
              sb.append(m.content());
            }
            yield sb.toString();
          }
        };
    g.writeStringField("prompt", text);
  }
}
