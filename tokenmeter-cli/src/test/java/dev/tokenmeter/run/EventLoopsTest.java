package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EventLoopsTest {

  @Test
  void autoIsOneLoopPer256StreamsAtMostOnePerCoreButTwoOnOne() {
    assertThat(EventLoops.auto(100, 16)).isEqualTo(1);
    assertThat(EventLoops.auto(256, 16)).isEqualTo(1);
    assertThat(EventLoops.auto(257, 16)).isEqualTo(2);
    assertThat(EventLoops.auto(1_000, 16)).isEqualTo(4);
    assertThat(EventLoops.auto(10_000, 16)).isEqualTo(16); // one per core
    assertThat(EventLoops.auto(1_000, 2)).isEqualTo(2); // the project's 2-core machines
    assertThat(EventLoops.auto(1_000, 1)).isEqualTo(2); // a client pinned to one CPU
    assertThat(EventLoops.auto(200, 1)).isEqualTo(1);
    assertThat(EventLoops.auto(0, 64)).isEqualTo(1); // an unbounded open loop
    assertThat(EventLoops.auto(Integer.MAX_VALUE, 1)).isEqualTo(2);
  }

  @Test
  void aCountOrAuto() {
    assertThat(EventLoops.resolve("auto", 1_000, 16)).isEqualTo(4);
    assertThat(EventLoops.resolve("auto", 100, 16)).isEqualTo(1);
    assertThat(EventLoops.resolve(" AUTO ", 1_000, 16)).isEqualTo(4);
    assertThat(EventLoops.resolve("3", 10, 2)).isEqualTo(3);
    assertThat(EventLoops.resolve("64", 10, 2)).isEqualTo(64);
  }

  @Test
  void anythingElseNamesTheFix() {
    for (String bad : new String[] {"0", "-1", "65", "two", ""}) {
      assertThatThrownBy(() -> EventLoops.resolve(bad, 10, 2))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("--event-loops '" + bad + "': give auto or a whole number from 1 to 64");
    }
  }
}
