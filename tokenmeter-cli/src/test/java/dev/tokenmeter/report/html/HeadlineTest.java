package dev.tokenmeter.report.html;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ClientHealth;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.StageDetail;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The plain-words answer for constructed runs: knee found, not found, single stage, partial, simulated. */
class HeadlineTest {

  /** A closed-loop stage at {@code users} with per-user p50 {@code p50} tokens/s (p10 = 0.8 × p50). */
  static SavedSummary.Stage stage(int index, int users, double p50, double aggregate, double wordsPerToken) {
    Distribution decode = p50 < 0 ? Distribution.EMPTY
        : new Distribution(100, p50 * 0.5, p50, p50 * 0.6, p50 * 0.7, p50 * 0.8, p50, p50 * 1.1,
            p50 * 1.2, p50 * 1.3, p50 * 1.4, p50 * 1.5);
    StageDetail detail = new StageDetail("closed", users, Double.NaN, 2, 12, true, "steady", wordsPerToken, null, null);
    return new SavedSummary.Stage(index, "c=" + users, Map.of("decode_tps", decode), aggregate, 0, 1, users,
        100, 0, Map.of(), true, Map.of(), detail);
  }

  static SavedSummary run(boolean partial, SavedSummary.Simulation sim, SavedSummary.Stage... stages) {
    return new SavedSummary("1.1", "tokenmeter", "test", Instant.parse("2025-01-01T00:00:00Z"),
        Instant.parse("2025-01-01T00:01:00Z"), "http://127.0.0.1:8000", "chat", "m", partial,
        partial ? "interrupted" : null, List.of(stages), partial ? "stopped by the user during stage 3" : null, sim);
  }

  @Test
  void kneeBelowThresholdNamesTheLastFluidLoadAndTheKnee() {
    SavedSummary s = run(false, null,
        stage(0, 1, 48, 48, 0.75), stage(1, 10, 45, 450, 0.75), stage(2, 25, 41, 1025, 0.75),
        stage(3, 50, 28, 1400, 0.75));
    assertThat(Headline.sentences(s)).containsExactly(
        "At 25 concurrent users each user sees 41 tokens/s, about 31 words/s (words per token measured on"
            + " this run's text): fluid. All users together get 1,025 tokens/s.",
        "Per-user TPS falls below 30 tokens/s at 50 users (28 tokens/s).");
  }

  @Test
  void kneeByFractionOfTheLightestLoadAlsoSaysWhereItCrossesTheThreshold() {
    // 150 at 1 user; 70 < 75 = half of it at 64 users; below 30 only at 256.
    SavedSummary s = run(false, null,
        stage(0, 1, 150, 150, Double.NaN), stage(1, 8, 140, 1120, Double.NaN),
        stage(2, 64, 70, 4480, Double.NaN), stage(3, 256, 20, 5120, Double.NaN));
    List<String> sentences = Headline.sentences(s);
    assertThat(sentences.get(0)).isEqualTo(
        "At 8 concurrent users each user sees 140 tokens/s: fluid. All users together get 1,120 tokens/s.");
    assertThat(sentences.get(1)).isEqualTo("Per-user TPS falls below half its value at 1 user (75 tokens/s)"
        + " at 64 users (70 tokens/s). It falls below 30 tokens/s at 256 users.");
  }

  @Test
  void noKneeSaysItLiesBeyondTheHighestLoad() {
    SavedSummary s = run(false, null, stage(0, 1, 60, 60, Double.NaN), stage(1, 4, 55, 220, Double.NaN));
    assertThat(Headline.sentences(s)).containsExactly(
        "At 4 concurrent users each user sees 55 tokens/s: fluid. All users together get 220 tokens/s.",
        "Per-user TPS stays at or above 30 tokens/s at every load tested, up to 4 users: the knee lies beyond.");
  }

  @Test
  void belowThresholdEverywhere() {
    SavedSummary s = run(false, null, stage(0, 2, 12, 24, Double.NaN), stage(1, 4, 6.5, 26, Double.NaN));
    assertThat(Headline.sentences(s)).containsExactly(
        "Even at the lightest load, 2 concurrent users, each user sees only 12 tokens/s: readable."
            + " All users together get 24 tokens/s.",
        "Per-user TPS is below 30 tokens/s at every load tested.");
  }

  @Test
  void singleStageAsksForAList() {
    SavedSummary s = run(false, null, stage(0, 16, 8.25, 132, Double.NaN));
    assertThat(Headline.sentences(s)).containsExactly(
        "At 16 concurrent users each user sees 8.3 tokens/s: slow. All users together get 132 tokens/s.",
        "Only one load was run: give a list (for example --concurrency 1,10,25,50) to see where per-user TPS"
            + " falls below 30 tokens/s.");
  }

