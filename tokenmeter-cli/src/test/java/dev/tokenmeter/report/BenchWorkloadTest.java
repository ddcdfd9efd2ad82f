package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bench run's workload read back: from requests.jsonl, else from summary.json's histograms. */
class BenchWorkloadTest {
  @TempDir Path dir;

  private static String summary(String histograms, String workload) {
    return """
        {"schema_version":"1.3","tool":{"name":"tokenmeter","version":"x"},"started_at":"2026-11-25T10:00:00Z",
         "ended_at":"2026-11-25T10:01:00Z","target":{"url":"http://127.0.0.1:1","api":"chat","model":"llama"},
         "partial":false,"settings":{"workload":%s},
         "stages":[{"index":0,"label":"c=2","metrics":{},"errors":{},"histograms":{%s},"achieved_concurrency":1.9,
          "throughput":{"output_tokens_per_s":1,"input_tokens_per_s":1,"requests_per_s":1},
          "requests":{"completed":3,"failed":0},"steady_state":{"reached":true}},
          {"index":1,"label":"c=8","metrics":{},"errors":{},"histograms":{},"achieved_concurrency":7.5,
          "throughput":{"output_tokens_per_s":1,"input_tokens_per_s":1,"requests_per_s":1},
          "requests":{"completed":0,"failed":0},"steady_state":{"reached":true}}]}
        """.formatted(workload, histograms);
  }

  private static String histogram(String metric, long... values) {
    Histogram h = new Histogram(3);
    for (long v : values) {
      h.recordValue(v);
    }
    return "\"" + metric + "\":{\"unit\":\"tokens\",\"encoding\":\"" + HistogramCodec.ENCODING + "\",\"data\":\""
        + HistogramCodec.encode(h) + "\"}";
  }

  @Test
  void withoutRequestsJsonlTheHistogramsGiveTheLengths() throws Exception {
    Files.writeString(dir.resolve("summary.json"), summary(histogram("input_tokens", 512, 512, 700)
        + "," + histogram("output_tokens", 20, 30, 40), "{\"input_tokens\":512,\"output_tokens\":\"none\"}"));
    BenchWorkload w = BenchWorkload.read(dir);
    assertThat(w.inputTokens()).containsExactly(512, 512, 700);
    assertThat(w.outputTokens()).containsExactly(20, 30, 40);
    assertThat(w.model()).isEqualTo("llama");
    assertThat(w.achievedConcurrency()).containsExactly(1.9, 7.5);
    assertThat(w.inputSpec()).isEqualTo("512");
    assertThat(w.outputSpec()).isNull();
    assertThat(w.source()).isEqualTo(dir.resolve("summary.json"));
  }

  @Test
  void requestsJsonlGivesTheMeasuredCompletedRequests() throws Exception {
    Files.writeString(dir.resolve("summary.json"), summary("", "{\"input_tokens\":\"uniform:1,9\"}"));
    Files.writeString(dir.resolve("requests.jsonl"), """
        {"id":0,"stage":0,"phase":"warmup","ok":true,"scheduled_at_ms":0,"input_tokens":1,"output_tokens":1}
        {"id":1,"stage":0,"phase":"measured","ok":true,"scheduled_at_ms":1,"input_tokens":5,"output_tokens":6}
        {"id":2,"stage":0,"phase":"measured","ok":false,"error_class":"timeout_total","scheduled_at_ms":2,"input_tokens":7}
        {"id":3,"stage":0,"phase":"measured","ok":true,"scheduled_at_ms":3,"input_tokens":9,"output_tokens":4}
        {"id":4,"stage":0,"phase":"meas
        """);
    BenchWorkload w = BenchWorkload.read(dir);
    assertThat(w.inputTokens()).containsExactly(5, 9);
    assertThat(w.outputTokens()).containsExactly(6, 4);
    assertThat(w.inputSpec()).isEqualTo("uniform:1,9");
  }

  @Test
  void aFolderThatIsNoRunIsOneLine() throws Exception {
    assertThatThrownBy(() -> BenchWorkload.read(dir)).hasMessageContaining("no summary.json there");
    Files.writeString(dir.resolve("summary.json"), "{\"schema_version\":\"9.0\"}");
    assertThatThrownBy(() -> BenchWorkload.read(dir)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--baseline " + dir + ": cannot read the run (unsupported summary.json schema version 9.0); name a"
            + " complete bench run's folder");
  }
}
