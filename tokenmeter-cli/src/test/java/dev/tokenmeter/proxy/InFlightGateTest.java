package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The in-flight limit: never more holders than the limit, a bounded queue, no lost wake-ups. */
class InFlightGateTest {

  @Test
  void admitsUpToTheLimitQueuesUpToItsBoundAndRefusesTheRest() {
    InFlightGate gate = new InFlightGate(2, 1);
    AtomicInteger granted = new AtomicInteger();
    assertThat(gate.enter(granted::incrementAndGet)).isInstanceOf(InFlightGate.Entry.Admitted.class);
    assertThat(gate.enter(granted::incrementAndGet)).isInstanceOf(InFlightGate.Entry.Admitted.class);
    assertThat(gate.enter(granted::incrementAndGet)).isInstanceOf(InFlightGate.Entry.Queued.class);
    assertThat(gate.enter(granted::incrementAndGet)).isInstanceOf(InFlightGate.Entry.Full.class);
    assertThat(gate.inFlight()).isEqualTo(2);
    assertThat(gate.queued()).isEqualTo(1);
    assertThat(granted).hasValue(0);

    gate.release(); // the slot goes to the waiter, not back to the pool
    assertThat(granted).hasValue(1);
    assertThat(gate.inFlight()).isEqualTo(2);
    assertThat(gate.queued()).isZero();
    gate.release();
    gate.release();
    assertThat(gate.inFlight()).isZero();
  }

  @Test
  void aCancelledWaiterIsNeverGrantedAndAGrantedOneCannotBeCancelled() {
    InFlightGate gate = new InFlightGate(1, 2);
    AtomicInteger first = new AtomicInteger();
    AtomicInteger second = new AtomicInteger();
    gate.enter(() -> { });
    var a = (InFlightGate.Entry.Queued) gate.enter(first::incrementAndGet);
    var b = (InFlightGate.Entry.Queued) gate.enter(second::incrementAndGet);
    assertThat(gate.cancel(a.waiter())).isTrue();
    assertThat(gate.queued()).isEqualTo(1);
    gate.release();
    assertThat(first).hasValue(0);
    assertThat(second).hasValue(1);
    assertThat(gate.cancel(b.waiter())).isFalse(); // it holds the slot: it must release it itself
    assertThat(gate.cancel(a.waiter())).isFalse();
    gate.release();
    assertThat(gate.inFlight()).isZero();
  }

  @Test
  void aQueueOfZeroRefusesAtOnceWhenFull() {
    InFlightGate gate = new InFlightGate(1, 0);
    gate.enter(() -> { });
    assertThat(gate.enter(() -> { })).isInstanceOf(InFlightGate.Entry.Full.class);
  }

  @Test
  void underContentionNoMoreThanTheLimitHoldASlotAndEveryWaiterIsServed() throws Exception {
    int limit = 3;
    int threads = 8;
    int rounds = 20_000;
    InFlightGate gate = new InFlightGate(limit, threads);
    AtomicInteger holders = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger queuedSeen = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < rounds; i++) {
            CompletableFuture<Void> slot = new CompletableFuture<>();
            switch (gate.enter(() -> slot.complete(null))) {
              case InFlightGate.Entry.Admitted a -> slot.complete(null);
              case InFlightGate.Entry.Queued q -> queuedSeen.incrementAndGet();
              case InFlightGate.Entry.Full f -> throw new AssertionError("the queue holds every thread");
            }
            slot.get(10, TimeUnit.SECONDS); // a lost wake-up fails here
            int h = holders.incrementAndGet();
            most.accumulateAndGet(h, Math::max);
            holders.decrementAndGet();
            gate.release();
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(most.get()).isBetween(1, limit);
    assertThat(queuedSeen.get()).as("contention happened").isPositive();
    assertThat(gate.inFlight()).isZero();
    assertThat(gate.queued()).isZero();
  }
}
