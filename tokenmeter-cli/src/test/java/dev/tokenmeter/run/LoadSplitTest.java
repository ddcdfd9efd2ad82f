package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.load.ArrivalSchedule;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The load of a stage shared among variants: N/k users, R/k per second, the same arrival offsets. */
class LoadSplitTest {
  private static StagePlan plan(LoadModel load) {
    return new StagePlan(2, load, new StopCondition.Duration(5_000_000_000L), 1_000_000_000L, 500_000_000L, 44);
  }

  @Test
  void closedLoopUsersAreSharedAndEverythingElseKept() {
    StagePlan share = LoadSplit.share(plan(new LoadModel.Closed(12, 7)), 3);
    assertThat(share).isEqualTo(plan(new LoadModel.Closed(4, 7)));
    assertThat(LoadSplit.share(plan(new LoadModel.Closed(5, 0)), 1)).isEqualTo(plan(new LoadModel.Closed(5, 0)));
  }

  @Test
  void openLoopRateAndCapAreSharedAndEveryVariantGetsTheSameOffsets() {
    LoadModel.Open total = new LoadModel.Open(40, new Arrivals.Poisson(), OptionalInt.of(8));
    StagePlan share = LoadSplit.share(plan(total), 2);
    assertThat(share.load()).isEqualTo(new LoadModel.Open(20, new Arrivals.Poisson(), OptionalInt.of(4)));
    // Each variant builds its schedule from the same (share, seed): identical offsets, pairs of arrivals.
    ArrivalSchedule a = ArrivalSchedule.of((LoadModel.Open) share.load(), share.seed());
    ArrivalSchedule b = ArrivalSchedule.of((LoadModel.Open) share.load(), share.seed());
    for (int i = 0; i < 100; i++) {
      assertThat(b.nextOffsetNanos()).isEqualTo(a.nextOffsetNanos());
    }
  }

  @Test
  void theStageLineSaysWhatEachVariantGets() {
    assertThat(LoadSplit.note(plan(new LoadModel.Closed(8, 0)), List.of("a", "b")))
        .isEqualTo(", split over 2 variants (a, b): c=4 each");
    assertThat(LoadSplit.note(plan(new LoadModel.Closed(8, 0)), List.of("a"))).isEmpty();
  }

  @Test
  void totalsThatDoNotDivideAreUsageErrorsNamingTheNearestValid() {
    assertThatThrownBy(() -> LoadSplit.check(null, List.of(6, 7), null, 3)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--concurrency 7 is the total over the 3 variants and must divide evenly: use 6 or 9 (2 or 3 per variant)");
    assertThatThrownBy(() -> LoadSplit.check(null, List.of(1), null, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--concurrency 1 is the total over the 2 variants and must divide evenly: use 2 (1 per variant)");
    assertThatThrownBy(() -> LoadSplit.check(null, List.of(), 5, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--max-concurrency 5 is the total");
    LoadSplit.check(null, List.of(), 4, 2); // any rate divides
    assertThatThrownBy(() -> LoadSplit.check(10L, List.of(), 4, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--variant needs a --duration window");
  }
}
