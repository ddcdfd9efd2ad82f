package dev.tokenmeter.workload;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.tokenmeter.core.request.Prompt;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Prompts loaded from a file, in file order. Two formats, told apart by the first character that is
 * not white space:
 *
 * <ul>
 *   <li><b>JSON Lines</b> (anything but {@code [}): one JSON object a line, {@code {"prompt":
 *       "..."}} or {@code {"messages": [{"role": "user", "content": "..."}]}}, with an optional
 *       {@code "max_tokens"} or {@code "output_tokens"}; blank lines are skipped;
 *   <li><b>a JSON array</b> ({@code [}), as ShareGPT dumps are: {@code [{"conversations": [{"from":
 *       "human", "value": "..."}, {"from": "gpt", "value": "..."}]}, ...]}, whose first human turn
 *       is the prompt; elements may also take the JSON Lines shapes.
 * </ul>
 *
 * See {@link PromptRecords} for every shape and rule. Files are read as UTF-8 (a byte-order mark is
 * allowed) and streamed: one line or one array element is parsed at a time, and only the prompts
 * are kept. Problems throw {@link WorkloadException} naming the file, the line and the fix: {@code
 * prompts.jsonl:3: expected a "prompt" string or a "messages" array, found keys [text]}. Immutable
 * and thread-safe once loaded.
 */
public final class PromptFile {

  /** The two file layouts. */
  public enum Format {
    /** One JSON object a line. */
    JSONL,
    /** One JSON array of objects (ShareGPT). */
    JSON_ARRAY
  }

  /**
   * One prompt.
   *
   * @param line the 1-based line of the file where its record starts
   * @param prompt the prompt
   * @param maxTokens the record's {@code max_tokens} or {@code output_tokens}, when given
   * @param replyChars for ShareGPT, the characters of the reply that followed the prompt in the
   *     conversation (a hint of the expected output length; its tokens are not known)
   * @param recorded the record's conversation, turn by turn, for {@code bench --turns}: null for a
   *     {@code "prompt"} record
   */
  public record Entry(int line, Prompt prompt, OptionalInt maxTokens, OptionalInt replyChars, Recorded recorded) {
    public Entry {
      Objects.requireNonNull(prompt, "prompt");
      Objects.requireNonNull(maxTokens, "maxTokens");
      Objects.requireNonNull(replyChars, "replyChars");
    }

    /** A record without a conversation. */
    public Entry(int line, Prompt prompt, OptionalInt maxTokens, OptionalInt replyChars) {
      this(line, prompt, maxTokens, replyChars, null);
    }
  }

  /**
   * A recorded conversation's user side: its system prompt (null for none) and every non-empty
   * user turn in order. The recorded answers are not kept: a replay appends the model's own.
   */
  public record Recorded(String system, List<String> userTurns) {
    public Recorded {
      userTurns = List.copyOf(userTurns);
    }
  }

  private static final String JSONL_EXPECTED =
      "expected a \"prompt\" string or a \"messages\" array";
  private static final String ARRAY_EXPECTED =
      "expected a \"conversations\" array (ShareGPT), a \"prompt\" string or a \"messages\" array";
  private static final String EXAMPLE =
      "e.g. {\"prompt\": \"Hello\"} or {\"messages\": [{\"role\": \"user\", \"content\":"
          + " \"Hello\"}]}";

  private static final String CUT_SHORT =
      "the file ends inside the JSON array (a ']' or '}' is missing); it may be cut short";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  // A JSON Lines line holds one value: "{...} {...}" on one line is an error, not two records.
  private static final ObjectReader LINE_READER =
      MAPPER.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final Path path;
  private final Format format;
  private final List<Entry> entries;
  private final int skipped;

  private PromptFile(Path path, Format format, List<Entry> entries, int skipped) {
    this.path = path;
    this.format = format;
    this.entries = List.copyOf(entries);
    this.skipped = skipped;
  }

  /**
   * Loads {@code path}.
   *
   * @throws WorkloadException when the file is missing, unreadable, malformed or holds no prompt
   */
  public static PromptFile load(Path path) {
    Objects.requireNonNull(path, "path");
    String name = path.toString();
    if (Files.isDirectory(path)) {
      throw new WorkloadException(
          name + ": is a directory; give a .jsonl or .json file of prompts");
    }
    Loader loader = new Loader(path, name);
    try {
      Format format = loader.detect();
      if (format == null) {
        throw new WorkloadException(name + ": the file is empty; " + howToWrite());
      }
      if (format == Format.JSONL) {
        loader.readLines();
      } else {
        loader.readArray();
      }
      if (loader.entries.isEmpty()) {
        throw new WorkloadException(
            name
                + ": no prompts found"
                + (loader.skipped > 0
                    ? " (" + loader.skipped + " conversations skipped: no human turn with text)"
                    : "")
                + "; "
                + howToWrite());
      }
      return new PromptFile(path, format, loader.entries, loader.skipped);
    } catch (NoSuchFileException e) {
      throw new WorkloadException(
          "prompt file not found: " + name + " (looked at " + path.toAbsolutePath() + ")", e);
    } catch (CharacterCodingException e) {
      throw new WorkloadException(
          name + ":" + badUtf8Line(path) + ": not UTF-8 text; save the file as UTF-8", e);
    } catch (IOException e) {
      throw new WorkloadException(name + ": cannot read the file: " + e, e);
    }
  }

  /** The path the file was loaded from. */
  public Path path() {
    return path;
  }

  /** The layout the file was read as. */
  public Format format() {
    return format;
  }

  /** The prompts, in file order; never empty. */
  public List<Entry> entries() {
    return entries;
  }

  /** Number of prompts. */
  public int size() {
    return entries.size();
  }

  /** ShareGPT conversations left out because they had no human turn with text. */
  public int skipped() {
    return skipped;
  }

  /**
   * The 1-based line of the first malformed UTF-8 byte, or "?" when it cannot be found. Readers
   * decode ahead of the line they return, so the line being parsed when decoding failed is not
   * where the bad byte is; this rescans the bytes, one line at a time (error path only).
   */
  private static String badUtf8Line(Path path) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder(); // reports malformed input
    try (InputStream in = new BufferedInputStream(Files.newInputStream(path))) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int line = 1;
      for (int b = in.read(); ; b = in.read()) {
        if (b == '\n' || b < 0) {
          try {
            decoder.reset().decode(ByteBuffer.wrap(bytes.toByteArray()));
          } catch (CharacterCodingException e) {
            return Integer.toString(line);
          }
          if (b < 0) {
            return "?";
          }
          line++;
          bytes.reset();
        } else {
          bytes.write(b);
        }
      }
    } catch (IOException e) {
      return "?";
    }
  }

  private static String howToWrite() {
    return "write one JSON object a line, " + EXAMPLE + ", or a ShareGPT JSON array";
  }

  /** The mutable state of one load. */
  private static final class Loader {
    private final Path path;
    private final String name;
    final List<Entry> entries = new ArrayList<>();
    int skipped;
    int line;

    Loader(Path path, String name) {
      this.path = path;
      this.name = name;
    }

    /** The format by the first character that is not white space; null for an empty file. */
    Format detect() throws IOException {
      try (BufferedReader reader = open()) {
        for (int c = reader.read(); c >= 0; c = reader.read()) {
          if (!Character.isWhitespace(c)) {
            return c == '[' ? Format.JSON_ARRAY : Format.JSONL;
          }
        }
        return null;
      }
    }

    void readLines() throws IOException {
      try (BufferedReader reader = open()) {
        for (String text = reader.readLine(); text != null; text = reader.readLine()) {
          line++;
          if (text.isBlank()) {
            continue;
          }
          JsonNode node;
          try {
            node = LINE_READER.readTree(text);
          } catch (JsonProcessingException e) {
            throw new WorkloadException(
                where(line)
                    + "not valid JSON ("
                    + firstLine(e.getOriginalMessage())
                    + "); each line must hold one complete JSON object, "
                    + EXAMPLE);
          }
          add(node, line, JSONL_EXPECTED);
        }
      }
    }

    void readArray() throws IOException {
      try (BufferedReader reader = open();
          JsonParser parser = MAPPER.createParser(reader)) {
        try {
          parser.nextToken(); // START_ARRAY: detect() saw '['
          for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
            if (t == null) {
              throw new WorkloadException(where(parser.currentLocation().getLineNr()) + CUT_SHORT);
            }
            line = parser.currentTokenLocation().getLineNr();
            JsonNode node = MAPPER.readTree(parser);
            add(node, line, ARRAY_EXPECTED);
          }
          if (parser.nextToken() != null) {
            throw new WorkloadException(
                where(parser.currentTokenLocation().getLineNr())
                    + "unexpected content after the JSON array; a JSON file holds one array");
          }
        } catch (JsonEOFException e) {
          throw new WorkloadException(where(e.getLocation().getLineNr()) + CUT_SHORT);
        } catch (JsonProcessingException e) {
          int at = e.getLocation() == null ? line : e.getLocation().getLineNr();
          throw new WorkloadException(
              where(at) + "not valid JSON (" + firstLine(e.getOriginalMessage()) + ")");
        }
      }
    }

    private void add(JsonNode node, int at, String expected) {
      Entry entry;
      try {
        entry = PromptRecords.parse(node, at, expected);
      } catch (PromptRecords.Problem p) {
        throw new WorkloadException(where(at) + p.getMessage());
      }
      if (entry == null) {
        skipped++;
      } else {
        entries.add(entry);
      }
    }

    private String where(int at) {
      return name + ":" + at + ": ";
    }

    /** A UTF-8 reader that fails on malformed bytes and drops a byte-order mark. */
    private BufferedReader open() throws IOException {
      BufferedReader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8);
      reader.mark(1);
      if (reader.read() != '\uFEFF') {
        reader.reset();
      }
      return reader;
    }

    private static String firstLine(String message) {
      int nl = message == null ? -1 : message.indexOf('\n');
      return message == null ? "malformed" : nl < 0 ? message : message.substring(0, nl);
    }
  }
}
