package dev.tokenmeter.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The workers of {@code bench --workers N} together send the single run's arrivals, each once:
 * worker i's schedule is arrivals i, i+N, ... of the whole schedule, and its request ids are the
 * arrivals' run-wide numbers.
 */
class ShardTest {
  private static final int ARRIVALS = 2_000;

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 7})
  void theWorkersArrivalsAreTheWholeSchedule(int workers) {
    for (Arrivals arrivals : List.of(new Arrivals.Constant(), new Arrivals.Poisson(), new Arrivals.Gamma(0.5))) {
      double rate = 12.0;
      ArrivalSchedule whole = ArrivalSchedule.of(new LoadModel.Open(rate, arrivals, OptionalInt.empty()), 42);
      List<Long> expected = new ArrayList<>();
      for (int k = 0; k < ARRIVALS; k++) {
        expected.add(whole.nextOffsetNanos());
      }
      TreeMap<Long, Long> byId = new TreeMap<>();
      for (int i = 0; i < workers; i++) {
        Shard shard = new Shard(i, workers);
        ArrivalSchedule part = ArrivalSchedule.of(
            new LoadModel.Open(rate / workers, arrivals, OptionalInt.empty()), 42, shard);
        for (long local = 0; local < ARRIVALS / workers; local++) {
          assertThat(byId.put(shard.id(local), part.nextOffsetNanos())).as("id sent twice").isNull();
        }
      }
      long n = (long) (ARRIVALS / workers) * workers;
      assertThat(byId.keySet()).as(arrivals.label()).containsExactlyElementsOf(
          java.util.stream.LongStream.range(0, n).boxed().toList());
      for (long id = 0; id < n; id++) {
        assertThat((double) byId.get(id)).as("arrival %d of %s", id, arrivals.label())
            .isCloseTo(expected.get((int) id), org.assertj.core.data.Offset.offset(1.0)); // rate/N·N may differ by 1 ulp
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 3})
  void aShardOutsideTheWorkersIsRefused(int index) {
    assertThatThrownBy(() -> new Shard(index, 3)).isInstanceOf(IllegalArgumentException.class);
  }
}
