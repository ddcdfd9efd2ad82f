package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.DoublePredicate;
import org.junit.jupiter.api.Test;

/** The capacity search driven by a fake "meets the SLO" function with a known answer. */
class LoadSearchTest {

  /** Runs the search to its end; returns the loads probed, in order. */
  private static List<LoadSearch.Probe> drive(LoadSearch search, DoublePredicate meets) {
    List<LoadSearch.Probe> done = new ArrayList<>();
    OptionalDouble next;
    while ((next = search.next(done)).isPresent()) {
      double load = next.getAsDouble();
      done.add(new LoadSearch.Probe(load, meets.test(load)));
    }
    return done;
  }

  private static List<Double> loads(List<LoadSearch.Probe> probes) {
    return probes.stream().map(LoadSearch.Probe::load).toList();
  }

  @Test
  void concurrencyUpTo37FindsExactly37InTwelveProbes() {
    LoadSearch s = new LoadSearch(1, 512, true, 0, 30);
    List<LoadSearch.Probe> probes = drive(s, c -> c <= 37);
    // Doubling 1..64 (7 probes), then bisecting 32..64: 48 40 36 38 37 (5 probes).
    assertThat(loads(probes)).containsExactly(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 48.0, 40.0, 36.0, 38.0, 37.0);
    assertThat(LoadSearch.best(probes)).isEqualTo(37);
    assertThat(LoadSearch.lowestFailure(probes)).isEqualTo(38);
    assertThat(s.converged(probes)).isTrue();
  }

  @Test
  void everyAnswerIsFoundExactlyWithinTheBounds() {
    for (int answer = 3; answer <= 100; answer++) {
      int a = answer;
      List<LoadSearch.Probe> probes = drive(new LoadSearch(3, 100, true, 0, 30), c -> c <= a);
      assertThat(LoadSearch.best(probes)).as("answer %d", a).isEqualTo(a);
      // ⌈log2(100/3)⌉ + 1 = 7 growth probes at most, then at most ⌈log2(gap)⌉ ≤ 6 bisections.
      assertThat(probes.size()).as("answer %d", a).isLessThanOrEqualTo(13);
    }
  }

  @Test
  void theLimitCapsGrowthAndAPassAtTheLimitEndsTheSearch() {
    List<LoadSearch.Probe> probes = drive(new LoadSearch(5, 30, true, 0, 30), c -> true);
    assertThat(loads(probes)).containsExactly(5.0, 10.0, 20.0, 30.0);
    assertThat(LoadSearch.best(probes)).isEqualTo(30);
    assertThat(LoadSearch.lowestFailure(probes)).isNaN();
  }

  @Test
  void aFailingStartEndsTheSearchWithNoAnswer() {
    List<LoadSearch.Probe> probes = drive(new LoadSearch(4, 64, true, 0, 30), c -> false);
    assertThat(loads(probes)).containsExactly(4.0);
    assertThat(LoadSearch.best(probes)).isNaN();
  }

  @Test
  void ratesBisectToTheRelativePrecision() {
    LoadSearch s = new LoadSearch(1, 64, false, 0.05, 30);
    List<LoadSearch.Probe> probes = drive(s, r -> r <= 5.3);
    // 1 2 4 8 (fail), then 6 (F), 5 (P), 5.5 (F), 5.25 → 5.25 (P); 5.5 − 5.25 = 0.25 ≤ 5% of 5.25.
    assertThat(loads(probes)).containsExactly(1.0, 2.0, 4.0, 8.0, 6.0, 5.0, 5.5, 5.25);
    assertThat(LoadSearch.best(probes)).isEqualTo(5.25);
  }

  @Test
  void theProbeBudgetStopsTheSearchEarlyAndSaysSo() {
    LoadSearch s = new LoadSearch(1, 512, true, 0, 8);
    List<LoadSearch.Probe> probes = drive(s, c -> c <= 37);
    assertThat(probes).hasSize(8);
    assertThat(LoadSearch.best(probes)).isEqualTo(32);
    assertThat(s.converged(probes)).isFalse();
  }

  @Test
  void aPassAboveAFailureIsIgnored() {
    // Non-monotone: 16 fails, 32 would pass. Growth stops at 16; bisection stays below it.
    List<LoadSearch.Probe> probes = drive(new LoadSearch(1, 64, true, 0, 30), c -> c <= 10 || c == 32);
    assertThat(LoadSearch.best(probes)).isEqualTo(10);
  }

  @Test
  void badBoundsAreRefused() {
    assertThatThrownBy(() -> new LoadSearch(0, 10, true, 0, 5)).hasMessageContaining("0 < start <= limit");
    assertThatThrownBy(() -> new LoadSearch(8, 4, true, 0, 5)).hasMessageContaining("0 < start <= limit");
    assertThatThrownBy(() -> new LoadSearch(1.5, 4, true, 0, 5)).hasMessageContaining("whole numbers");
    assertThatThrownBy(() -> new LoadSearch(1, 4, false, 0, 5)).hasMessageContaining("precision");
  }

  @Test
  void ratesRoundToThreeFigures() {
    assertThat(LoadSearch.roundTo3Figures(3.14159)).isEqualTo(3.14);
    assertThat(LoadSearch.roundTo3Figures(47.25)).isEqualTo(47.3);
    assertThat(LoadSearch.roundTo3Figures(1234.5)).isEqualTo(1230);
  }
}
