package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code sim serve} on a port already taken: one line naming the port and the fix, no stack trace. */
class ServeRunTest {
  @Test
  void aTakenPortIsARunFailureNamingTheFix() {
    try (SimServer first = SimServer.start(SimConfig.builder().port(0).timing(TimingModel.zero()).build())) {
      SimConfig same = SimConfig.builder().port(first.port()).timing(TimingModel.zero()).build();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      assertThatThrownBy(() -> ServeRun.serveUntilStopped(same, "zero delay", null, null,
              new PrintStream(err, true, StandardCharsets.UTF_8)))
          .isInstanceOf(RunFailedException.class)
          .hasMessageStartingWith("cannot start the server on 127.0.0.1:" + first.port() + ": ")
          .hasMessageEndingWith(". Is the port taken? Try --port 0.");
    }
  }
}
