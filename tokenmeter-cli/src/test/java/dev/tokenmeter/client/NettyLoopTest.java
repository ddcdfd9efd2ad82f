package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.testkit.LoopTurns;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;

/** The client's loop reads its sockets between queued tasks, not only after all of them. */
class NettyLoopTest {
  private static final int TASKS = 640;
  private static final long SPIN_NANOS = 100_000; // 64 ms of tasks in all

  @Test
  void aBurstOfTasksLetsTheLoopPollItsSocketsInBetween() throws Exception {
    int turns = LoopTurns.duringTaskBurst(io -> NettyLoop.group(io, r -> daemon(r)), TASKS, SPIN_NANOS);
    // One poll per 64 tasks (6.4 ms) once the 1 ms quantum is spent: 10 for 640 tasks.
    assertThat(turns).isGreaterThanOrEqualTo(TASKS / 64 - 1);
  }

  @Test
  void nettysDefaultRunsTheWholeBurstFirst() throws Exception {
    // The control: Netty's 1 s default quantum runs all 64 ms of tasks before the next poll.
    int turns = LoopTurns.duringTaskBurst(io -> new MultiThreadIoEventLoopGroup(1, io), TASKS, SPIN_NANOS);
    assertThat(turns).isZero();
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "loop-test");
    t.setDaemon(true);
    return t;
  }
}
