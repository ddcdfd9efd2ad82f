package dev.tokenmeter.run;

import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.GroundTruthFile;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;

/**
 * {@code tokenmeter sim serve}: starts the simulator on its port, says where and how it serves,
 * and serves until Ctrl-C; then closes the server and the ground-truth file and prints what it
 * served and how late its tokens left (emission lateness p50, p99, max). Stateless.
 */
public final class ServeRun {
  private ServeRun() {}

  /**
   * Serves {@code config} until the JVM shuts down (Ctrl-C). {@code what} describes the timing for
   * the banner; {@code engine} (null with a fixed schedule) adds its prefix-cache hit rate to the
   * closing line; {@code truth} (null for none) is closed after the server.
   *
   * @throws RunFailedException when the server cannot start (a taken port, say)
   */
  public static void serveUntilStopped(SimConfig config, String what, EngineTiming engine, GroundTruthFile truth,
      PrintStream err) throws InterruptedException {
    SimServer server;
    try {
      server = SimServer.start(config);
    } catch (Exception e) { // Netty throws its bind failure (an IOException) undeclared
      throw new RunFailedException("cannot start the server on 127.0.0.1:" + config.port() + ": " + e.getMessage()
          + ". Is the port taken? Try --port 0.");
    }
    err.println("tokenmeter sim: serving '" + config.servedModelName() + "' at " + server.baseUrl() + "/v1 (" + what
        + "); Ctrl-C to stop");
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      Histogram jitter = server.jitterHistogram();
      var stats = server.stats();
      server.close();
      if (truth != null) {
        truth.close();
      }
      err.printf(
          Locale.ROOT,
          "%ntokenmeter sim: %d requests, %d tokens, %d connections; emission lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms%s%n",
          stats.requests(), stats.tokens(), stats.connectionsOpened(),
          jitter.getValueAtPercentile(50) / 1e6, jitter.getValueAtPercentile(99) / 1e6, jitter.getMaxValue() / 1e6,
          engine == null ? "" : String.format(Locale.ROOT, "; prefix cache hit rate %.1f%%", 100 * engine.prefixCacheHitRate()));
      stopped.countDown();
    }));
    stopped.await();
  }
}
