package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The counting thread on real threads: bounded by latches, no sleeps. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CountingThreadTest {

  @Test
  void aBlockedCountDoesNotBlockTheSubmitterAndTasksRunInOrder() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    Thread submitter = Thread.currentThread();
    try (CountingThread counting = new CountingThread("test-counter", 4)) {
      counting.execute(() -> {
        await(release);
        ran.add("slow:" + (Thread.currentThread() == submitter));
      });
      counting.execute(() -> ran.add("second"));
      // execute returned although the first task blocks: the caller (an event loop) goes on.
      assertThat(ran).isEmpty();
      release.countDown();
    }
    assertThat(ran).containsExactly("slow:false", "second");
  }

  @Test
  void aFullQueueRunsTheTaskOnTheCallerInsteadOfGrowingOrDropping() {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    List<Thread> where = new CopyOnWriteArrayList<>();
    try (CountingThread counting = new CountingThread("test-counter", 1)) {
      counting.execute(() -> {
        started.countDown();
        await(release);
      });
      await(started); // the thread holds task 1; the queue (capacity 1) is empty
      counting.execute(() -> where.add(Thread.currentThread())); // queued
      counting.execute(() -> where.add(Thread.currentThread())); // full: runs here, now
      assertThat(where).containsExactly(Thread.currentThread());
      assertThat(counting.inlineRuns()).isEqualTo(1);
      release.countDown();
    }
    assertThat(where).hasSize(2);
    assertThat(where.get(1)).isNotEqualTo(Thread.currentThread());
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(5, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
