package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Decisions of DriftCheck and the rolling window of DriftMonitor, on a fake clock. */
class DriftMonitorTest {
  private static final DriftBaseline FIXED_512 = new DriftBaseline(filled(200, 512), filled(200, 256),
      Map.of("llama", 200L), 4, 4, "512", "256", "test");

  private static double[] filled(int n, double v) {
    double[] a = new double[n];
    Arrays.fill(a, v);
    return a;
  }

  private static MeteredRequest request(long atMillis, String model, int in, int out, int inFlight) {
    return MeteredRequestBuilder.chat("acme", model, "u").id("r" + atMillis).startedAt(atMillis).finishReason("length")
        .tokens(in, out, -1, -1).source(null).times(0, 1_000_000, 1e7, 2_000_000).chunks(out).inFlightAtStart(inFlight)
        .build();
  }

  @Test
  void longerPromptsDriftWithTheRatioInWords() {
    List<DriftSample.Request> live = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      live.add(new DriftSample.Request(i, "llama", 1195 + i % 10, 256, 3));
    }
    DriftReport r = DriftCheck.compare(FIXED_512, DriftSample.of(live), java.time.Instant.EPOCH);
    assertThat(r.tooFew()).isFalse();
    assertThat(r.driftedDimensions()).containsExactly("input_tokens");
    DriftReport.Lengths in = (DriftReport.Lengths) r.findings().get(0);
    assertThat(in.ratio()).isBetween(2.33, 2.35); // 1199.5 / 512
    assertThat(in.sentence()).startsWith("prompts are 2.3x longer than the 512 tokens you benchmarked")
        .endsWith("your TTFT SLO was verified for 512");
    assertThat(r.lines()).anyMatch(l -> l.startsWith("  ok    output_tokens: outputs match"))
        .anyMatch(l -> l.contains("shared-prefix share: not compared"));
  }

  @Test
  void fewerThanTheMinimumDecidesNothing() {
    List<DriftSample.Request> live = new ArrayList<>();
    for (int i = 0; i < DriftCheck.MIN_REQUESTS - 1; i++) {
      live.add(new DriftSample.Request(i, "other", 5000, 10, 40));
    }
    DriftReport r = DriftCheck.compare(FIXED_512, DriftSample.of(live), java.time.Instant.EPOCH);
    assertThat(r.tooFew()).isTrue();
    assertThat(r.drifted()).isFalse();
    assertThat(r.lines().get(0)).contains("only 49 completed requests");
  }

  @Test
  void modelMixAndConcurrencyDrift() {
    List<DriftSample.Request> live = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      live.add(new DriftSample.Request(i, i % 2 == 0 ? "llama" : "mistral", 512, 256, 11)); // 12 in flight
    }
    DriftReport r = DriftCheck.compare(FIXED_512, DriftSample.of(live), java.time.Instant.EPOCH);
    assertThat(r.driftedDimensions()).containsExactly("model", "concurrency");
    assertThat(r.findings().get(2).sentence()).startsWith("50% of requests go to models the benchmark did not run (mistral;");
    assertThat(r.findings().get(3).sentence()).startsWith("concurrency is 3.0x higher than the highest you benchmarked");
  }

  @Test
  void theMonitorNoticesAChangeOnceAndWhenItClears() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    List<DriftNotice> notices = new ArrayList<>();
    List<DriftReport> checks = new ArrayList<>();
    DriftMonitor m = new DriftMonitor(FIXED_512, new DriftMonitor.Settings(Duration.ofMinutes(5), 100, 50), clock,
        new DriftMonitor.Listener() {
          @Override
          public void checked(DriftReport report) {
            checks.add(report);
          }

          @Override
          public void notice(DriftNotice notice) {
            notices.add(notice);
          }
        });
    long t = clock.instant().toEpochMilli();
    for (int i = 0; i < 100; i++) {
      m.accept(request(t, "llama", 1200, 256, 3));
    }
    assertThat(checks).hasSize(2);
    assertThat(notices).hasSize(1); // the second check found the same drift: no second notice
    assertThat(notices.get(0).line()).startsWith("drift notice: prompts are 2.3x longer than the 512 tokens");
    assertThat(notices.get(0).cleared()).isFalse();
    // six minutes on, the old requests have left the window; the new ones match the benchmark
    clock.advance(Duration.ofMinutes(6));
    t = clock.instant().toEpochMilli();
    for (int i = 0; i < 51; i++) { // the first is checked at once (a minute since the last check), alone
      m.accept(request(t, "llama", 512, 256, 3));
    }
    assertThat(m.last().requests()).isEqualTo(51);
    assertThat(notices).hasSize(2);
    assertThat(notices.get(1).cleared()).isTrue();
    assertThat(notices.get(1).line()).contains("matches the benchmark again");
  }

  @Test
  void failedRequestsAreLeftOutAndTheWindowKeepsTheNewest() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    DriftMonitor m = new DriftMonitor(FIXED_512, new DriftMonitor.Settings(Duration.ofHours(1), 60, 1000), clock,
        new DriftMonitor.Listener() {
          @Override
          public void checked(DriftReport report) {}

          @Override
          public void notice(DriftNotice notice) {}
        });
    long t = clock.instant().toEpochMilli();
    MeteredRequest failed = MeteredRequestBuilder.chat("acme", "llama", "u").id("x").startedAt(t)
        .failed(dev.tokenmeter.core.request.ErrorClass.values()[0], 500).error("boom").tokens(9999, -1, -1, -1)
        .times(0, -1, Double.NaN, -1).build();
    m.accept(failed);
    for (int i = 0; i < 80; i++) {
      m.accept(request(t, "llama", 512, 256, 3));
    }
    assertThat(m.check().requests()).isEqualTo(60);
  }
}
