package dev.tokenmeter.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Turns one JSON record of a prompt file into a {@link PromptFile.Entry}. Accepted shapes:
 *
 * <pre>
 *   {"prompt": "..."}                                               -> Prompt.Text
 *   {"messages": [{"role": "user", "content": "..."}, ...]}          -> Prompt.Chat
 *   {"conversations": [{"from": "human", "value": "..."},
 *                      {"from": "gpt", "value": "..."}, ...]}        -> Prompt.Text (ShareGPT)
 * </pre>
 *
 * plus an optional {@code "max_tokens"} or {@code "output_tokens"} positive integer; other keys are
 * ignored. A ShareGPT record's prompt is its first human turn; the length in characters of the
 * reply that follows it is kept as a hint, since its length in tokens is unknown. ShareGPT dumps
 * hold conversations with no human turn or an empty one: those are skipped (returns null), not
 * errors. Every other problem throws {@link Problem} with a message that says what to fix.
 */
final class PromptRecords {
  private PromptRecords() {}

  private static final Set<String> HUMAN = Set.of("human", "user");
  private static final Set<String> MODEL = Set.of("gpt", "assistant", "chatgpt", "bard", "model");

  /** A record's problem, without the file and line (the caller adds them). */
  static final class Problem extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Problem(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The entry for {@code node} found at {@code line}, or null for a ShareGPT conversation with
   * nothing to ask.
   *
   * @param expected what the caller's format expects, for the message when no shape matches
   */
  static PromptFile.Entry parse(JsonNode node, int line, String expected) {
    if (!node.isObject()) {
      throw new Problem("expected a JSON object, found " + describe(node));
    }
    boolean hasPrompt = node.has("prompt");
    boolean hasMessages = node.has("messages");
    boolean hasConversations = node.has("conversations");
    if ((hasPrompt ? 1 : 0) + (hasMessages ? 1 : 0) + (hasConversations ? 1 : 0) > 1) {
      throw new Problem(
          "found more than one of \"prompt\", \"messages\" and \"conversations\"; give one");
    }
    OptionalInt maxTokens = maxTokens(node);
    if (hasPrompt) {
      return new PromptFile.Entry(
          line, new Prompt.Text(text(node, "prompt")), maxTokens, OptionalInt.empty());
    }
    if (hasMessages) {
      Prompt.Chat chat = chat(node.get("messages"));
      return new PromptFile.Entry(line, chat, maxTokens, OptionalInt.empty(), recorded(chat.messages()));
    }
    if (hasConversations) {
      return conversation(node.get("conversations"), line, maxTokens);
    }
    throw new Problem(expected + ", found keys " + keys(node));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (!value.isTextual()) {
      throw new Problem("\"" + field + "\" must be a string, found " + describe(value));
    }
    if (value.textValue().isEmpty()) {
      throw new Problem("\"" + field + "\" is empty; remove the record or give it text");
    }
    return value.textValue();
  }

  private static Prompt.Chat chat(JsonNode messages) {
    if (!messages.isArray() || messages.isEmpty()) {
      throw new Problem(
          "\"messages\" must be a non-empty array of {\"role\": ..., \"content\": ...}, found "
              + describe(messages));
    }
    List<Message> out = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      String where = "\"messages\"[" + i + "]";
      if (!m.isObject() || !m.has("role") || !m.has("content")) {
        throw new Problem(
            where + ": expected {\"role\": ..., \"content\": ...}, found " + describe(m));
      }
      if (!m.get("role").isTextual()) {
        throw new Problem(where + ".role must be a string, found " + describe(m.get("role")));
      }
      JsonNode content = m.get("content");
      if (!content.isTextual()) {
        throw new Problem(
            where
                + ".content must be a string, found "
                + describe(content)
                + (content.isArray() ? " (multi-part content is not supported)" : ""));
      }
      out.add(new Message(m.get("role").textValue(), content.textValue()));
    }
    return new Prompt.Chat(out);
  }

