package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.testkit.LoopTurns;
import org.junit.jupiter.api.Test;

/** The server's loops read requests between token writes, not only after a whole tick of them. */
class SimServerLoopTest {
  @Test
  void aTickOfTokenWritesLetsTheLoopReadInBetween() throws Exception {
    int turns = LoopTurns.duringTaskBurst(io -> SimServer.loops(1, io), 640, 100_000);
    assertThat(turns).isGreaterThanOrEqualTo(9);
  }
}
