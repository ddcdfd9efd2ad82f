package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

class JitHoldTest {
  private static final long SECOND = 1_000_000_000L;
  /** A JIT that compiles nothing any more. */
  private static final LongSupplier SETTLED = () -> 1_234;

  /** Records what the hold asks of the JVM; refuses every directive when {@code refuse}. */
  private static final class FakeDirectives implements JitHold.Directives {
    final List<String> calls = new ArrayList<>();
    final boolean refuse;

    FakeDirectives(boolean refuse) {
      this.refuse = refuse;
    }

    @Override
    public void prepare() {
      calls.add("prepare");
    }

    @Override
    public boolean add(String json) {
      calls.add("add " + json);
      return !refuse;
    }

    @Override
    public void remove() {
      calls.add("remove");
    }
  }

  @Test
  void onlyOnOneCpuAfterAWarmUpUnlessTurnedOff() {
    FakeDirectives d = new FakeDirectives(false);
    assertThat(JitHold.forStage(5 * SECOND, 1, null, d, SETTLED).active()).isTrue();
    assertThat(JitHold.forStage(5 * SECOND, 1, "true", d, SETTLED).active()).isTrue();
    assertThat(JitHold.forStage(5 * SECOND, 2, null, d, SETTLED).active()).isFalse(); // C2 runs beside the loop
    assertThat(JitHold.forStage(5 * SECOND, 16, null, d, SETTLED).active()).isFalse();
    assertThat(JitHold.forStage(0, 1, null, d, SETTLED).active()).isFalse(); // nothing compiled yet
    assertThat(JitHold.forStage(5 * SECOND, 1, "false", d, SETTLED).active()).isFalse();
    assertThat(JitHold.forStage(5 * SECOND, 1, " FALSE ", d, SETTLED).active()).isFalse();
  }

  @Test
  void holdsC2UntilReleasedOnce() {
    FakeDirectives d = new FakeDirectives(false);
    JitHold hold = JitHold.forStage(5 * SECOND, 1, null, d, SETTLED);
    hold.hold();
    hold.hold(); // a second call pushes nothing more
    assertThat(hold.held()).isTrue();
    assertThat(d.calls).hasSize(1);
    assertThat(d.calls.get(0)).contains("\"c2\"").contains("\"Exclude\": true").contains("\"*.*\"");
    hold.release();
    hold.release();
    assertThat(hold.held()).isFalse();
    assertThat(d.calls).hasSize(2).endsWith("remove");
  }

  @Test
  void aStageThatEndsBeforeItsWarmUpNeverHolds() {
    FakeDirectives d = new FakeDirectives(false);
    JitHold hold = JitHold.forStage(5 * SECOND, 1, null, d, SETTLED);
    hold.release(); // interrupted during the warm-up
    hold.hold(); // the timer fires late
    assertThat(hold.held()).isFalse();
    assertThat(d.calls).isEmpty();
  }

  @Test
  void aRefusedDirectiveIsNotPoppedLater() {
    FakeDirectives d = new FakeDirectives(true);
    JitHold hold = JitHold.forStage(5 * SECOND, 1, null, d, SETTLED);
    hold.hold();
    assertThat(hold.held()).isFalse();
    hold.release();
    assertThat(d.calls).hasSize(1).allMatch(c -> c.startsWith("add")); // no remove: it would pop another's
  }

  @Test
  void anInactiveHoldTouchesNothing() {
    FakeDirectives d = new FakeDirectives(false);
    JitHold hold = JitHold.forStage(5 * SECOND, 4, null, d, SETTLED);
    hold.holdAfter(1);
    hold.hold();
    hold.release();
    assertThat(d.calls).isEmpty();
  }

