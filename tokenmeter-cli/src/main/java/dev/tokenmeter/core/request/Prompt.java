package dev.tokenmeter.core.request;

import java.util.List;
import java.util.Objects;

/**
 * What a request asks the model: either a plain text prompt (the completions API) or a list of chat
 * messages (the chat completions API). Endpoint adapters convert between the two where the API
 * needs it (a text prompt becomes one user message).
 */
public sealed interface Prompt {

  /** A plain-text prompt. */
  record Text(String text) implements Prompt {
    public Text {
      Objects.requireNonNull(text, "text");
    }
  }

  /**
   * A fill-in-the-middle prompt (code completion): the text before the cursor and the text after
   * it. The completions API sends them as {@code prompt} and {@code suffix} (OpenAI's legacy
   * completions API, vLLM, Ollama's generate API); the APIs without a suffix field send {@link
   * #asText()} as one user message.
   */
  record Infill(String prefix, String suffix) implements Prompt {
    /** Marks the cursor in {@link #asText()}. */
    public static final String CURSOR = "<CURSOR>";

    /** Leads {@link #asText()}: what an instruction-following model is asked. */
    public static final String INSTRUCTION =
        "Complete the code at " + CURSOR + ". Reply with the inserted code only.\n\n";

    public Infill {
      Objects.requireNonNull(prefix, "prefix");
      Objects.requireNonNull(suffix, "suffix");
    }

    /** The prompt as one text for APIs without a suffix field: the instruction, prefix, cursor, suffix. */
    public String asText() {
      return INSTRUCTION + prefix + CURSOR + suffix;
    }
  }

  /**
   * A chat conversation, oldest message first, and the tools offered to the model (empty for
   * none).
   */
  record Chat(List<Message> messages, List<ToolSpec> tools) implements Prompt {
    public Chat {
      messages = List.copyOf(messages);
      tools = List.copyOf(tools);
      if (messages.isEmpty()) {
        throw new IllegalArgumentException("a chat prompt needs at least one message");
      }
    }

    /** A conversation without tools. */
    public Chat(List<Message> messages) {
      this(messages, List.of());
    }
  }

  /** Total characters of prompt text, a cheap size measure for logs and reports. */
  default int chars() {
    return switch (this) {
      case Text t -> t.text().length();
      case Infill f -> f.prefix().length() + f.suffix().length();
      case Chat c -> c.messages().stream().mapToInt(m -> m.content().length()).sum();
    };
  }
}
