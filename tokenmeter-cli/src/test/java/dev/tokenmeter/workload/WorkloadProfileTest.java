package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The workload profile: quantiles by hand, the JSON round trip, bad files, empirical draws. */
class WorkloadProfileTest {
  private static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");
  @TempDir Path dir;

  @Test
  void quantilesInterpolateBetweenOrderStatistics() {
    // 101 values 1..101: p_k is the value k + 1
    List<Integer> q = WorkloadProfile.Builder.quantiles(IntStream.rangeClosed(1, 101).boxed().toList()).quantiles();
    assertThat(q).hasSize(101).startsWith(1, 2, 3).endsWith(100, 101);
    // two values 10 and 20: p_k = 10 + k/10, rounded half up (p5 = 10.5 -> 11)
    List<Integer> two = WorkloadProfile.Builder.quantiles(List.of(20, 10)).quantiles();
    assertThat(two.get(0)).isEqualTo(10);
    assertThat(two.get(5)).isEqualTo(11);
    assertThat(two.get(50)).isEqualTo(15);
    assertThat(two.get(100)).isEqualTo(20);
  }

  @Test
  void theJsonReadsBackAsItWasWritten() throws Exception {
    WorkloadProfile.Builder b = new WorkloadProfile.Builder();
    for (int i = 0; i < 40; i++) {
      b.add(T0.toEpochMilli() + 90_000L * i, i % 4 == 0 ? "small" : "big", true, 100 + i, 10 + i, i % 2 == 0 ? 50 : -1);
    }
    b.add(T0.toEpochMilli() + 5, "big", false, 7, -1, -1); // failed: an arrival, not a length
    WorkloadProfile p = b.build(T0.minusSeconds(3600), T0.plusSeconds(3600));
    assertThat(p.requests()).isEqualTo(40);
    assertThat(p.meanRatePerSecond()).isCloseTo(40 / 3510.0, within(1e-12)); // 41 arrivals, 3,510 s apart
    assertThat(p.ratePerSecondByHourUtc()[10]).isCloseTo(41 / 3510.0, within(1e-12));
    assertThat(p.ratePerSecondByHourUtc()[9]).isNaN();
    assertThat(p.models()).containsEntry("small", 0.25).containsEntry("big", 0.75);
    // cached 50 of the even requests' prompts: 20 x 50 over Σ (100 + even i)
    assertThat(p.cachedTokenShare()).isCloseTo(1000.0 / IntStream.range(0, 20).map(i -> 100 + 2 * i).sum(), within(1e-12));
    Path f = dir.resolve("p.json");
    Files.writeString(f, p.toJson());
    WorkloadProfile back = WorkloadProfile.read(f);
    assertThat(back.input()).isEqualTo(p.input());
    assertThat(back.output()).isEqualTo(p.output());
    assertThat(back.meanRatePerSecond()).isEqualTo(p.meanRatePerSecond());
    assertThat(back.ratePerSecondByHourUtc()).containsExactly(p.ratePerSecondByHourUtc());
    assertThat(back.models()).isEqualTo(p.models());
    assertThat(back.cachedTokenShare()).isEqualTo(p.cachedTokenShare());
    assertThat(back.since()).isEqualTo(T0.minusSeconds(3600));
  }

