package dev.tokenmeter.scrape;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.scrape.Reading.Histogram;
import dev.tokenmeter.scrape.Reading.Value;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Each known server's {@code /metrics}, as its documentation shows it (samples written by hand in
 * src/test/resources/dev/tokenmeter/scrape/), read in tokenmeter's common names.
 */
class ServerKindTest {

  static Exposition sample(String name) throws IOException {
    try (InputStream in = ServerKindTest.class.getResourceAsStream(name)) {
      return PromText.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static Reading read(String name) throws IOException {
    Exposition e = sample(name);
    return ServerKind.detect(e).read(e, 42);
  }

  @Test
  void vllmV1SumsItsEnginesAndPrefersTheNewNames() throws IOException {
    Exposition e = sample("vllm-v1.txt");
    assertThat(ServerKind.detect(e)).isEqualTo(ServerKind.VLLM);
    Reading r = read("vllm-v1.txt");
    assertThat(r.atNanos()).isEqualTo(42);
    assertThat(r.value(Value.RUNNING)).isEqualTo(16);
    assertThat(r.value(Value.WAITING)).isEqualTo(7);
    assertThat(r.value(Value.KV_CACHE_USAGE)).as("kv_cache_usage_perc over the deprecated gpu_").isEqualTo(0.42);
    assertThat(r.value(Value.PREFIX_CACHE_QUERIES)).isEqualTo(20000);
    assertThat(r.value(Value.PREFIX_CACHE_HITS)).isEqualTo(5000);
    assertThat(r.value(Value.PREEMPTIONS)).isEqualTo(3);
    assertThat(r.value(Value.PROMPT_TOKENS)).isEqualTo(51200);
    assertThat(r.value(Value.GENERATION_TOKENS)).isEqualTo(25600);
    assertThat(r.histograms()).containsOnlyKeys(Histogram.values());
    assertThat(r.histograms().get(Histogram.TPOT).count()).as("inter_token_latency: the newer TPOT").isEqualTo(2500);
    assertThat(r.histograms().get(Histogram.QUEUE_TIME).quantile(0.5)).isCloseTo(0.3 + 0.2 * 10 / 40, within(1e-9));
    assertThat(r.raw()).isEmpty();
  }

  @Test
  void vllmV0KeepsItsOlderNames() throws IOException {
    Reading r = read("vllm-v0.txt");
    assertThat(r.value(Value.KV_CACHE_USAGE)).isEqualTo(0.25);
    assertThat(r.value(Value.PREFIX_CACHE_HIT_RATE)).isEqualTo(0.5);
    assertThat(r.histograms().get(Histogram.TPOT).quantile(0.5)).isCloseTo(0.01, within(1e-12));
  }

  @Test
  void sglang() throws IOException {
    Reading r = read("sglang.txt");
    assertThat(ServerKind.detect(sample("sglang.txt"))).isEqualTo(ServerKind.SGLANG);
    assertThat(r.value(Value.RUNNING)).isEqualTo(162);
    assertThat(r.value(Value.WAITING)).isEqualTo(2826);
    assertThat(r.value(Value.KV_CACHE_USAGE)).isEqualTo(0.28);
    assertThat(r.value(Value.PREFIX_CACHE_HIT_RATE)).isEqualTo(0.0075);
    assertThat(r.value(Value.GENERATION_TOKENS)).isEqualTo(7.557572e6);
    assertThat(r.histograms()).containsOnlyKeys(Histogram.TTFT, Histogram.TPOT);
    assertThat(r.histograms().get(Histogram.TTFT).quantile(0.5)).isCloseTo(2.5, within(1e-9));
  }

  @Test
  void tgiCountsTokensFromItsHistogramsSums() throws IOException {
    Reading r = read("tgi.txt");
    assertThat(ServerKind.detect(sample("tgi.txt"))).isEqualTo(ServerKind.TGI);
    assertThat(r.value(Value.RUNNING)).isEqualTo(8);
    assertThat(r.value(Value.WAITING)).isEqualTo(3);
    assertThat(r.value(Value.PROMPT_TOKENS)).isEqualTo(1600);
    assertThat(r.value(Value.GENERATION_TOKENS)).isEqualTo(3072);
    assertThat(r.value(Value.KV_CACHE_USAGE)).isNaN();
    assertThat(r.histograms()).containsOnlyKeys(Histogram.QUEUE_TIME, Histogram.TPOT);
    // 12 requests: rank 6 lies in (0.01, 0.1], 4 of its 6
    assertThat(r.histograms().get(Histogram.QUEUE_TIME).quantile(0.5)).isCloseTo(0.01 + 0.09 * 4 / 6, within(1e-12));
  }

  @Test
  void llamaCpp() throws IOException {
    Reading r = read("llamacpp.txt");
    assertThat(ServerKind.detect(sample("llamacpp.txt"))).isEqualTo(ServerKind.LLAMA_CPP);
    assertThat(r.value(Value.RUNNING)).isEqualTo(4);
    assertThat(r.value(Value.WAITING)).isEqualTo(46);
    assertThat(r.value(Value.KV_CACHE_USAGE)).isEqualTo(0.63);
    assertThat(r.value(Value.PROMPT_TOKENS)).isEqualTo(96641);
    assertThat(r.value(Value.GENERATION_TOKENS)).isEqualTo(23210);
    assertThat(r.histograms()).isEmpty();
  }

  @Test
  void tritonHasQueueTimeOnlyAsARunningTotal() throws IOException {
    Reading r = read("triton.txt");
    assertThat(ServerKind.detect(sample("triton.txt"))).isEqualTo(ServerKind.TRITON);
    assertThat(r.value(Value.WAITING)).isEqualTo(3);
    assertThat(r.value(Value.QUEUE_MICROS_TOTAL)).isEqualTo(800000);
    assertThat(r.value(Value.REQUESTS_FINISHED)).isEqualTo(80);
  }

  @Test
  void anUnknownServerKeepsItsGaugesAndCountersRaw() throws IOException {
    Reading r = read("unknown.txt");
    assertThat(ServerKind.detect(sample("unknown.txt"))).isEqualTo(ServerKind.UNKNOWN);
    assertThat(r.values()).isEmpty();
    assertThat(r.raw()).containsEntry("my_server_queue_depth{pool=\"a\"}", 5.0)
        .containsEntry("my_server_queue_depth{pool=\"b\"}", 2.0)
        .containsEntry("my_server_requests_total", 1027.0)
        .doesNotContainKey("my_server_latency_seconds_sum");
  }

  @Test
  void anUnknownServerKeepsAtMostSoManySeries() {
    StringBuilder text = new StringBuilder("# TYPE g gauge\n");
    for (int i = 0; i < Reading.MAX_RAW + 10; i++) {
      text.append("g{i=\"").append(i).append("\",q=\"a\\\"b\"} ").append(i).append('\n');
    }
    Reading r = ServerKind.UNKNOWN.read(PromText.parse(text.toString()), 0);
    assertThat(r.raw()).hasSize(Reading.MAX_RAW).containsKey("g{i=\"0\",q=\"a\\\"b\"}");
  }

  @Test
  void wireNamesGoBothWays() {
    for (ServerKind k : ServerKind.values()) {
      assertThat(ServerKind.ofWireName(k.wireName())).isEqualTo(k);
      assertThat(k.displayName()).isNotBlank();
    }
    assertThat(ServerKind.LLAMA_CPP.wireName()).isEqualTo("llamacpp");
    assertThat(ServerKind.ofWireName("ollama")).isEqualTo(ServerKind.UNKNOWN);
    assertThat(ServerKind.VLLM.names(Value.KV_CACHE_USAGE)).first().isEqualTo("vllm:kv_cache_usage_perc");
    assertThat(ServerKind.LLAMA_CPP.names(Histogram.TTFT)).isEmpty();
    assertThat(Value.RUNNING.gauge()).isTrue();
    assertThat(Value.PREEMPTIONS.gauge()).isFalse();
  }
}
