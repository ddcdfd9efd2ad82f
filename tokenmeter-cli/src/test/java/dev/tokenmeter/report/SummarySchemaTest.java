package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.analysis.Metric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** docs/summary.schema.json and the writer agree, both ways, and every field is described. */
class SummarySchemaTest {
  static final ObjectMapper MAPPER = new ObjectMapper();
  static JsonNode schema;
  static String json;

  @BeforeAll
  static void load() throws Exception {
    schema = MAPPER.readTree(Path.of("docs/summary.schema.json").toFile());
    json = SummaryJsonWriter.toJson(SampleRun.summary());
  }

  @Test
  void producedSummaryMatchesTheSchema() throws Exception {
    assertThat(JsonSchemaSubset.check(schema, MAPPER.readTree(json))).isEmpty();
  }

  @Test
  void simulatedSummaryMatchesTheSchema() throws Exception {
    JsonNode doc = MAPPER.readTree(SummaryJsonWriter.toJson(SampleRun.simulated()));
    assertThat(JsonSchemaSubset.check(schema, doc)).isEmpty();
    assertThat(doc.at("/settings/simulation/kv_cache_tokens").asLong()).isEqualTo(442_704);
    assertThat(doc.at("/settings/simulation/note").asText()).contains("virtual time");
    assertThat(MAPPER.readTree(json).at("/settings/simulation").isNull()).isTrue();
  }

  @Test
  void gpuFiguresMatchTheSchemaAndReadBack() throws Exception {
    JsonNode doc = MAPPER.readTree(SummaryJsonWriter.toJson(SampleRun.withGpu()));
    assertThat(JsonSchemaSubset.check(schema, doc)).isEmpty();
    JsonNode gpu = doc.at("/stages/0/gpu");
    assertThat(gpu.get("source").asText()).isEqualTo("dcgm");
    assertThat(gpu.get("energy_source").asText()).isEqualTo("counter");
    assertThat(gpu.get("energy_j").asDouble()).as("2 s at 780 W").isEqualTo(1560);
    assertThat(gpu.get("joules_per_output_token").asDouble()).isEqualTo(0.5);
    assertThat(gpu.get("per_gpu").size()).isEqualTo(2);
    assertThat(doc.at("/stages/1").has("gpu")).isFalse();
    dev.tokenmeter.scrape.GpuStage back = GpuStageJson.read(gpu);
    assertThat(back.joulesPerOutputToken()).isEqualTo(0.5);
    assertThat(back.series().powerWatts()).containsExactly(780, 780, 780, 780, 780);
    assertThat(GpuWords.stage(back, "USD")).isEqualTo("GPUs (DCGM, 2): 780 W mean, 780 W peak, util 89%; 0.50 J per"
        + " output token (energy counter), 2,000 tokens/s per kW, energy 0.0000 USD per 1M output tokens"
            .replace("0.0000", String.format(java.util.Locale.ROOT, "%.4f", 0.5e6 / 3.6e6 * 0.12)));
  }

  @Test
  void analysedSummaryMatchesTheSchema() throws Exception {
    JsonNode doc = MAPPER.readTree(SummaryJsonWriter.toJson(SampleRun.analysed()));
    assertThat(JsonSchemaSubset.check(schema, doc)).isEmpty();
    assertThat(doc.at("/slo/objectives/0/name").asText()).isEqualTo("ttft.p99");
    assertThat(doc.at("/slo/stages").size()).isEqualTo(2);
    assertThat(doc.at("/slo/stages/0/checks").size()).isEqualTo(3);
    assertThat(doc.at("/slo/search/probes").size()).isEqualTo(2);
    assertThat(doc.at("/sweep/points").size()).isEqualTo(2);
    assertThat(doc.at("/sweep/knee/statement").asText()).isNotEmpty();
    JsonNode plain = MAPPER.readTree(json);
    assertThat(plain.get("slo").isNull()).isTrue();
    assertThat(plain.get("sweep").isNull()).isTrue();
  }

  @Test
  void checkerCatchesMissingExtraAndMistypedFields() throws Exception {
    ObjectNode doc = (ObjectNode) MAPPER.readTree(json);
    ObjectNode ttft = (ObjectNode) doc.at("/stages/0/metrics/ttft_ms");
    ttft.remove("p99");
    ((ObjectNode) doc.at("/stages/0/throughput")).put("tokens_per_fortnight", 1);
    ((ObjectNode) doc.at("/stages/0/requests")).put("completed", "many");
    ((ObjectNode) doc.at("/stages/1/histograms/ttft")).put("unit", "furlongs");
    List<String> errors = JsonSchemaSubset.check(schema, doc);
    assertThat(errors)
        .containsExactlyInAnyOrder(
            "$.stages[0].metrics.ttft_ms: required property p99 is missing",
            "$.stages[0].throughput: property tokens_per_fortnight is not in the schema",
            "$.stages[0].requests.completed: expected \"integer\", got STRING",
            "$.stages[1].histograms.ttft.unit: \"furlongs\" is not one of "
                + "[\"ns\",\"milli_tokens_per_s\",\"tokens\",\"turns\"]");
  }

  @Test
  void everyPropertyIsDescribed() {
    List<String> undescribed = new ArrayList<>();
    walk(schema, "$", undescribed);
    assertThat(undescribed).isEmpty();
  }

  @Test
  void everyRecordedMetricHasADocumentedDistributionAndHistogram() throws Exception {
    JsonNode metrics = schema.at("/properties/stages/items/properties/metrics/properties");
    JsonNode stage = MAPPER.readTree(json).at("/stages/0");
    for (Metric m : Metric.values()) {
      boolean clientLag = m == Metric.SEND_LAG || m == Metric.LOOP_LAG;
      JsonNode where = clientLag ? schema.at(
          "/properties/stages/items/properties/client_health/properties") : metrics;
      assertThat(where.has(m.reportKey())).as(m.reportKey()).isTrue();
      assertThat(stage.at("/histograms/" + m.wireName()).isObject()).as(m.wireName()).isTrue();
    }
  }

  /** Collects schema paths of properties, items and definitions that lack a description. */
  private static void walk(JsonNode node, String path, List<String> out) {
    if (!node.isObject()) {
      return;
    }
    for (String group : new String[] {"properties", "$defs"}) {
      for (Map.Entry<String, JsonNode> e : node.path(group).properties()) {
        if (!e.getValue().has("description")) {
          out.add(path + "." + e.getKey());
        }
        walk(e.getValue(), path + "." + e.getKey(), out);
      }
    }
    for (String single : new String[] {"items", "additionalProperties"}) {
      JsonNode child = node.get(single);
      if (child != null && child.isObject()) {
        if (!child.has("description") && child.size() > 0 && child.has("type")) {
          out.add(path + "." + single);
        }
        walk(child, path + "." + single, out);
      }
    }
  }
}
