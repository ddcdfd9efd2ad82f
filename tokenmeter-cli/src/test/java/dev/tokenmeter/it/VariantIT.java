package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.JsonSchemaSubset;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --variant} against in-process simulators: both variants under one schedule and
 * seed, each a normal results folder, compared at the end.
 */
@Timeout(60)
class VariantIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  /** One request of a requests.jsonl, as the test reads it. */
  private record Line(long id, double scheduledMs, int promptTokens, int serverPromptTokens) {}

  private static Map<Long, Line> lines(Path folder) throws IOException {
    Map<Long, Line> byId = new TreeMap<>();
    for (String text : Files.readAllLines(folder.resolve("requests.jsonl"))) {
      JsonNode j = JSON.readTree(text);
      byId.put(j.get("id").asLong(),
          new Line(j.get("id").asLong(), j.get("scheduled_at_ms").asDouble(), j.get("client_prompt_tokens").asInt(),
              j.path("usage_prompt_tokens").asInt(-1)));
    }
    return byId;
  }

  private static void assertValidFolder(Path folder) throws IOException {
    JsonNode schema = JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    JsonNode summary = JSON.readTree(folder.resolve("summary.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, summary)).as(folder.toString()).isEmpty();
    assertThat(summary.path("partial").asBoolean()).isFalse();
    assertThat(folder.resolve("report.html")).isRegularFile();
  }

  @Test
  void twoServersUnderOneScheduleAndSeedAndTheSlowerOneIsFoundSlower() throws Exception {
    Path out = tmp.resolve("ab");
    Cli.Result r;
    try (SimFixture fast = SimFixture.start(SimFixture.config(5, 1));
        SimFixture slow = SimFixture.start(SimFixture.config(10, 2))) {
      r = Cli.run(
          "bench", "--url", fast.baseUrl(), "--rate", "20", "--arrival", "constant", "--duration", "5s",
          "--warmup", "0s", "--cooldown", "0s", "--input-tokens", "uniform:16,64", "--output-tokens", "8",
          "--extra-body", "{\"ignore_eos\":true}", "--variant", "a:url=" + fast.baseUrl(),
          "--variant", "b:url=" + slow.baseUrl(), "--out", out.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).as(r.both())
        .contains("Stage 1/1: rate=20/s constant").contains("split over 2 variants (a, b): rate=10/s constant each");
    assertValidFolder(out.resolve("a"));
    assertValidFolder(out.resolve("b"));

    // 10/s each over a 5 s window (5 one-second blocks for compare): the same 50 arrivals (ids
    // 0..49) in both, at the same offsets
    // (the lanes' stage starts differ by the time to post a task to two loops: well under 50 ms).
    Map<Long, Line> a = lines(out.resolve("a"));
    Map<Long, Line> b = lines(out.resolve("b"));
    assertThat(a.keySet()).isEqualTo(b.keySet());
    assertThat(a.size()).isBetween(49, 51);
    for (long id : a.keySet()) {
      assertThat(b.get(id).promptTokens()).as("id " + id).isEqualTo(a.get(id).promptTokens());
      assertThat(Math.abs(b.get(id).scheduledMs() - a.get(id).scheduledMs())).as("id " + id).isLessThan(50);
    }
    // Constant arrivals 1/10 s apart: id 3 is 300 ms after id 0.
    assertThat(a.get(3L).scheduledMs() - a.get(0L).scheduledMs()).isCloseTo(300, org.assertj.core.api.Assertions.within(1.0));
    assertThat(a.values().stream().map(Line::promptTokens).distinct().count()).isGreaterThan(5); // lengths vary

    JsonNode sa = JSON.readTree(out.resolve("a/summary.json").toFile());
    assertThat(sa.at("/stages/0/label").asText()).isEqualTo("rate=10/s constant");
    assertThat(sa.at("/settings/workload/variant").asText()).isEqualTo("a");
    JsonNode defs = JSON.readTree(out.resolve("variants.json").toFile());
    assertThat(defs.at("/variants/1/name").asText()).isEqualTo("b");
    assertThat(defs.at("/variants/1/url").asText()).startsWith("http://127.0.0.1:");

    // The comparison: b's fixed TTFT is 10 ms against a's 5 ms, on every one of ~50 requests, so
    // in each of the 5 one-second blocks.
    assertThat(r.out()).as(r.both()).contains("Variants compared (A = a, B = b):")
        .containsPattern("TTFT p50 \\(ms\\).*B slower, significant \\(p<0\\.001\\)");
    String md = Files.readString(out.resolve("compare.md"));
    assertThat(md).containsPattern("TTFT p50 \\(ms\\).*B slower, significant");
    assertThat(out.resolve("compare.html")).isRegularFile();
    assertThat(out.resolve("compare.json")).isRegularFile();
    // The same comparison as the compare command on the two folders.
    Cli.Result c = Cli.run("compare", out.resolve("a").toString(), out.resolve("b").toString());
    assertThat(c.exitCode()).as(c.both()).isZero();
    assertThat(c.out()).containsPattern("TTFT p50 \\(ms\\).*B slower, significant \\(p<0\\.001\\)");
  }

  @Test
  void closedLoopUsersAreSplitAndASystemPromptGoesFirst() throws Exception {
    Path out = tmp.resolve("sys");
    Cli.Result r;
    long generations;
    try (SimFixture sim = SimFixture.start(SimFixture.config(2, 1))) {
      r = Cli.run(
          "bench", "--url", sim.baseUrl(), "--concurrency", "4", "--duration", "500ms", "--warmup", "0s",
          "--cooldown", "0s", "--input-tokens", "32", "--output-tokens", "4", "--extra-body", "{\"ignore_eos\":true}",
          "--variant", "plain", "--variant", "sys:system=Answer in one word only please",
          "--out", out.toString(), "-q");
      generations = sim.server().stats().generations();
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertValidFolder(out.resolve("plain"));
    assertValidFolder(out.resolve("sys"));
    JsonNode sys = JSON.readTree(out.resolve("sys/summary.json").toFile());
    assertThat(sys.at("/stages/0/label").asText()).isEqualTo("c=2");
    int systemTokens = sys.at("/settings/workload/system_prompt_tokens").asInt();
    // 6 words, the heuristic's 1 token each.
    assertThat(systemTokens).isEqualTo(6);
    Map<Long, Line> plain = lines(out.resolve("plain"));
    Map<Long, Line> withSystem = lines(out.resolve("sys"));
    int compared = 0;
    for (long id : withSystem.keySet()) {
      if (plain.containsKey(id)) {
        compared++;
        assertThat(withSystem.get(id).promptTokens()).isEqualTo(plain.get(id).promptTokens() + systemTokens);
        // The server received the system message too: its own count grew.
        assertThat(withSystem.get(id).serverPromptTokens()).isGreaterThan(plain.get(id).serverPromptTokens());
      }
    }
    assertThat(compared).isGreaterThan(10);
    assertThat(generations).isEqualTo(plain.size() + withSystem.size());
  }

  @Test
  void loadThatDoesNotDivideIsAUsageErrorNamingTheNearestValues() {
    Cli.Result r = Cli.run("bench", "--url", "http://127.0.0.1:" + SimFixture.closedPort(), "--concurrency", "5",
        "--variant", "a", "--variant", "b");
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err().lines().toList()).as(r.both()).containsExactly(
        "tokenmeter: --concurrency 5 is the total over the 2 variants and must divide evenly:"
            + " use 4 or 6 (2 or 3 per variant)");
    Cli.Result q = Cli.run("bench", "--url", "http://127.0.0.1:" + SimFixture.closedPort(), "--concurrency", "4",
        "--requests", "10", "--variant", "a", "--variant", "b");
    assertThat(q.exitCode()).isEqualTo(2);
    assertThat(q.err()).startsWith("tokenmeter: --variant needs a --duration window");
    Cli.Result one = Cli.run("bench", "--url", "http://127.0.0.1:" + SimFixture.closedPort(), "--concurrency", "4",
        "--variant", "a");
    assertThat(one.exitCode()).isEqualTo(2);
    assertThat(one.err()).contains("at least two");
  }
}