  /**
   * Two conversations by hand: "a" of 3 turns (think 2 s, then 5 s), "b" of 10 turns (think 1 s
   * each), interleaved in start order, plus unkeyed and failed requests.
   */
  @Test
  void conversationsAreTurnsThinkTimesAndCachedSharesByTurn() throws Exception {
    WorkloadProfile.Builder b = new WorkloadProfile.Builder();
    long t = T0.toEpochMilli();
    // a: starts 0, 3,000, 9,000; each answer lasts 1,000 ms; prompts 100, 200, 300; cached 0, 96, 192
    b.add(t, "m", true, 100, 10, 0, "a", t + 1_000);
    long bStart = t + 500;
    for (int k = 0; k < 10; k++) { // b: each turn 500 ms, then 1,000 ms of thought; prompt 100, cached 50 after turn 1
      long start = bStart + 1_500L * k;
      if (k == 2) {
        b.add(t + 3_000, "m", true, 200, 10, 96, "a", t + 4_000);
        b.add(t + 3_100, "m", false, 50, -1, -1, "a", -1); // failed: not a turn
      }
      if (k == 6) {
        b.add(t + 9_000, "m", true, 300, 10, 192, "a", t + 10_000);
      }
      b.add(start, "m", true, 100, 10, k == 0 ? 0 : 50, "b", start + 500);
    }
    b.add(t + 20_000, "m", true, 100, 10, -1); // unkeyed, no cached report
    WorkloadProfile p = b.build(T0, T0.plusSeconds(60));
    ConversationProfile c = p.conversationsOrNull();
    assertThat(c).isNotNull();
    assertThat(c.conversations()).isEqualTo(2);
    assertThat(c.keyedShare()).isEqualTo(13 / 14.0);
    assertThat(c.turns().quantiles().getFirst()).isEqualTo(3);
    assertThat(c.turns().quantiles().getLast()).isEqualTo(10);
    // gaps: a 2,000 and 5,000; b nine of 1,000
    assertThat(c.thinkTimeMillis()).hasSize(101);
    assertThat(c.thinkTimeMillis().getFirst()).isEqualTo(1_000);
    assertThat(c.thinkTimeMillis().get(50)).isEqualTo(1_000);
    assertThat(c.thinkTimeMillis().getLast()).isEqualTo(5_000);
    double[] byTurn = c.cachedShareByTurn();
    assertThat(byTurn).hasSize(ConversationProfile.TURN_CAP + 1);
    assertThat(byTurn[0]).isZero();
    assertThat(byTurn[1]).isCloseTo((96 + 50) / 300.0, within(1e-12));
    assertThat(byTurn[2]).isCloseTo((192 + 50) / 400.0, within(1e-12));
    assertThat(byTurn[3]).isEqualTo(0.5);
    assertThat(byTurn[8]).as("turns 9 and 10 together").isEqualTo(0.5);
    // what each turn added: a 100, 200 - (100 + 10) = 90, 300 - (200 + 10) = 90; b 100, then
    // 100 - (100 + 10) < 1, so 1 nine times (b resends no history: its prompts do not grow)
    assertThat(c.messageTokensOrNull().quantiles().getFirst()).isEqualTo(1);
    assertThat(c.messageTokensOrNull().quantiles().get(75)).isEqualTo(90);
    assertThat(c.messageTokensOrNull().quantiles().getLast()).isEqualTo(100);
    assertThat(c.messageTokensOrNull().mean()).isBetween(1.0, 100.0);

    Path f = dir.resolve("c.json");
    Files.writeString(f, p.toJson());
    ConversationProfile back = WorkloadProfile.read(f).conversationsOrNull();
    assertThat(back.conversations()).isEqualTo(2);
    assertThat(back.keyedShare()).isEqualTo(c.keyedShare());
    assertThat(back.turns()).isEqualTo(c.turns());
    assertThat(back.thinkTimeMillis()).isEqualTo(c.thinkTimeMillis());
    assertThat(back.cachedShareByTurn()).containsExactly(byTurn);
    assertThat(back.messageTokensOrNull()).isEqualTo(c.messageTokensOrNull());
  }

  @Test
  void aWorkloadWithoutKeysHasNoConversations() {
    WorkloadProfile p = new WorkloadProfile.Builder().add(T0.toEpochMilli(), "m", true, 5, 5, -1).build(T0, T0);
    assertThat(p.conversationsOrNull()).isNull();
    assertThat(p.toJson()).doesNotContain("conversations");
  }