  @Test
  void stagesAreTakenInLoadOrderWhateverTheRunOrder() {
    SavedSummary s = run(false, null, stage(0, 50, 20, 1000, Double.NaN), stage(1, 1, 50, 50, Double.NaN));
    assertThat(Headline.points(s)).extracting(Headline.Point::label).containsExactly("c=1", "c=50");
    assertThat(Headline.sentences(s).get(1)).isEqualTo("Per-user TPS falls below 30 tokens/s at 50 users (20 tokens/s).");
  }

  @Test
  void simulatedRunSaysWouldSeeAndCarriesTheBanner() throws Exception {
    var sim = new SavedSummary.Simulation("predicted, not measured", "llama-3.1-8b", "h100-sxm", 2, 95.5,
        "Held out by source, the model's median error is 25.0% for TTFT (p90 78.0%).");
    SavedSummary s = run(false, sim, stage(0, 1, 40, 40, Double.NaN), stage(1, 8, 35, 280, Double.NaN));
    assertThat(Headline.sentences(s).get(0)).startsWith("At 8 concurrent users each user would see 35 tokens/s");
    // The simulator's text has one word per token: not a measurement of any model's words.
    SavedSummary oneWordPerToken = run(false, sim, stage(0, 8, 40, 320, 1.0));
    assertThat(Headline.sentences(oneWordPerToken).get(0))
        .contains("about 30 words/s (at 0.75 words per token, a rule of thumb for English text)")
        .doesNotContain("measured on this run's text");
    assertThat(Sections.banner(s)).contains("Simulated, not measured.").contains("llama-3.1-8b on 2 × h100-sxm")
        .contains("96 s of virtual time").contains("predicted, not measured")
        .contains("median error is 25.0% for TTFT (p90 78.0%)");
    assertThat(HtmlReport.render(s, null)).contains("id=\"simulated\"").contains("(simulated)</title>");
  }

  @Test
  void partialRunSaysSoAboveTheAnswer() throws Exception {
    SavedSummary s = run(true, null, stage(0, 1, 40, 40, Double.NaN), stage(1, 8, 35, 280, Double.NaN));
    assertThat(Sections.banner(s)).contains("Partial run (interrupted).")
        .contains("stopped by the user during stage 3. This report covers the 2 stages that finished.");
    String page = HtmlReport.render(s, null);
    assertThat(page.indexOf("id=\"partial\"")).isPositive().isLessThan(page.indexOf("id=\"answer\""));
    assertThat(Sections.banner(run(false, null, stage(0, 1, 40, 40, Double.NaN)))).isEmpty();
  }

  @Test
  void aFailedRunSaysWhyInTheAnswerAndTheTitle() throws Exception {
    SavedSummary.Stage none = new SavedSummary.Stage(0, "c=4", Map.of(), 0, 0, 0, 4, 0, 12,
        Map.of("http_4xx", 12L), false, Map.of(), null);
    String why = "stage 1 stopped: its first 10 requests all failed the same way; the server says: \"no model\"";
    SavedSummary failed = new SavedSummary("1.1", "tokenmeter", "test", Instant.parse("2025-01-01T00:00:00Z"),
        Instant.parse("2025-01-01T00:01:00Z"), "http://127.0.0.1:8000/v1/chat/completions", "chat", null, true,
        "error", List.of(none), why, null);
    assertThat(Headline.sentences(failed)).containsExactly("The run failed: no request completed. " + why);
    assertThat(HtmlReport.title(failed)).isEqualTo("tokenmeter report: http://127.0.0.1:8000/v1/chat/completions (failed)");
    assertThat(HtmlReport.title(run(false, null, stage(0, 1, 40, 40, Double.NaN))))
        .isEqualTo("tokenmeter report: m at http://127.0.0.1:8000");
  }

  @Test
  void noPerUserSpeedWhenNothingCompleted() {
    assertThat(Headline.sentences(run(false, null, stage(0, 4, -1, 0, Double.NaN))))
        .containsExactly("No request completed with at least 2 output tokens, so there is no per-user speed"
            + " to report; see the errors below.");
    assertThat(Headline.sentences(run(true, null))).containsExactly("No stage finished, so there is nothing to report yet.");
  }

