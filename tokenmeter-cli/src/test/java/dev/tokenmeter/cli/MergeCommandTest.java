package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.report.JsonSchemaSubset;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.SummaryJsonReader;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tokenmeter merge} over two simulate runs of the same plan, as two side-by-side generators. */
class MergeCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] PLAN = {"simulate", "--concurrency", "4,12", "--input-tokens", "uniform:50,300",
      "--output-tokens", "uniform:10,80", "--duration", "12s", "--warmup", "1s", "--cooldown", "1s", "-q"};

  @TempDir static Path dir;

  @BeforeAll
  static void twoParts() {
    simulate(dir.resolve("p0"), "1");
    simulate(dir.resolve("p1"), "2");
    Cli.Result r = Cli.run("merge", dir.resolve("p0").toString(), dir.resolve("p1").toString(),
        "--out", dir.resolve("merged").toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("Merged 2 parts, 2 stages").contains("c=8:").contains("c=24:");
    assertThat(r.err()).doesNotContain("WARNING"); // simulated parts are simultaneous by construction
  }

  static void simulate(Path out, String seed) {
    List<String> args = new ArrayList<>(Arrays.asList(PLAN));
    args.addAll(List.of("--seed", seed, "--out", out.toString()));
    Cli.Result r = Cli.run(args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.both()).isZero();
  }

  @Test
  void countsThroughputsAndLoadAdd() throws Exception {
    JsonNode p0 = summary("p0");
    JsonNode p1 = summary("p1");
    JsonNode m = summary("merged");
    assertThat(JsonSchemaSubset.check(JSON.readTree(Path.of("docs/summary.schema.json").toFile()), m)).isEmpty();
    assertThat(m.get("schema_version").asText()).isEqualTo(dev.tokenmeter.report.RunSummary.SCHEMA_VERSION);
    assertThat(m.get("merged_from")).hasSize(2);
    assertThat(m.at("/merged_from/1/dir").asText()).endsWith("p1");
    for (int s = 0; s < 2; s++) {
      JsonNode a = p0.get("stages").get(s);
      JsonNode b = p1.get("stages").get(s);
      JsonNode sum = m.get("stages").get(s);
      assertThat(sum.at("/load/concurrency").asInt()).isEqualTo(2 * a.at("/load/concurrency").asInt());
      assertThat(sum.get("label").asText()).isEqualTo("c=" + 2 * a.at("/load/concurrency").asInt());
      for (String f : new String[] {"/requests/completed", "/requests/failed",
          "/requests/by_phase/warmup/completed", "/throughput/window_output_tokens",
          "/histograms/ttft/count", "/metrics/tpot_ms/count"}) {
        assertThat(sum.at(f).asLong()).as(f).isEqualTo(a.at(f).asLong() + b.at(f).asLong());
      }
      for (String f : new String[] {"/throughput/output_tokens_per_s", "/throughput/requests_per_s",
          "/achieved_concurrency"}) {
        assertThat(sum.at(f).asDouble()).as(f).isCloseTo(a.at(f).asDouble() + b.at(f).asDouble(), within(1e-9));
      }
      assertThat(sum.at("/time_series/output_tokens/3").asLong())
          .isEqualTo(a.at("/time_series/output_tokens/3").asLong() + b.at("/time_series/output_tokens/3").asLong());
    }
    SavedSummary read = SummaryJsonReader.read(dir.resolve("merged/summary.json"));
    assertThat(read.stages()).hasSize(2);
  }

  @Test
  void mergedPercentilesAreThoseOfAllRequestsTogether() throws Exception {
    JsonNode m = summary("merged");
    SavedSummary read = SummaryJsonReader.read(dir.resolve("merged/summary.json"));
    for (int s = 0; s < 2; s++) {
      for (String[] f : new String[][] {{"ttft_ms", "ttft_ms"}, {"tpot_ms", "tpot_ms"}, {"e2e_ms", "e2e_ms"}}) {
        double[] union = measured(s, f[1]);
        Arrays.sort(union);
        JsonNode d = m.at("/stages/" + s + "/metrics/" + f[0]);
        assertThat(d.get("count").asLong()).isEqualTo(union.length);
        for (String[] q : new String[][] {{"p50", "0.5"}, {"p99", "0.99"}}) {
          double exact = union[(int) Math.ceil(Double.parseDouble(q[1]) * union.length) - 1];
          // HdrHistogram at 3 digits: within 0.1%; requests.jsonl rounds to 1 µs.
          assertThat(d.get(q[0]).asDouble()).as("stage %d %s %s", s, f[0], q[0])
              .isCloseTo(exact, within(exact * 0.001 + 0.001));
        }
      }
      assertThat(read.stages().get(s).histograms().get(Metric.TTFT).getTotalCount())
          .isEqualTo(measured(s, "ttft_ms").length);
    }
  }

  @Test
  void requestsOfEveryPartAreKeptWithTheirPart() throws Exception {
    List<String> merged = Files.readAllLines(dir.resolve("merged/requests.jsonl"));
    List<String> p0 = Files.readAllLines(dir.resolve("p0/requests.jsonl"));
    List<String> p1 = Files.readAllLines(dir.resolve("p1/requests.jsonl"));
    assertThat(merged).hasSize(p0.size() + p1.size());
    JsonNode first = JSON.readTree(merged.get(0));
    JsonNode last = JSON.readTree(merged.get(merged.size() - 1));
    assertThat(first.get("part").asInt()).isZero();
    assertThat(last.get("part").asInt()).isEqualTo(1);
    ((com.fasterxml.jackson.databind.node.ObjectNode) last).remove("part");
    assertThat(last).isEqualTo(JSON.readTree(p1.get(p1.size() - 1)));
  }

  @Test
  void differentPlansAreRefusedUnlessForced() {
    Path other = dir.resolve("other");
    Cli.Result sim = Cli.run("simulate", "--concurrency", "4", "--input-tokens", "100", "--output-tokens", "20",
        "--duration", "3s", "--warmup", "0s", "--cooldown", "0s", "-q", "--out", other.toString());
    assertThat(sim.exitCode()).as(sim.both()).isZero();
    Cli.Result r = Cli.run("merge", dir.resolve("p0").toString(), other.toString(), "--out",
        dir.resolve("refused").toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("the parts ran different plans: part 1 has 1 stages, part 0 2")
        .contains("--force").doesNotContain("Exception");
    assertThat(dir.resolve("refused/summary.json")).doesNotExist();
    Cli.Result forced = Cli.run("merge", dir.resolve("p0").toString(), other.toString(), "--out",
        dir.resolve("forced").toString(), "--force");
    assertThat(forced.exitCode()).as(forced.both()).isZero();
    assertThat(forced.err()).contains("WARNING: merged anyway (--force)");
    assertThat(forced.out()).contains("1 stages");
  }

  @Test
  void usageErrors() {
    Cli.Result missing = Cli.run("merge", dir.resolve("p0").toString(), dir.resolve("nowhere").toString(),
        "--out", dir.resolve("x").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("nowhere is not a results folder");
    Cli.Result occupied = Cli.run("merge", dir.resolve("p0").toString(), dir.resolve("p1").toString(),
        "--out", dir.resolve("p0").toString());
    assertThat(occupied.exitCode()).isEqualTo(2);
    assertThat(occupied.err()).contains("already holds results");
    assertThat(Cli.run("merge", dir.resolve("p0").toString(), "--out", "x").exitCode()).isEqualTo(2);
  }

  private static JsonNode summary(String name) throws Exception {
    return JSON.readTree(dir.resolve(name).resolve("summary.json").toFile());
  }

  /** {@code field} of every successful measured request of stage {@code s}, both parts. */
  private static double[] measured(int s, String field) throws Exception {
    List<Double> v = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("merged/requests.jsonl"))) {
      JsonNode r = JSON.readTree(line);
      if (r.get("stage").asInt() == s && r.get("phase").asText().equals("measured") && r.get("ok").asBoolean()
          && r.has(field)) {
        v.add(r.get(field).asDouble());
      }
    }
    return v.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
