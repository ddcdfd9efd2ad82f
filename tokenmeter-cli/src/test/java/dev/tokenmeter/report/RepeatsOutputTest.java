package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.core.analysis.Repeats.Estimate;
import dev.tokenmeter.core.analysis.Repeats.Headline;
import dev.tokenmeter.core.analysis.StageResult;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** summary.json's repeats section (schema, values, absent without repeats) and the console table. */
class RepeatsOutputTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Test
  void repeatsSectionMatchesTheSchemaAndCarriesTheEstimates() throws Exception {
    RunSummary base = SampleRun.summary();
    List<StageResult> stages = base.stages();
    // Two runs of one stage: not a real repeat pair, but the writer only renders what it is given.
    Repeats repeats = new Repeats(2, 0.95, false, List.of(Repeats.aggregate(0, stages, 0.95)));
    RunSummary run =
        new RunSummary(base.tool(), base.startedAt(), base.endedAt(), base.target(), base.commandLine(),
            base.seed(), base.settings(), base.completion(), stages, repeats, null, null, null);
    JsonNode doc = MAPPER.readTree(SummaryJsonWriter.toJson(run));
    JsonNode schema = MAPPER.readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, doc)).isEmpty();

    JsonNode group = doc.at("/repeats/groups/0");
    assertThat(doc.at("/repeats/count").asInt()).isEqualTo(2);
    assertThat(doc.at("/repeats/confidence").asDouble()).isEqualTo(0.95);
    assertThat(group.get("stages").toString()).isEqualTo("[0,1]");
    Estimate ttft = repeats.groups().get(0).estimate(Headline.TTFT_P50);
    JsonNode written = group.at("/metrics/ttft_p50_ms");
    assertThat(written.get("n").asInt()).isEqualTo(2);
    assertThat(written.get("mean").asDouble()).isEqualTo(ttft.mean());
    assertThat(written.get("std_dev").asDouble()).isEqualTo(ttft.stdDev());
    assertThat(written.get("ci_low").asDouble()).isEqualTo(ttft.low());
    assertThat(written.get("ci_high").asDouble()).isEqualTo(ttft.high());
    // The headline TTFT of each stage: from the schedule when its load is open.
    double mean = stages.stream()
        .mapToDouble(r -> r.metric(dev.tokenmeter.core.analysis.LatencyOrigin.headlineOf(r.plan().load()).ttft()).p50())
        .sum() / 2;
    assertThat(written.get("mean").asDouble()).isEqualTo(mean);

    assertThat(MAPPER.readTree(SummaryJsonWriter.toJson(base)).has("repeats")).isFalse();
  }

  @Test
  void tableShowsMeanHalfWidthAndCv() {
    Map<Headline, Estimate> e = new EnumMap<>(Headline.class);
    for (Headline h : Headline.values()) {
      e.put(h, new Estimate(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN));
    }
    e.put(Headline.TTFT_P50, new Estimate(3, 52.25, 1.5, 1.5 / 52.25, 3.7262));
    e.put(Headline.OUTPUT_TPS, new Estimate(3, 1234.4, 0, 0, 0));
    e.put(Headline.ERROR_RATE, new Estimate(3, 0.02, 0.01, 0.5, 0.0248));
    Repeats r = new Repeats(3, 0.9, true, List.of(new Repeats.Group(1, "c=10", List.of(3, 4, 5), e)));
    String table = RepeatsReport.render(r);
    assertThat(table)
        .contains("each stage 3 times (a new seed each time)")
        .contains("90% confidence interval")
        .contains("stage 2  c=10  3 of 3 repeats (runs 4,5,6)");
    assertThat(table.lines()).anySatisfy(l -> assertThat(l).matches(" +TTFT p50 ms +52\\.25 ± 3\\.73 +\\(CV 2\\.87 %\\)"));
    assertThat(table.lines()).anySatisfy(l -> assertThat(l).matches(" +output tok/s +1234 ± 0\\.00 +\\(CV 0\\.00 %\\)"));
    assertThat(table.lines()).anySatisfy(l -> assertThat(l).matches(" +error rate % +2\\.00 ± 2\\.48 +\\(CV 50\\.00 %\\)"));
    assertThat(table).doesNotContain("TPOT"); // no values: no row
  }
}