  @Test
  void aSingleRequestHasNoRateAndNoCompletedOneNoProfile() {
    WorkloadProfile one = new WorkloadProfile.Builder().add(T0.toEpochMilli(), "m", true, 5, 5, -1).build(T0, T0);
    assertThat(one.meanRatePerSecond()).isNaN();
    assertThat(one.cachedTokenShare()).isNaN();
    assertThat(one.toJson()).contains("\"mean_rate_per_s\" : null").contains("\"cached_token_share\" : null");
    assertThatThrownBy(() -> new WorkloadProfile.Builder().add(0, "m", false, 5, -1, -1).build(T0, T0))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void badFilesAreOneLineNamingTheFileAndTheFix() throws Exception {
    Path missing = dir.resolve("missing.json");
    assertThatThrownBy(() -> WorkloadProfile.read(missing)).isInstanceOf(WorkloadException.class)
        .hasMessage("--workload " + missing + ": no such file; write one with 'tokenmeter proxy export-workload --out FILE' (docs/PROXY.md)");
    assertThat(message("{not json")).startsWith("--workload ").contains(": not JSON (");
    assertThat(message("{\"format\":\"other\"}")).contains("not a workload profile (its \"format\" is not \"tokenmeter-workload-profile/1\")");
    String head = "{\"format\":\"tokenmeter-workload-profile/1\",\"window\":{\"since\":\"2026-11-25T10:00:00Z\","
        + "\"until\":\"2026-11-25T11:00:00Z\"},";
    assertThat(message(head + "\"input_tokens\":{\"quantiles\":[5,3]},\"output_tokens\":{\"quantiles\":[1,2]}}"))
        .contains("input_tokens: quantiles must be whole numbers of tokens, at least 1, ascending; got [5, 3]");
    assertThat(message(head + "\"input_tokens\":{\"quantiles\":[1,2.5]},\"output_tokens\":{\"quantiles\":[1,2]}}"))
        .contains("input_tokens.quantiles holds '2.5', not a whole number of tokens");
    assertThat(message(head + "\"input_tokens\":{\"quantiles\":[1,2]}}")).contains("output_tokens.quantiles is missing");
    assertThat(message(head.replace("2026-11-25T10:00:00Z", "yesterday")
        + "\"input_tokens\":{\"quantiles\":[1,2]},\"output_tokens\":{\"quantiles\":[1,2]}}"))
        .contains("window.since 'yesterday' is not a UTC time like 2026-11-25T10:00:00Z");
  }

  private String message(String content) throws Exception {
    Path f = dir.resolve("bad.json");
    Files.writeString(f, content);
    try {
      WorkloadProfile.read(f);
      throw new AssertionError("read " + content);
    } catch (WorkloadException e) {
      assertThat(e.getMessage()).doesNotContain("\n").endsWith("(docs/PROXY.md)");
      return e.getMessage();
    }
  }

  @Test
  void empiricalDrawsStayInsideTheQuantilesAndFollowThem() {
    LengthSpec.Empirical e = new LengthSpec.Empirical(List.of(10, 20, 40));
    assertThat(e.mean()).isEqualTo(22.5); // (15 + 30) / 2
    assertThat(e.describe()).isEqualTo("empirical(median 20, 10..40)");
    SplittableRandom r = new SplittableRandom(1);
    int[] draws = IntStream.range(0, 20_000).map(i -> e.sample(r)).toArray();
    assertThat(Arrays.stream(draws).min().getAsInt()).isGreaterThanOrEqualTo(10);
    assertThat(Arrays.stream(draws).max().getAsInt()).isLessThanOrEqualTo(40);
    // half the mass below the middle quantile, and the mean of the piecewise-uniform distribution
    assertThat(Arrays.stream(draws).filter(d -> d < 20).count() / 20_000.0).isCloseTo(0.5, within(0.02));
    assertThat(Arrays.stream(draws).average().getAsDouble()).isCloseTo(22.5, within(0.3));
    assertThatThrownBy(() -> new LengthSpec.Empirical(List.of(3))).hasMessageContaining("at least 2 quantiles");
    assertThatThrownBy(() -> new LengthSpec.Empirical(new ArrayList<>(List.of(0, 2)))).hasMessageContaining("at least 1");
  }
}
