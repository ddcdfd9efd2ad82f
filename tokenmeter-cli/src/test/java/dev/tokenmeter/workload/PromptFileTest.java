package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PromptFileTest {

  @TempDir Path dir;

  private Path write(String name, String content) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, content, StandardCharsets.UTF_8);
    return p;
  }

  private Path jsonl(String... lines) throws IOException {
    return write("prompts.jsonl", String.join("\n", lines) + "\n");
  }

  // ---- JSON Lines ----

  @Test
  void readsTextAndChatRecordsWithTheirLinesAndOutputLengths() throws IOException {
    Path p =
        jsonl(
            "{\"prompt\": \"Tell me a story.\", \"max_tokens\": 64}",
            "",
            "   ",
            "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"},"
                + " {\"role\": \"user\", \"content\": \"Hi\"}], \"output_tokens\": 8, \"id\": 5}",
            "{\"prompt\": \"Unicode: caf\u00e9 \u65e5\u672c\"}");
    PromptFile file = PromptFile.load(p);
    assertThat(file.format()).isEqualTo(PromptFile.Format.JSONL);
    assertThat(file.path()).isEqualTo(p);
    assertThat(file.skipped()).isZero();
    assertThat(file.entries())
        // the conversation behind each (bench --turns) is FileSessionsTest's
        .usingRecursiveFieldByFieldElementComparatorIgnoringFields("recorded")
        .containsExactly(
            new PromptFile.Entry(
                1, new Prompt.Text("Tell me a story."), OptionalInt.of(64), OptionalInt.empty()),
            new PromptFile.Entry(
                4,
                new Prompt.Chat(
                    List.of(new Message("system", "Be brief."), new Message("user", "Hi"))),
                OptionalInt.of(8),
                OptionalInt.empty()),
            new PromptFile.Entry(
                5,
                new Prompt.Text("Unicode: caf\u00e9 \u65e5\u672c"),
                OptionalInt.empty(),
                OptionalInt.empty()));
  }

  @Test
  void byteOrderMarkAndCrlfLineEndsAreAccepted() throws IOException {
    Path p = write("bom.jsonl", "\uFEFF{\"prompt\": \"a\"}\r\n{\"prompt\": \"b\"}\r\n");
    PromptFile file = PromptFile.load(p);
    assertThat(file.entries())
        .extracting(PromptFile.Entry::prompt)
        .containsExactly(new Prompt.Text("a"), new Prompt.Text("b"));
    assertThat(file.entries().get(1).line()).isEqualTo(2);
  }

  @Test
  void unknownShapeNamesFileLineAndKeys() throws IOException {
    Path p = jsonl("{\"prompt\": \"ok\"}", "{\"prompt\": \"ok\"}", "{\"text\": \"hello\"}");
    assertThatThrownBy(() -> PromptFile.load(p))
        .isInstanceOf(WorkloadException.class)
        .hasMessage(
            p + ":3: expected a \"prompt\" string or a \"messages\" array, found keys [text]");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "{\"prompt\": 12}                  | \"prompt\" must be a string, found a number (12)",
        "{\"prompt\": \"\"}                | \"prompt\" is empty; remove the record or give it"
            + " text",
        "{\"prompt\": \"a\", \"messages\": []} | found more than one of \"prompt\", \"messages\""
            + " and \"conversations\"; give one",
        "{\"messages\": []}                | \"messages\" must be a non-empty array of {\"role\":"
            + " ..., \"content\": ...}, found an array",
        "{\"messages\": [{\"role\": \"user\"}]} | \"messages\"[0]: expected {\"role\": ...,"
            + " \"content\": ...}, found an object with keys [role]",
        "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"text\"}]}]} |"
            + " \"messages\"[0].content must be a string, found an array (multi-part content is"
            + " not supported)",
        "{\"prompt\": \"a\", \"max_tokens\": 0}     | \"max_tokens\" must be a whole number of at"
            + " least 1, found a number (0)",
        "{\"prompt\": \"a\", \"max_tokens\": 1.5}   | \"max_tokens\" must be a whole number of at"
            + " least 1, found a number (1.5)",
        "{\"prompt\": \"a\", \"output_tokens\": \"9\"} | \"output_tokens\" must be a whole number"
            + " of at least 1, found a string (\"9\")",
        "{\"prompt\": \"a\", \"max_tokens\": 1, \"output_tokens\": 1} | give \"max_tokens\" or"
            + " \"output_tokens\", not both",
        "\"just a string\"                 | expected a JSON object, found a string (\"just a"
            + " string\")",
        "null                              | expected a JSON object, found null",
      })
  void recordProblemsNameTheFileLineAndFix(String record, String problem) throws IOException {
    Path p = jsonl("{\"prompt\": \"fine\"}", record);
    assertThatThrownBy(() -> PromptFile.load(p))
        .isInstanceOf(WorkloadException.class)
        .hasMessage(p + ":2: " + problem);
  }

  @Test
  void malformedJsonNamesTheLine() throws IOException {
    Path p = jsonl("{\"prompt\": \"fine\"}", "{\"prompt\": \"fine\"}", "{\"prompt\": oops}");
    assertThatThrownBy(() -> PromptFile.load(p))
        .isInstanceOf(WorkloadException.class)
        .hasMessageStartingWith(p + ":3: not valid JSON (Unrecognized token 'oops'")
        .hasMessageEndingWith(
            "; each line must hold one complete JSON object, e.g. {\"prompt\": \"Hello\"} or"
                + " {\"messages\": [{\"role\": \"user\", \"content\": \"Hello\"}]}");
  }

  @Test
  void aPrettyPrintedObjectIsNotJsonLines() throws IOException {
    Path p = jsonl("{", "  \"prompt\": \"hello\"", "}");
    assertThatThrownBy(() -> PromptFile.load(p))
        .hasMessageStartingWith(p + ":1: not valid JSON (")
        .hasMessageContaining("each line must hold one complete JSON object");
  }

  @Test
  void twoObjectsOnOneLineAreRejected() throws IOException {
    Path p = jsonl("{\"prompt\": \"a\"} {\"prompt\": \"b\"}");
    assertThatThrownBy(() -> PromptFile.load(p))
        .hasMessageStartingWith(p + ":1: not valid JSON (")
        .hasMessageContaining("Trailing token");
  }

  @Test
  void notUtf8NamesTheLine() throws IOException {
    Path p = dir.resolve("latin1.jsonl");
    byte[] bad =
        "{\"prompt\": \"a\"}\n{\"prompt\": \"caf\u00e9\"}\n".getBytes(StandardCharsets.ISO_8859_1);
    Files.write(p, bad);
    assertThatThrownBy(() -> PromptFile.load(p))
        .isInstanceOf(WorkloadException.class)
        .hasMessage(p + ":2: not UTF-8 text; save the file as UTF-8");
  }

  // ---- empty, missing ----

  @Test
  void emptyFilesSaySo() throws IOException {
    for (String content : new String[] {"", "\n\n  \n"}) {
      Path p = write("empty.jsonl", content);
      assertThatThrownBy(() -> PromptFile.load(p))
          .isInstanceOf(WorkloadException.class)
          .hasMessageStartingWith(p + ": the file is empty; write one JSON object a line, e.g.");
    }
    Path array = write("empty.json", " [ ] ");
    assertThatThrownBy(() -> PromptFile.load(array))
        .hasMessageStartingWith(array + ": no prompts found; write one JSON object a line");
  }

  @Test
  void missingFileNamesThePath() {
    Path p = dir.resolve("nope/prompts.jsonl");
    assertThatThrownBy(() -> PromptFile.load(p))
        .isInstanceOf(WorkloadException.class)
        .hasMessage("prompt file not found: " + p + " (looked at " + p.toAbsolutePath() + ")");
  }

  @Test
  void directoryIsNotAFile() {
    assertThatThrownBy(() -> PromptFile.load(dir))
        .isInstanceOf(WorkloadException.class)
        .hasMessage(dir + ": is a directory; give a .jsonl or .json file of prompts");
  }

  // ---- ShareGPT ----

  private static final String SHAREGPT =
      """
      [
        {"id": "a", "conversations": [
          {"from": "human", "value": "What is the capital of France?"},
          {"from": "gpt", "value": "Paris."},
          {"from": "human", "value": "And Spain?"},
          {"from": "gpt", "value": "Madrid."}]},
        {"id": "b", "conversations": [{"from": "gpt", "value": "I start, nobody asks."}]},
        {"id": "c", "conversations": []},
        {"id": "d", "conversations": [
          {"from": "system", "value": "You are terse."},
          {"from": "human", "value": "Hi"}]},
        {"id": "e", "conversations": [
          {"from": "human", "value": ""}, {"from": "gpt", "value": "Empty question."}]},
        {"id": "f", "conversations": [
          {"from": "user", "value": "Count to three."},
          {"from": "assistant", "value": "One, two, three."}]}
      ]
      """;

  @Test
  void readsShareGptFirstHumanTurnsWithReplyLengthHints() throws IOException {
    Path p = write("sharegpt.json", SHAREGPT);
    PromptFile file = PromptFile.load(p);
    assertThat(file.format()).isEqualTo(PromptFile.Format.JSON_ARRAY);
    assertThat(file.entries())
        // the conversation behind each (bench --turns) is FileSessionsTest's
        .usingRecursiveFieldByFieldElementComparatorIgnoringFields("recorded")
        .containsExactly(
            new PromptFile.Entry(
                2,
                new Prompt.Text("What is the capital of France?"),
                OptionalInt.empty(),
                OptionalInt.of("Paris.".length())),
            new PromptFile.Entry(
                9, new Prompt.Text("Hi"), OptionalInt.empty(), OptionalInt.empty()),
            new PromptFile.Entry(
                14,
                new Prompt.Text("Count to three."),
                OptionalInt.empty(),
                OptionalInt.of("One, two, three.".length())));
    assertThat(file.skipped()).isEqualTo(3); // b: no human turn, c: empty, e: empty question
  }

  @Test
  void shareGptWithNothingToAskSaysWhatWasSkipped() throws IOException {
    Path p = write("s.json", "[{\"conversations\": [{\"from\": \"gpt\", \"value\": \"x\"}]}]");
    assertThatThrownBy(() -> PromptFile.load(p))
        .hasMessageStartingWith(
            p + ": no prompts found (1 conversations skipped: no human turn with text); write");
  }

  @Test
  void arrayElementsMayUseTheJsonLinesShapes() throws IOException {
    Path p = write("mixed.json", "[{\"prompt\": \"a\", \"max_tokens\": 3},\n {\"prompt\": \"b\"}]");
    PromptFile file = PromptFile.load(p);
    assertThat(file.entries()).extracting(PromptFile.Entry::line).containsExactly(1, 2);
    assertThat(file.entries().get(0).maxTokens()).hasValue(3);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "[{\"prompt\": \"a\"},\\n{\"text\": \"b\"}] | :2: expected a \"conversations\" array"
            + " (ShareGPT), a \"prompt\" string or a \"messages\" array, found keys [text]",
        "[{\"prompt\": \"a\"},\\n"
            + "\\n"
            + " 7]              | :3: expected a JSON object, found a number (7)",
        "[{\"conversations\": {\"from\": \"human\"}}] | :1: \"conversations\" must be an array of"
            + " {\"from\": ..., \"value\": ...}, found an object with keys [from]",
        "[\\n{\"conversations\": [{\"from\": \"human\", \"value\": 5}]}] | :2:"
            + " \"conversations\"[0]: expected {\"from\": \"human\", \"value\": \"...\"}, found an"
            + " object with keys [from, value]",
        "[{\"prompt\": \"a\"},\\n{\"prompt\": \"b\"}   | :2: the file ends inside the JSON array"
            + " (a ']' or '}' is missing); it may be cut short",
        "[{\"prompt\": \"a\"}]\\n[{\"prompt\": \"b\"}] | :2: unexpected content after the JSON"
            + " array; a JSON file holds one array",
      })
  void arrayProblemsNameTheFileAndLine(String content, String problem) throws IOException {
    Path p = write("bad.json", content.replace("\\n", "\n")); // \n in the table: a line end
    assertThatThrownBy(() -> PromptFile.load(p))
        .isInstanceOf(WorkloadException.class)
        .hasMessage(p + problem);
  }

  @Test
  void malformedJsonInAnArrayNamesTheLine() throws IOException {
    Path p = write("bad.json", "[\n{\"prompt\": \"a\"},\n{\"prompt\": \"b\",,}\n]");
    assertThatThrownBy(() -> PromptFile.load(p))
        .isInstanceOf(WorkloadException.class)
        .hasMessageStartingWith(p + ":3: not valid JSON (Unexpected character (','");
  }

  @Test
  void largeFilesLoadLineByLine() throws IOException {
    Path p = dir.resolve("big.jsonl");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      sb.append("{\"prompt\": \"prompt number ").append(i).append("\"}\n");
    }
    Files.writeString(p, sb);
    PromptFile file = PromptFile.load(p);
    assertThat(file.size()).isEqualTo(20_000);
    assertThat(file.entries().get(19_999).line()).isEqualTo(20_000);
    assertThat(file.entries().get(19_999).prompt())
        .isEqualTo(new Prompt.Text("prompt number 19999"));
  }
}
