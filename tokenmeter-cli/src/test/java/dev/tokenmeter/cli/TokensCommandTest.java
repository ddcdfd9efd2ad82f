package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.workload.JsonlCounter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokensCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;

  private static List<JsonNode> lines(String out) throws IOException {
    List<JsonNode> nodes = new java.util.ArrayList<>();
    for (String line : out.split("\n")) {
      nodes.add(JSON.readTree(line));
    }
    return nodes;
  }

  @Test
  void tableShowsTokensRatiosAndCostPerTokenizer() {
    // "Hello, world!" is 4 tokens in o200k_base and cl100k_base (Hello , world !), 13 chars, 2 words.
    Cli.Result r = Cli.run("tokens", "-t", "o200k_base,gpt-4", "--price-in", "2.5", "Hello,", "world!");
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).startsWith("13 characters, 2 words\n");
    assertThat(r.out()).containsPattern("o200k_base +4 +3\\.25 +0\\.50 +0\\.000010\n");
    assertThat(r.out()).containsPattern("cl100k_base +4 +3\\.25 +0\\.50 +0\\.000010\n");
  }

  @Test
  void jsonWithIdsGivesIdsAndPieces() throws IOException {
    Cli.Result r = Cli.run("tokens", "--json", "--ids", "Hello, world");
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode n = lines(r.out()).get(0);
    assertThat(n.get("tokenizer").asText()).isEqualTo("o200k_base");
    assertThat(n.get("count").asInt()).isEqualTo(3);
    assertThat(n.get("ids").toString()).isEqualTo("[13225,11,2375]");
    assertThat(n.get("pieces").toString()).isEqualTo("[\"Hello\",\",\",\" world\"]");
  }

  @Test
  void fileInputIsCountedWhole() throws IOException {
    Path f = Files.writeString(tmp.resolve("t.txt"), "line one\r\nline two\n");
    Cli.Result r = Cli.run("tokens", "--json", "-f", f.toString(), "-t", "cl100k_base");
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode n = lines(r.out()).get(0);
    assertThat(n.get("chars").asInt()).isEqualTo(19);
    assertThat(n.get("words").asInt()).isEqualTo(4);
    assertThat(n.get("count").asInt())
        .isEqualTo(dev.tokenmeter.tokenizer.Tokenizer.openAi("cl100k_base").count("line one\r\nline two\n"));
  }

  @Test
  void datasetGivesOneLinePerRecordAndTokenizerThenTotals() throws IOException {
    Path f =
        Files.writeString(
            tmp.resolve("d.jsonl"),
            "{\"id\":\"a\",\"body\":\"Hello world\"}\n\n{\"id\":7,\"body\":\"你好\"}\n{\"body\":\"x\"}\n");
    Cli.Result r =
        Cli.run("tokens", "--input-jsonl", f.toString(), "--field", "body", "-t", "o200k_base,r50k_base", "--price-in", "1");
    assertThat(r.exitCode()).as(r.both()).isZero();
    List<JsonNode> out = lines(r.out());
    assertThat(out).hasSize(8);
    assertThat(out.get(0).toString()).isEqualTo("{\"id\":\"a\",\"tokenizer\":\"o200k_base\",\"count\":2}");
    assertThat(out.get(3).toString()).isEqualTo("{\"id\":7,\"tokenizer\":\"r50k_base\",\"count\":4}");
    assertThat(out.get(4).toString()).isEqualTo("{\"line\":4,\"tokenizer\":\"o200k_base\",\"count\":1}");
    // Totals: o200k 2 + 1 + 1, r50k 2 + 4 + 1.
    assertThat(out.get(6).toString())
        .isEqualTo("{\"total\":true,\"tokenizer\":\"o200k_base\",\"records\":3,\"count\":4,\"cost_usd\":4.0E-6}");
    assertThat(out.get(7).get("count").asInt()).isEqualTo(7);
  }

  @Test
  void manyThreadsKeepInputOrderAcrossBatchesAndReportTheFirstBadLine() throws IOException {
    // 5 batches of 512 and a partial one; each record's text differs so a reordering shows.
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 5 * JsonlCounter.BATCH + 37; i++) {
      sb.append("{\"id\":").append(i).append(",\"text\":\"").append("word ".repeat(i % 50)).append(i).append("\"}\n");
    }
    Path f = Files.writeString(tmp.resolve("many.jsonl"), sb);
    Cli.Result one = Cli.run("tokens", "--input-jsonl", f.toString(), "--threads", "1");
    Cli.Result four = Cli.run("tokens", "--input-jsonl", f.toString(), "--threads", "4");
    assertThat(four.exitCode()).as(four.both()).isZero();
    assertThat(four.out()).isEqualTo(one.out());
    List<JsonNode> out = lines(four.out());
    assertThat(out).hasSize(5 * JsonlCounter.BATCH + 37 + 1);
    var o200k = dev.tokenmeter.tokenizer.Tokenizer.openAi("o200k_base");
    long total = 0;
    for (int i = 0; i < out.size() - 1; i++) {
      assertThat(out.get(i).get("id").asInt()).isEqualTo(i);
      int expected = o200k.count("word ".repeat(i % 50) + i);
      assertThat(out.get(i).get("count").asInt()).isEqualTo(expected);
      total += expected;
    }
    assertThat(out.get(out.size() - 1).get("count").asLong()).isEqualTo(total);

    Files.writeString(f, sb.toString().replace("{\"id\":2000,\"text\"", "{\"id\":2000,\"body\""));
    Cli.Result bad = Cli.run("tokens", "--input-jsonl", f.toString(), "--threads", "4");
    assertThat(bad.exitCode()).isEqualTo(Main.EXIT_USAGE);
    assertThat(bad.err()).contains("many.jsonl:2001: no string field \"text\"");
    assertThat(lines(bad.out())).hasSize(2000); // every record before it was written, in order
  }

  @Test
  void problemsAreUsageErrors() throws IOException {
    Path f = Files.writeString(tmp.resolve("d.jsonl"), "{\"prompt\":\"x\"}\n");
    Cli.Result r = Cli.run("tokens", "--input-jsonl", f.toString());
    assertThat(r.exitCode()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err()).contains("d.jsonl:1: no string field \"text\" (choose it with --field)");
    Cli.Result bad = Cli.run("tokens", "-t", "nope", "x");
    assertThat(bad.exitCode()).isEqualTo(Main.EXIT_USAGE);
    assertThat(bad.err()).contains("unknown tokenizer 'nope'");
  }
}