  /** The user side of an OpenAI {@code messages} array: leading system messages, then every user message. */
  private static PromptFile.Recorded recorded(List<Message> messages) {
    StringBuilder system = new StringBuilder();
    List<String> users = new ArrayList<>();
    for (Message m : messages) {
      String role = m.role().toLowerCase(Locale.ROOT);
      if (users.isEmpty() && (role.equals("system") || role.equals("developer"))) {
        system.append(system.isEmpty() ? "" : "\n\n").append(m.content());
      } else if (role.equals("user") && !m.content().isEmpty()) {
        users.add(m.content());
      }
    }
    return new PromptFile.Recorded(system.isEmpty() ? null : system.toString(), users);
  }

  private static PromptFile.Entry conversation(JsonNode turns, int line, OptionalInt maxTokens) {
    if (!turns.isArray()) {
      throw new Problem(
          "\"conversations\" must be an array of {\"from\": ..., \"value\": ...}, found "
              + describe(turns));
    }
    String prompt = null;
    OptionalInt replyChars = OptionalInt.empty();
    String system = null;
    List<String> users = new ArrayList<>();
    for (int i = 0; i < turns.size(); i++) {
      JsonNode turn = turns.get(i);
      if (!turn.isObject() || !turn.path("from").isTextual() || !turn.path("value").isTextual()) {
        throw new Problem(
            "\"conversations\"["
                + i
                + "]: expected {\"from\": \"human\", \"value\": \"...\"}, found "
                + describe(turn));
      }
      String from = turn.get("from").textValue().toLowerCase(Locale.ROOT);
      String value = turn.get("value").textValue();
      if (from.equals("system") && users.isEmpty()) {
        system = value.isEmpty() ? null : value;
      }
      if (HUMAN.contains(from) && !value.isEmpty()) {
        users.add(value);
      }
      if (prompt == null && HUMAN.contains(from)) {
        prompt = value;
      } else if (prompt != null && replyChars.isEmpty() && MODEL.contains(from)) {
        replyChars = OptionalInt.of(value.length());
      }
    }
    if (prompt == null || prompt.isEmpty()) {
      return null;
    }
    return new PromptFile.Entry(line, new Prompt.Text(prompt), maxTokens, replyChars,
        new PromptFile.Recorded(system, users));
  }

  private static OptionalInt maxTokens(JsonNode node) {
    if (node.has("max_tokens") && node.has("output_tokens")) {
      throw new Problem("give \"max_tokens\" or \"output_tokens\", not both");
    }
    String field = node.has("max_tokens") ? "max_tokens" : "output_tokens";
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return OptionalInt.empty();
    }
    if (!value.canConvertToInt() || !value.isIntegralNumber() || value.intValue() < 1) {
      throw new Problem(
          "\"" + field + "\" must be a whole number of at least 1, found " + describe(value));
    }
    return OptionalInt.of(value.intValue());
  }

  /** {@code [a, b]}: the object's keys in file order. */
  private static String keys(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names.toString();
  }

  /** A short description of a value for messages: {@code a number (12)}, {@code an array}. */
  static String describe(JsonNode node) {
    JsonNodeType type = node.getNodeType();
    return switch (type) {
      case STRING -> "a string (" + abbreviate(node.textValue()) + ")";
      case NUMBER -> "a number (" + node.asText() + ")";
      case BOOLEAN -> "a boolean (" + node.asText() + ")";
      case NULL, MISSING -> "null";
      case ARRAY -> "an array";
      case OBJECT -> "an object with keys " + keys(node);
      case BINARY, POJO -> type.name().toLowerCase(Locale.ROOT);
    };
  }

  private static String abbreviate(String s) {
    String quoted = '"' + s + '"';
    return quoted.length() <= 40 ? quoted : quoted.substring(0, 36) + "...\"";
  }
}
