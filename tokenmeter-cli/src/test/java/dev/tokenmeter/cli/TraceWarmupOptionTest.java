package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code bench --trace-warmup}: its parsing and the connections it opens. */
class TraceWarmupOptionTest {
  private static final long S = 1_000_000_000L;

  @Test
  void theBusiestSecondCountsTheMostArrivalsWithinAnyOneSecond() {
    assertThat(TraceOptions.busiestSecond(new long[0])).isZero();
    assertThat(TraceOptions.busiestSecond(new long[] {5 * S})).isEqualTo(1);
    // 0.5, 0.9, 1.2, 1.4 s: four within [0.5, 1.5); a fifth at exactly 1.5 s is a second after the first.
    assertThat(TraceOptions.busiestSecond(new long[] {S / 2, 9 * S / 10, 12 * S / 10, 14 * S / 10, 15 * S / 10}))
        .isEqualTo(4);
    assertThat(TraceOptions.busiestSecond(new long[] {0, 2 * S, 2 * S, 2 * S, 4 * S})).isEqualTo(3);
  }

  @Test
  void aDurationOrOffAnythingElseIsAUsageError() {
    TraceOptions t = new TraceOptions();
    assertThat(t.warmupNanos()).isEqualTo(5 * S); // the default
    assertThat(t.warmupLabel()).isEqualTo("5s");
    t.warmup = "off";
    assertThat(t.warmupNanos()).isZero();
    assertThat(t.warmupLabel()).isEqualTo("off");
    assertThat(t.warmup(null)).isNull();
    t.warmup = "1500ms";
    assertThat(t.warmupNanos()).isEqualTo(3 * S / 2);
    t.warmup = "0s";
    assertThatThrownBy(t::warmupNanos).isInstanceOf(UsageException.class).hasMessageContaining("--trace-warmup");
    t.warmup = "soon"; // Durations' own one-line refusal, which the command line turns into exit 2
    assertThatThrownBy(t::warmupNanos).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--trace-warmup 'soon' is not a duration");
  }
}