  @Test
  void settledWhenTheLastTwoSecondsOfReadingsHoldAtMost40MsOfCompiling() {
    long[] millis = {0};
    JitHold hold = JitHold.forStage(5 * SECOND, 1, null, new FakeDirectives(false), () -> millis[0]);
    int readings = (int) (JitHold.LOOKBACK_NANOS / JitHold.POLL_NANOS) + 1; // 9: 2 s apart end to end
    for (int i = 0; i < readings - 1; i++) {
      assertThat(hold.sample()).isFalse(); // not enough readings yet
    }
    assertThat(hold.sample()).isTrue(); // nothing compiled in 2 s
    millis[0] += 41; // a C2 burst
    assertThat(hold.sample()).isFalse();
    for (int i = 0; i < readings - 2; i++) {
      assertThat(hold.sample()).isFalse(); // the burst is still within the last 2 s
    }
    assertThat(hold.sample()).isTrue(); // 8 readings (2 s) after it
    boolean settled = false;
    for (int i = 0; i < readings - 1; i++) {
      millis[0] += 5;
      settled = hold.sample();
    }
    assertThat(settled).isTrue(); // 40 ms over the last 8 intervals: settled, just
    millis[0] += 6;
    assertThat(hold.sample()).isFalse(); // 41 ms over the last 8 intervals
  }

  @Test
  void aJvmThatReportsNoCompileTimeIsNeverSettled() {
    JitHold hold = JitHold.forStage(5 * SECOND, 1, null, new FakeDirectives(false), () -> -1);
    for (int i = 0; i < 20; i++) {
      assertThat(hold.sample()).isFalse();
    }
  }

  @Test
  void holdsWhenTheWarmUpEnds() throws InterruptedException {
    FakeDirectives d = new FakeDirectives(false);
    JitHold hold = JitHold.forStage(1, 1, null, d, SETTLED);
    hold.holdAfter(1_000_000); // 1 ms
    long deadline = System.nanoTime() + 10 * SECOND;
    while (!hold.held() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(hold.held()).isTrue();
    hold.release();
    // what the push needs is loaded first, while the warm-up runs
    assertThat(d.calls).hasSize(3).startsWith("prepare").endsWith("remove");
  }

  @Test
  void aWarmUpOutsideTheStagePreparesOnceAndTheHoldWaitsOnlyForTheJit() throws InterruptedException {
    // a trace replay: its warm-up ran before the stage, which has none of its own
    FakeDirectives d = new FakeDirectives(false);
    JitHold hold = JitHold.forStage(5 * SECOND, 1, null, d, SETTLED);
    hold.prepare();
    hold.prepare();
    assertThat(d.calls).containsExactly("prepare");
    hold.holdAfter(0);
    long deadline = System.nanoTime() + 10 * SECOND;
    while (!hold.held() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(hold.held()).isTrue();
    hold.release();
    assertThat(d.calls).hasSize(3).startsWith("prepare").endsWith("remove");
    // an inactive hold (two CPUs) prepares nothing
    FakeDirectives two = new FakeDirectives(false);
    JitHold.forStage(5 * SECOND, 2, null, two, SETTLED).prepare();
    assertThat(two.calls).isEmpty();
  }

  @Test
  void thePreparedJvmStillTakesTheDirective() throws Exception {
    JitHold.MBeanDirectives jvm = new JitHold.MBeanDirectives();
    jvm.prepare();
    jvm.prepare(); // twice is harmless
    assertThat(JitHold.MBeanDirectives.print()).doesNotContain("Exclude:true");
    assertThat(jvm.add("[{\"match\": \"*.*\", \"c2\": {\"Exclude\": true}}]")).isTrue();
    jvm.remove();
    assertThat(JitHold.MBeanDirectives.print()).doesNotContain("Exclude:true");
  }

  @Test
  void theJvmTakesTheDirectiveAndGivesItBack() throws Exception {
    JitHold.MBeanDirectives jvm = new JitHold.MBeanDirectives();
    String before = JitHold.MBeanDirectives.print();
    assertThat(before).doesNotContain("Exclude:true");
    JitHold hold = JitHold.forStage(5 * SECOND, 1, null, jvm, SETTLED);
    hold.hold();
    try {
      assertThat(hold.held()).isTrue();
      String during = JitHold.MBeanDirectives.print();
      // the pushed directive's c2 block excludes every method
      assertThat(during.substring(during.indexOf("c2 directives:"))).contains("Exclude:true");
    } finally {
      hold.release();
    }
    assertThat(JitHold.MBeanDirectives.print()).isEqualTo(before);
  }
}
