package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bad-input message of {@link Trace#read}, whole and byte for byte (the file's path shown as
 * {@code F}): users and scripts read these lines, so a refactoring of the readers must leave each
 * one as it is. {@link TraceTest} checks what the messages mean; this pins their exact text.
 */
class TraceReadMessagesTest {
  @TempDir Path dir;

  private static final String MOON = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n";
  private static final String BURST = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
  private static final String AZURE = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

  static Stream<Arguments> badTraces() {
    return Stream.of(
        bad("\n\n", null, 0, "F: the trace is empty: give a file with one request per line"),
        bad("\na,b,c\n1,2,3\n", null, 0, "F:2: not a trace format tokenmeter reads (Mooncake, Bailian or tokenmeter JSONL,"
            + " BurstGPT or Azure CSV with their header): give --trace-format or convert it (docs/TRACES.md)"),
        bad(MOON + "[1, 2]\n", null, 0, "F:2: not a JSON object: one request per line"),
        bad(MOON + "null\n", TraceFormat.MOONCAKE, 0, "F:2: not a JSON object: one request per line"),
        bad("{\"input_length\": 10, \"output_length\": 5}\n", TraceFormat.MOONCAKE, 0,
            "F:1: \"timestamp\" must be a number of milliseconds >= 0, got null"),
        bad("{\"timestamp\": -1, \"input_length\": 10, \"output_length\": 5}\n", null, 0,
            "F:1: \"timestamp\" must be a number of milliseconds >= 0, got -1"),
        bad("{\"chat_id\": 1, \"timestamp\": \"soon\", \"input_length\": 10, \"output_length\": 5}\n", null, 0,
            "F:1: \"timestamp\" must be a number of seconds >= 0, got \"soon\""),
        bad("{\"at_ms\": null, \"input_tokens\": 10, \"output_tokens\": 5}\n", null, 0,
            "F:1: \"at_ms\" must be a number of milliseconds >= 0, got null"),
        bad("{\"timestamp\": 0, \"input_length\": 1.5, \"output_length\": 5}\n", null, 0,
            "F:1: \"input_length\" must be a whole number of tokens >= 1, got 1.5"),
        bad("{\"timestamp\": 0, \"input_length\": 10}\n", null, 0,
            "F:1: \"output_length\" must be a whole number of tokens >= 1, got null"),
        bad("{\"at_ms\": 0, \"input_tokens\": 10, \"output_tokens\": 0}\n", null, 0,
            "F:1: \"output_tokens\" must be a whole number of tokens >= 1, got 0"),
        bad("{\"at_ms\": 0, \"input_tokens\": 10, \"output_tokens\": 5, \"block_tokens\": 0}\n", null, 0,
            "F:1: \"block_tokens\" must be a whole number >= 1, got 0"),
        bad("{\"at_ms\": 0, \"input_tokens\": 10, \"output_tokens\": 5, \"block_tokens\": 30}\n", null, 16,
            "F:1: the trace's blocks are 30 tokens (\"block_tokens\") but --trace-block-tokens says 16:"
            + " drop --trace-block-tokens"),
        bad("{\"at_ms\": 0, \"input_tokens\": 10, \"output_tokens\": 5, \"block_tokens\": 30}\n\n"
            + "{\"at_ms\": 1, \"input_tokens\": 10, \"output_tokens\": 5, \"block_tokens\": 16}\n", null, 0,
            "F:3: \"block_tokens\" is 16 here but 30 on line 1: one trace has one block size"),
        bad("{\"at_ms\": 0, \"input_tokens\": 10, \"output_tokens\": 5, \"turn\": 0}\n", null, 0,
            "F:1: \"turn\" must be a whole number >= 1, got 0"),
        bad("{\"chat_id\": \"a\", \"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n", null, 0,
            "F:1: \"chat_id\" must be a whole number, got \"a\""),
        bad("{\"chat_id\": 1, \"timestamp\": 0, \"input_length\": 10, \"output_length\": 5, \"turn\": \"x\"}\n", null, 0,
            "F:1: \"turn\" must be a whole number >= 1, got \"x\""),
        bad("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": 3}\n", null, 0,
            "F:1: \"hash_ids\" must be an array of whole numbers, got 3"),
        bad("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [1, \"b\"]}\n", null, 0,
            "F:1: \"hash_ids\" item 1 must be a whole number, got \"b\""),
        bad("{\"chat_id\": 1, \"timestamp\": 0, \"input_length\": 20, \"output_length\": 5, \"hash_ids\": [1, 2, 3]}\n",
            null, 0, "F:1: \"hash_ids\" names 3 blocks of 16 tokens but the prompt is 20 tokens (2 blocks at most):"
            + " fix the record, or give the trace's block size with --trace-block-tokens"),
        bad(MOON + "{\"timestamp\": -0.5, \"input_length\": 10, \"output_length\": 5}\n", null, 0,
            "F:2: \"timestamp\" must be a number of milliseconds >= 0, got -0.5"),
        bad("{\"timestamp\": 9, \"input_length\": 10, \"output_length\": 5}\n\n" + MOON, null, 0,
            "F:3: timestamp goes back in time (line 1 was later): sort the trace by arrival time first"),
        bad(AZURE, TraceFormat.BURSTGPT, 0, "F:1: the burstgpt header has no column \"Timestamp\" (it has"
            + " [TIMESTAMP, ContextTokens, GeneratedTokens]): give the file as published, or the right --trace-format"),
        bad(BURST, TraceFormat.AZURE, 0, "F:1: the azure header has no column \"TIMESTAMP\" (it has [Timestamp, Model,"
            + " Request tokens, Response tokens, Total tokens, Log Type]): give the file as published, or the right"
            + " --trace-format"),
        bad(BURST + "1,GPT-4\n", null, 0, "F:2: no value for \"Request tokens\": 2 fields, the header has 6"),
        bad(BURST + "1,GPT-4,-3,5,2,API log\n", null, 0,
            "F:2: \"Request tokens\" must be a whole number of tokens >= 0, got '-3'"),
        bad(BURST + "1,GPT-4,3,\"5\"\"\",2,API log\n", null, 0,
            "F:2: \"Response tokens\" must be a whole number of tokens >= 0, got '5\"'"),
        bad(BURST + "Infinity,GPT-4,3,5,8,API log\n", null, 0, "F:2: \"Timestamp\" must be seconds >= 0, got 'Infinity'"),
        bad(BURST + "5,GPT-4,3,5,8,API log\n4,GPT-4,0,5,5,API log\n", null, 0,
            "F:3: timestamp goes back in time (line 2 was later): sort the trace by arrival time first"),
        bad(BURST + "5,GPT-4,0,5,5,API log\n6,GPT-4,3,0,3,API log\n", null, 0,
            "F: the trace has no request to send (2 rows with 0 tokens skipped)"),
        bad(AZURE + "2023-11-16 18:15:46.6805900,10,5\n2023-11-16T18:15:47Z,10,5\n2023-11-16,10,5\n", null, 0,
            "F:4: \"TIMESTAMP\" must be a date-time such as 2023-11-16 18:15:46.6805900, got '2023-11-16'"),
        bad(AZURE + "2023-11-16 18:15:47,10,5\n2023-11-16 18:15:46.9,10,5\n", null, 0,
            "F:3: timestamp goes back in time (line 2 was later): sort the trace by arrival time first"));
  }

  private static Arguments bad(String content, TraceFormat format, int blockTokens, String message) {
    return Arguments.of(content, format, blockTokens, message);
  }

  @ParameterizedTest
  @MethodSource("badTraces")
  void eachBadTraceGetsItsExactLine(String content, TraceFormat format, int blockTokens, String message)
      throws IOException {
    Path f = dir.resolve("t.txt");
    Files.writeString(f, content);
    assertThatThrownBy(() -> Trace.read(f, format, blockTokens)).isInstanceOf(WorkloadException.class)
        .extracting(e -> e.getMessage().replace(f.toString(), "F")).isEqualTo(message);
  }

  @Test
  void fileLevelProblemsNameTheFlagOrTheFile() throws IOException {
    Path missing = dir.resolve("missing.jsonl");
    assertThatThrownBy(() -> Trace.read(missing, null, 0)).hasMessage("--trace " + missing + ": no such file");
    assertThatThrownBy(() -> Trace.read(missing, null, -1))
        .hasMessage("--trace-block-tokens must be at least 1, got -1");
    Path binary = dir.resolve("t.bin");
    Files.write(binary, new byte[] {(byte) 0xC3, 0x28, '\n'});
    assertThatThrownBy(() -> Trace.read(binary, null, 0)).hasMessage(binary + ": not UTF-8 text, so not a trace"
        + " format tokenmeter reads (Mooncake, Bailian or tokenmeter JSONL, BurstGPT or Azure CSV; docs/TRACES.md)");
    assertThatThrownBy(() -> Trace.read(dir, null, 0)).hasMessageStartingWith("--trace " + dir + ": cannot read it (");
    Path f = dir.resolve("t.jsonl");
    Files.writeString(f, MOON + "{not json\n");
    assertThatThrownBy(() -> Trace.read(f, null, 0)).hasMessageStartingWith(f + ":2: not a JSON object (")
        .hasMessageEndingWith("): one request per line");
  }

  @Test
  void eachFormatReadsToTheSameRecords() throws IOException {
    Path f = dir.resolve("mixed.csv");
    Files.writeString(f, "Timestamp,Session ID,Request tokens,Response tokens\n"
        + "1.5,\"s,1\",10,5\n2,,0,5\n2.25,\" \",7,3\n");
    Trace burst = Trace.read(f, null, 0);
    assertThat(burst.records()).extracting(Trace.Record::atNanos, Trace.Record::inputTokens,
        Trace.Record::outputTokens, Trace.Record::session, Trace.Record::turn, Trace.Record::line)
        .containsExactly(tuple(0L, 10, 5, "s,1", 0, 2L), tuple(750_000_000L, 7, 3, null, 0, 4L));
    assertThat(burst.skipped()).isEqualTo(1);
    assertThat(burst.blockTokens()).isEqualTo(512);

    Path b = dir.resolve("bailian.jsonl");
    Files.writeString(b, "{\"chat_id\": 5, \"parent_chat_id\": -1, \"timestamp\": 1.25, \"input_length\": 40,"
        + " \"output_length\": 5, \"turn\": 1, \"hash_ids\": [1, 2, 3]}\n"
        + "{\"chat_id\": 9, \"parent_chat_id\": 5, \"timestamp\": 2.5, \"input_length\": 50, \"output_length\": 6,"
        + " \"turn\": 2, \"hash_ids\": [1, 2, 3, 4]}\n"
        + "{\"chat_id\": 12, \"parent_chat_id\": 7, \"timestamp\": 2.5, \"input_length\": 5, \"output_length\": 1}\n");
    Trace bailian = Trace.read(b, null, 0);
    assertThat(bailian.blockTokens()).isEqualTo(16);
    assertThat(bailian.records()).extracting(Trace.Record::session).containsExactly("chat-5", "chat-5", "chat-7");
    assertThat(bailian.records()).extracting(Trace.Record::turn).containsExactly(1, 2, 0);
    assertThat(bailian.offsetsNanos()).containsExactly(0, 1_250_000_000L, 1_250_000_000L);
    assertThat(bailian.records().get(1).hashIds()).containsExactly(1, 2, 3, 4);

    Path t = dir.resolve("ours.jsonl");
    Files.writeString(t, "{\"at_ms\": 0.5, \"input_tokens\": 100, \"output_tokens\": 5, \"block_tokens\": 32,"
        + " \"hash_ids\": [7, 8, 9, 10], \"session\": \"a\", \"turn\": 3}\n"
        + "{\"at_ms\": 1, \"input_tokens\": 10, \"output_tokens\": 5, \"session\": null}\n");
    Trace ours = Trace.read(t, null, 0);
    assertThat(ours.blockTokens()).isEqualTo(32);
    assertThat(ours.records()).extracting(Trace.Record::session).containsExactly("a", null);
    assertThat(ours.records()).extracting(Trace.Record::line).containsExactly(1L, 2L);
    assertThat(ours.offsetsNanos()).containsExactly(0, 500_000L);
    assertThat(ours.describe()).isEqualTo("tokenmeter trace ours.jsonl: 2 requests over 0.0 s");
    assertThat(burst.describe()).isEqualTo("burstgpt trace mixed.csv: 2 requests over 0.8 s (1 rows with 0 tokens"
        + " skipped)");
  }
}
