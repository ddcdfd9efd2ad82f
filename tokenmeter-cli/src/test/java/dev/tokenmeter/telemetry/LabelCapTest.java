package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class LabelCapTest {
  @Test
  void keepsTheFirstDistinctValuesAndFoldsTheRest() {
    LabelCap cap = new LabelCap(2);
    assertThat(cap.fold("a")).isEqualTo("a");
    assertThat(cap.fold("a")).isEqualTo("a");
    assertThat(cap.fold("b")).isEqualTo("b");
    assertThat(cap.fold("c")).isEqualTo("other");
    assertThat(cap.fold("a")).isEqualTo("a");
    assertThat(cap.fold(null)).isEqualTo("");
    assertThat(cap.size()).isEqualTo(2);
  }

  @Test
  void underRacesExactlyMaxValuesAreAdmittedAndEachValueAlwaysFoldsTheSame() throws Exception {
    LabelCap cap = new LabelCap(10);
    int threads = 4;
    CountDownLatch go = new CountDownLatch(1);
    ConcurrentHashMap<String, Set<String>> seen = new ConcurrentHashMap<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int round = 0; round < 50; round++) {
          for (int v = 0; v < 100; v++) {
            String value = "v" + v;
            seen.computeIfAbsent(value, k -> ConcurrentHashMap.newKeySet()).add(cap.fold(value));
          }
        }
      });
      w.start();
      workers.add(w);
    }
    go.countDown();
    for (Thread w : workers) {
      w.join();
    }
    assertThat(cap.size()).isEqualTo(10);
    long kept = seen.entrySet().stream().filter(e -> e.getValue().equals(Set.of(e.getKey()))).count();
    long folded = seen.values().stream().filter(s -> s.equals(Set.of("other"))).count();
    assertThat(kept).isEqualTo(10);
    assertThat(folded).isEqualTo(90);
  }

  @Test
  void aCapBelowOneIsRefused() {
    assertThatThrownBy(() -> new LabelCap(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
