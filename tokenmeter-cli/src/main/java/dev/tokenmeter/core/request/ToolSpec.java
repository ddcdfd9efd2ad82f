package dev.tokenmeter.core.request;

import java.util.Objects;

/**
 * A tool (function) a chat request offers the model: what the endpoint adapters write as OpenAI's
 * {@code tools[].function}, Anthropic's {@code tools[]}, Gemini's {@code
 * tools[].functionDeclarations[]} and the Responses API's {@code tools[]} of type {@code function}.
 *
 * @param name the function's name
 * @param description what it does, for the model
 * @param parametersJson its parameters as a JSON Schema object, compact JSON text
 */
public record ToolSpec(String name, String description, String parametersJson) {
  public ToolSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(parametersJson, "parametersJson");
  }
}
