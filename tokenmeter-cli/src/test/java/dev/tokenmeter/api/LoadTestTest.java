package dev.tokenmeter.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bench from Java against a simulator: summary.json's figures, an SLO met and one missed. */
class LoadTestTest {

  @Test
  void aShortBenchReadsBackSummaryJsonAndJudgesTheSlo(@TempDir Path dir) {
    try (Simulator sim = Simulator.builder().ttft(Duration.ofMillis(100)).itl(Duration.ofMillis(2)).start()) {
      LoadResult r = LoadTest.against(sim.url()).model(sim.model()).concurrency(2)
          .duration(Duration.ofSeconds(3)).warmup(Duration.ofSeconds(1)).options("--output-tokens", "16")
          .slo("ttft.p99<=60s").slo("ttft.p50>=90ms").out(dir).run();
      assertThat(r.completed()).isPositive();
      assertThat(r.failed()).isZero();
      // the simulator's TTFT is 100 ms: the bench measures at least that, and the SLOs agree
      assertThat(r.ttftMillis("p50")).isGreaterThanOrEqualTo(100.0);
      assertThat(r.sloMet()).as(r.describe()).isTrue();
      assertThat(r.summary().path("schema_version").asText()).isNotEmpty();
      assertThat(sim.received()).hasSizeGreaterThanOrEqualTo((int) r.completed());
      LoadResult missed = LoadTest.against(sim.url()).model(sim.model()).concurrency(1)
          .duration(Duration.ofSeconds(1)).warmup(Duration.ZERO).options("--output-tokens", "8")
          .slo("ttft.p99<=10ms").out(dir.resolve("missed")).run();
      assertThat(missed.sloMet()).isFalse();
      assertThat(missed.exitCode()).isEqualTo(3);
      assertThat(missed.describe()).contains("SLO missed").contains("TTFT p50");
    }
  }

  @Test
  void aBenchThatCannotRunSaysWhy(@TempDir Path dir) {
    assertThatThrownBy(() -> LoadTest.against("http://127.0.0.1:1").duration(Duration.ofSeconds(1)).out(dir).run())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot connect");
    assertThatThrownBy(() -> LoadTest.against("localhost:8080"))
        .hasMessageContaining("needs an http(s) URL");
  }
}
