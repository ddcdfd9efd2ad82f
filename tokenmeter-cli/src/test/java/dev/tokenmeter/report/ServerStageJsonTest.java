package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.scrape.Reading;
import dev.tokenmeter.scrape.ServerKind;
import dev.tokenmeter.scrape.ServerStage;
import org.junit.jupiter.api.Test;

/** {@code stages[].server}: in the schema, read back as written, and said in words. */
class ServerStageJsonTest {

  @Test
  void aSummaryWithServerMetricsMatchesTheSchema() throws Exception {
    JsonNode doc = SummarySchemaTest.MAPPER.readTree(SummaryJsonWriter.toJson(SampleRun.withServer()));
    JsonNode schema = SummarySchemaTest.MAPPER.readTree(java.nio.file.Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, doc)).isEmpty();
    assertThat(doc.at("/stages/0/server/gauges/waiting/mean").asDouble()).isEqualTo(5.25);
    assertThat(doc.at("/stages/0/server/latency_ms/queue_time/p50").asDouble()).isEqualTo(610);
    assertThat(doc.at("/stages/0/server/latency_ms/ttft/mean").isNull()).isTrue();
    assertThat(doc.at("/stages/0/server/time_series/kv_cache_usage/1").isNull()).isTrue();
    assertThat(doc.at("/stages/1/server/ttft_decomposition").isNull()).isTrue();
    assertThat(doc.at("/stages/1/server/time_series/raw").has("my_queue{pool=\"a\"}")).isTrue();
    assertThat(SummarySchemaTest.MAPPER.readTree(SummaryJsonWriter.toJson(SampleRun.summary())).at("/stages/0")
        .has("server")).isFalse();
  }

  @Test
  void whatIsWrittenIsReadBack() throws Exception {
    JsonNode doc = SummarySchemaTest.MAPPER.readTree(SummaryJsonWriter.toJson(SampleRun.withServer()));
    ServerStage written = SampleRun.vllmStage();
    ServerStage read = ServerStageJson.read(doc.at("/stages/0/server"));
    assertThat(read.server()).isEqualTo(ServerKind.VLLM);
    assertThat(read.windowScrapes()).isEqualTo(10);
    assertThat(read.gauges()).isEqualTo(written.gauges());
    assertThat(read.deltas()).isEqualTo(written.deltas());
    assertThat(read.prefixCacheHitRate()).isEqualTo(0.125);
    assertThat(read.latencies()).isEqualTo(written.latencies());
    assertThat(read.decomposition()).isEqualTo(written.decomposition());
    assertThat(read.series().waiting()).containsExactly(3, 6, 8);
    assertThat(read.series().kvCacheUsage()[1]).isNaN();
    ServerStage unknown = ServerStageJson.read(doc.at("/stages/1/server"));
    assertThat(unknown.server()).isEqualTo(ServerKind.UNKNOWN);
    assertThat(unknown.decomposition()).isNull();
    assertThat(unknown.series().raw().get("my_queue{pool=\"a\"}")).containsExactly(4, 5);
    assertThat(ServerStageJson.read(null)).isNull();
    assertThat(ServerStageJson.read(doc.at("/stages/0/missing"))).isNull();
    assertThat(ServerStageJson.wireName(Reading.Value.KV_CACHE_USAGE)).isEqualTo("kv_cache_usage");
  }

  @Test
  void theWordsSayTheStateAndWhereTheTtftWent() {
    ServerStage s = SampleRun.vllmStage();
    assertThat(ServerWords.decomposition(s)).isEqualTo("Of 840 ms TTFT p50, 610 ms were queueing in the server"
        + " (vLLM queue time), 180 ms prefill, 50.0 ms network and client.");
    assertThat(ServerWords.state(s)).isEqualTo("Server (vLLM, 10 scrapes in the window): queue depth mean 5.3, max 8;"
        + " running mean 2, max 2; KV cache 41% mean, 63% max; 1 preemption; prefix-cache hit rate 13%.");
    assertThat(ServerWords.state(SampleRun.unknownStage()))
        .isEqualTo("Server (unknown server, 2 scrapes in the window): 1 series kept as they are.");
    assertThat(ServerWords.decomposition(SampleRun.unknownStage())).isNull();
    ServerStage noPrefill = new ServerStage(ServerKind.TGI, 3, s.gauges(), java.util.Map.of(), Double.NaN,
        s.latencies(), new ServerStage.Decomposition(300, 350, "TGI queue time", Double.NaN, -50, java.util.List.of()), s.series());
    assertThat(ServerWords.decomposition(noPrefill)).isEqualTo("Of 300 ms TTFT p50, 350 ms were queueing in the"
        + " server (TGI queue time), -50.0 ms prefill, network and client. (The server's medians add up to more than"
        + " the client's: a median of sums is not the sum of medians, and the server's histogram buckets are coarse.)");
    assertThat(ServerWords.state(noPrefill)).doesNotContain("preemption").doesNotContain("hit rate");
    ServerStage means = new ServerStage(ServerKind.VLLM, 3, s.gauges(), s.deltas(), Double.NaN, s.latencies(),
        new ServerStage.Decomposition(60, 2, "vLLM queue time", 40, 18, java.util.List.of("queue", "prefill")),
        s.series());
    assertThat(ServerWords.decomposition(means)).isEqualTo("Of 60.0 ms TTFT p50, 2.0 ms were queueing in the server"
        + " (vLLM queue time), 40.0 ms prefill, 18.0 ms network and client. (Queue and prefill: the server's exact"
        + " mean, which lies in the histogram bucket of the median and places it more finely than the bucket can.)");
  }
}
