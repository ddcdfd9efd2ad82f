package dev.tokenmeter.report.html;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.report.CostReport;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.StageDetail;
import dev.tokenmeter.report.SummaryJsonReader;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * report.html of a run with {@code --repeat 3 --vary-seed} and prices (a real simulate run): the
 * repeats and costs read back from summary.json, one curve point per planned stage with its
 * interval, the tables' numbers, and the sentences under the answer (also on hand-set figures).
 */
class ReportRepeatsCostTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private static JsonNode file;
  private static SavedSummary summary;

  @BeforeAll
  static void simulate() throws Exception {
    Path dir = tmp.resolve("run");
    Cli.Result r = Cli.run("simulate", "-q", "--concurrency", "16,1", "--repeat", "3", "--vary-seed", "--duration",
        "3s", "--warmup", "1s", "--cooldown", "0s", "--input-tokens", "128", "--output-tokens", "uniform:32,96",
        "--price-in", "0.1", "--price-out", "0.4", "--gpu-cost", "2.5", "--traffic", "100000req/day", "--turns", "4",
        "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    file = JSON.readTree(dir.resolve("summary.json").toFile());
    summary = SummaryJsonReader.read(dir.resolve("summary.json"));
  }

  @Test
  void repeatsAndCostAreReadBack() {
    Repeats r = summary.repeats();
    assertThat(r.count()).isEqualTo(3);
    assertThat(r.varySeed()).isTrue();
    assertThat(r.confidence()).isEqualTo(0.95);
    assertThat(r.groups()).hasSize(2);
    for (int g = 0; g < 2; g++) {
      JsonNode group = file.at("/repeats/groups/" + g);
      assertThat(r.groups().get(g).label()).isEqualTo(group.get("label").asText());
      assertThat(r.groups().get(g).stages()).containsExactly(3 * g, 3 * g + 1, 3 * g + 2);
      for (Repeats.Headline h : Repeats.Headline.values()) {
        JsonNode m = group.at("/metrics/" + h.wireName());
        Repeats.Estimate e = r.groups().get(g).estimate(h);
        assertThat(e.n()).isEqualTo(m.get("n").asInt());
        assertThat(e.mean()).as(h.name()).isEqualTo(m.get("mean").asDouble());
        assertThat(e.low()).as(h.name()).isCloseTo(m.get("ci_low").asDouble(), org.assertj.core.api.Assertions.within(1e-9));
      }
    }
    Cost.Model m = summary.pricing();
    assertThat(m).isEqualTo(new Cost.Model("USD", 0.1, 0.4, 2.5, 1, 100_000, 4));
    for (int i = 0; i < summary.stages().size(); i++) {
      Cost.StageCost c = summary.stages().get(i).detail().cost();
      JsonNode cost = file.at("/stages/" + i + "/cost");
      assertThat(c.gpu().perMillionOutputTokens()).isEqualTo(cost.at("/gpu/per_1m_output_tokens").asDouble());
      assertThat(c.gpu().deployments()).isEqualTo(cost.at("/gpu/deployments").asLong());
      assertThat(c.tokens().perConversation()).isEqualTo(cost.at("/tokens/per_conversation").asDouble());
    }
  }

  @Test
  void theCurveHasOnePointPerPlannedStageWithItsInterval() {
    JsonNode data = PageData.of(summary);
    JsonNode curve = data.get("curve");
    assertThat(curve).hasSize(2); // 6 stages, 2 loads
    assertThat(data.at("/repeats/count").asInt()).isEqualTo(3);
    // Load order: c=1 (group 1) before c=16 (group 0).
    int[] groups = {1, 0};
    for (int i = 0; i < 2; i++) {
      JsonNode c = curve.get(i);
      JsonNode m = file.at("/repeats/groups/" + groups[i] + "/metrics");
      assertThat(c.get("label").asText()).isEqualTo(i == 0 ? "c=1" : "c=16");
      assertThat(c.get("userP50").asDouble()).isEqualTo(m.at("/decode_tps_p50/mean").asDouble());
      assertThat(c.get("aggTps").asDouble()).isEqualTo(m.at("/output_tokens_per_s/mean").asDouble());
      assertThat(c.at("/ttft/p99").asDouble()).isEqualTo(m.at("/ttft_p99_ms/mean").asDouble());
      assertThat(c.at("/tpot/p90").isNull()).isTrue();
      assertThat(c.at("/ci/userP50/0").asDouble()).isCloseTo(m.at("/decode_tps_p50/ci_low").asDouble(), within());
      assertThat(c.at("/ci/aggTps/1").asDouble()).isCloseTo(m.at("/output_tokens_per_s/ci_high").asDouble(), within());
      assertThat(c.at("/ci/tpotP99/1").asDouble()).isCloseTo(m.at("/tpot_p99_ms/ci_high").asDouble(), within());
    }
    // Every repeat is still a stage of its own, named as a repeat.
    assertThat(data.get("stages")).hasSize(6);
    assertThat(data.at("/stages/4/label").asText()).isEqualTo("c=1, repeat 2 of 3");
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.api.Assertions.within(1e-9);
  }

  @Test
  void tablesShowSummaryJsonsNumbers() {
    String tables = Tables.all(summary, null);
    JsonNode tpot = file.at("/repeats/groups/0/metrics/tpot_p50_ms");
    assertThat(tables).contains("<table id=\"table-repeats\">")
        .contains("<a href=\"#def-tpot\">TPOT p50</a> <span class=\"unit\">(ms)</span></th><td>"
            + Tables.num(tpot.get("mean").asDouble()) + " ± " + Tables.num(tpot.get("half_width").asDouble())
            + " (CV " + Tables.num(100 * tpot.get("cv").asDouble()) + "%)</td>");
    for (int i = 0; i < 6; i++) {
      JsonNode gpu = file.at("/stages/" + i + "/cost/gpu");
      JsonNode tokens = file.at("/stages/" + i + "/cost/tokens");
      String name = (i < 3 ? "c=16" : "c=1") + ", repeat " + (i % 3 + 1) + " of 3";
      assertThat(tables).contains("<tr><th scope=\"row\">" + name + "</th><td>"
          + CostReport.money(gpu.get("per_request").asDouble()) + "</td><td>"
          + CostReport.money(gpu.get("per_1m_output_tokens").asDouble()) + "</td><td>"
          + CostReport.money(gpu.get("per_conversation").asDouble()) + "</td><td>"
          + CostReport.money(gpu.get("per_month").asDouble()) + "</td><td>" + gpu.get("deployments").asLong()
          + "</td></tr>");
      assertThat(tables).contains("<tr><th scope=\"row\">" + name + "</th><td>"
          + CostReport.money(tokens.get("per_request").asDouble()) + "</td><td>"
          + CostReport.money(tokens.get("per_1m_output_tokens").asDouble()) + "</td>");
    }
    assertThat(tables).contains("<dt id=\"def-cost-per-1m-output\">").contains("<dt id=\"def-repeat-mean\">")
        .contains("<dt id=\"def-error-rate\">").doesNotContain("def-significance");
  }

  @Test
  void sentencesUnderTheAnswerNameTheRepeatsAndTheCost() {
    List<String> headline = Headline.sentences(summary);
    // The knee lies beyond c=16 (per-user TPS well above 30): the answer is c=16, a mean over 3 repeats.
    JsonNode m = file.at("/repeats/groups/0/metrics/decode_tps_p50");
    assertThat(headline.get(0)).startsWith("At 16 concurrent users each user would see "
        + Headline.tps(m.get("mean").asDouble()));
    assertThat(RepeatsCost.repeatsSentence(summary)).isEqualTo("Each load ran 3 times (a new seed each time);"
        + " every figure above is the mean over its repeats: at 16 concurrent users per-user TPS is "
        + Headline.num(m.get("mean").asDouble()) + " ± " + Tables.num(m.get("half_width").asDouble())
        + " tokens/s (95% confidence interval of the mean; CV " + Tables.num(100 * m.get("cv").asDouble()) + "%).");
    assertThat(RepeatsCost.costSentence(summary)).startsWith("At 16 concurrent users 1M output tokens cost ")
        .contains(" USD of GPU time at the measured throughput (1 GPU at 2.5 USD per GPU-hour); at the token prices given, ");
  }

  /** A stage at {@code users} whose p50 per-user TPS is 50 and whose 1M output tokens cost {@code gpu}. */
  private static SavedSummary.Stage costed(int index, int users, Cost.Figures tokens, Cost.Figures gpu) {
    SavedSummary.Stage st = HeadlineTest.stage(index, users, 50, 50 * users, Double.NaN);
    StageDetail d = st.detail();
    return new SavedSummary.Stage(st.index(), st.label(), st.metrics(), st.outputTokensPerSecond(), 0, 1, users, 100,
        0, Map.of(), true, Map.of(), new StageDetail(d.loadModel(), d.concurrency(), d.ratePerSecond(),
            d.windowStartSeconds(), d.windowEndSeconds(), true, null, Double.NaN, null, null,
            new Cost.StageCost(tokens, gpu), -1, null));
  }

  private static SavedSummary priced(Cost.Model m, SavedSummary.Stage... stages) {
    SavedSummary s = HeadlineTest.run(false, null, stages);
    return new SavedSummary(s.schemaVersion(), s.toolName(), s.toolVersion(), s.startedAt(), s.endedAt(),
        s.targetUrl(), s.api(), s.model(), false, null, s.stages(), null, null, null, m);
  }

  @Test
  void costSentenceByHand() {
    Cost.Figures gpu1 = new Cost.Figures(0.01, 2.0, 0.01, Double.NaN, 0);
    Cost.Figures gpu25 = new Cost.Figures(0.001, 0.42, 0.001, Double.NaN, 0);
    Cost.Figures tokens = new Cost.Figures(0.0002, 0.5, 0.0002, Double.NaN, 0);
    // Both loads fluid: the answer is the heavier, 25 users.
    assertThat(RepeatsCost.costSentence(priced(new Cost.Model("USD", Double.NaN, Double.NaN, 2, 1, Double.NaN, 1),
        costed(0, 1, null, gpu1), costed(1, 25, null, gpu25))))
        .isEqualTo("At 25 concurrent users 1M output tokens cost about 0.42 USD of GPU time at the measured"
            + " throughput (1 GPU at 2 USD per GPU-hour).");
    assertThat(RepeatsCost.costSentence(priced(new Cost.Model("EUR", 0.1, 0.4, Double.NaN, 1, Double.NaN, 1),
        costed(0, 4, tokens, null))))
        .isEqualTo("At 4 concurrent users 1M output tokens cost about 0.5 EUR at the token prices given (0.1 in,"
            + " 0.4 out per 1M tokens; input included).");
    assertThat(RepeatsCost.costSentence(HeadlineTest.run(false, null, costed(0, 4, tokens, null)))).isNull();
    assertThat(RepeatsCost.repeatsSentence(HeadlineTest.run(false, null, costed(0, 4, tokens, null)))).isNull();
  }

  @Test
  void aRunWithoutRepeatsOrPricesHasNeitherSection() throws Exception {
    SavedSummary plain = HeadlineTest.run(false, null, HeadlineTest.stage(0, 4, 50, 200, Double.NaN));
    String page = HtmlReport.render(plain, null);
    assertThat(page).doesNotContain("id=\"repeats\"").doesNotContain("id=\"cost\"")
        .doesNotContain("def-cost-per-request").doesNotContain("def-error-rate").doesNotContain("href=\"#repeats\"");
    String full = HtmlReport.render(summary, null);
    assertThat(full).contains("<h2 id=\"repeats\">Repeats</h2>").contains("<h2 id=\"cost\">Cost</h2>")
        .contains("<a href=\"#repeats\">Repeats</a> · <a href=\"#cost\">Cost</a>")
        .contains("<p class=\"knee\" id=\"cost-answer\">").contains("<p class=\"knee\" id=\"repeats-answer\">");
    List<String> ids = new ArrayList<>();
    java.util.regex.Matcher links = java.util.regex.Pattern.compile("href=\"#(def-[a-z0-9-]+)\"").matcher(full);
    while (links.find()) {
      ids.add(links.group(1));
      assertThat(full).as(links.group(1)).contains("<dt id=\"" + links.group(1) + "\">");
    }
    assertThat(ids).contains("def-repeat-cv", "def-deployments", "def-cost-per-month");
  }
}