  @Test
  void kneeRuleOnPoints() {
    List<Headline.Point> pts = new ArrayList<>();
    double[] perUser = {100, 80, 49, 10};
    for (int i = 0; i < perUser.length; i++) {
      pts.add(new Headline.Point(i, "s" + i, true, i + 1, perUser[i], perUser[i], 0, Double.NaN));
    }
    assertThat(Headline.knee(pts, 30, 0.5)).isEqualTo(new Headline.Knee(2, 50, true));
    assertThat(Headline.knee(pts, 30, 0.05)).isEqualTo(new Headline.Knee(3, 30, false));
    assertThat(Headline.knee(pts.subList(0, 2), 30, 0.5)).isNull();
    assertThat(Headline.feel(30)).isEqualTo("fluid");
    assertThat(Headline.feel(29.9)).isEqualTo("readable");
    assertThat(Headline.feel(9.9)).isEqualTo("slow");
  }

  @Test
  void clientBottleneckIsNamedUnderTheAnswer() throws Exception {
    var healthy = new StageDetail.Health(false, List.of(), Distribution.EMPTY, Distribution.EMPTY, 0.1, 0.05, 0.1, 1e6);
    var busy = new StageDetail.Health(true, List.of("event-loop lag p99 7 ms exceeds 5 ms"), Distribution.EMPTY,
        Distribution.EMPTY, 0.9, 0.45, 0.95, 1e5);
    StageDetail d = new StageDetail("closed", 1, Double.NaN, 0, 10, true, null, Double.NaN, healthy, null);
    var ok = new SavedSummary.Stage(0, "c=1", Map.of(), 40, 0, 1, 1, 10, 0, Map.of(), true, Map.of(), d);
    var bad = new SavedSummary.Stage(1, "c=64", Map.of(), 40, 0, 1, 1, 10, 0, Map.of(), true, Map.of(),
        new StageDetail("closed", 64, Double.NaN, 0, 10, true, null, Double.NaN, busy, null));
    assertThat(Headline.bottleneck(run(false, null, ok))).isNull();
    assertThat(Headline.bottleneck(run(false, null, ok, bad))).isEqualTo("Caution: tokenmeter itself may have"
        + " been the bottleneck at c=64 (see Client health): the server may be faster than these numbers say.");
    assertThat(HtmlReport.render(run(false, null, ok, bad), null)).contains("<p class=\"banner\" id=\"bottleneck\">")
        .contains("<td>client is the bottleneck: event-loop lag p99 7 ms exceeds 5 ms</td>")
        .contains("<td>90.0</td>");
  }

  @Test
  void aOneCpuClientIsNotedInTheHealthTableOnly() throws Exception {
    var one = new StageDetail.Health(false, List.of(), Distribution.EMPTY, Distribution.EMPTY, 0.4, 0.4, 0.3, 1e6, 1);
    var two = new StageDetail.Health(false, List.of(), Distribution.EMPTY, Distribution.EMPTY, 0.4, 0.2, 0.3, 1e6, 2);
    var a = new SavedSummary.Stage(0, "c=100", Map.of(), 40, 0, 1, 1, 10, 0, Map.of(), true, Map.of(),
        new StageDetail("closed", 100, Double.NaN, 0, 10, true, null, Double.NaN, one, null));
    var b = new SavedSummary.Stage(1, "c=200", Map.of(), 40, 0, 1, 1, 10, 0, Map.of(), true, Map.of(),
        new StageDetail("closed", 200, Double.NaN, 0, 10, true, null, Double.NaN, two, null));
    String page = HtmlReport.render(run(false, null, a, b), null);
    assertThat(page).contains("<td>ok; " + Html.esc(ClientHealth.ONE_CPU_NOTE) + "</td>").contains("<td>ok</td>");
    assertThat(page.split(Pattern.quote(Html.esc(ClientHealth.ONE_CPU_NOTE)), -1)).hasSize(2); // once: the c=100 row
    assertThat(Headline.bottleneck(run(false, null, a, b))).isNull(); // a note, not a bottleneck banner
  }

  @Test
  void openLoopLoadsAreRates() {
    StageDetail open = new StageDetail("open", 0, 2.5, 0, 10, true, null, Double.NaN, null, null);
    var st = new SavedSummary.Stage(0, "r=2.5", Map.of(), 10, 0, 2.5, 3, 25, 0, Map.of(), true, Map.of(), open);
    Headline.Point p = Headline.points(run(false, null, st)).get(0);
    assertThat(p.loadPhrase()).isEqualTo("2.5 requests/s");
    assertThat(p.shortLoad()).isEqualTo("2.5 requests/s");
    assertThat(p.closed()).isFalse();
  }
}
