package dev.tokenmeter.cli;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.run.RunFailedException;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.simulator.GroundTruthFile;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tokenmeter sim ...}: the embedded OpenAI-compatible server. */
@Command(
    name = "sim",
    mixinStandardHelpOptions = true,
    description = "The embedded OpenAI-compatible inference server.",
    subcommands = {SimCommand.Serve.class, PresetsCommand.class})
final class SimCommand {

  /** {@code tokenmeter sim serve}: serve until Ctrl-C. */
  @Command(
      name = "serve",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = {
        "Serves /v1/chat/completions, /v1/completions and /v1/models on 127.0.0.1 until Ctrl-C, streaming",
        "every token when a simulated continuous-batching engine makes it (--model, --gpu, --gpus), or,",
        "with --ttft/--itl or --zero-delay, on a fixed schedule."
      })
  static final class Serve implements Callable<Integer> {
    @Option(names = "--port", description = "TCP port on 127.0.0.1 (default: ${DEFAULT-VALUE}; 0 = any free port).")
    int port = 8000;

    @picocli.CommandLine.Mixin EngineOptions engine = new EngineOptions();

    @Option(names = "--served-model-name", paramLabel = "NAME", description = "Model name served and accepted (default: the preset's Hugging Face name; tokenmeter-sim with a fixed schedule).")
    String servedModelName;

    @Option(names = "--ttft", paramLabel = "DURATION", description = "Fixed schedule: time to first token (50ms when only --itl is given).")
    String ttft;

    @Option(names = "--itl", paramLabel = "DURATION", description = "Fixed schedule: time between tokens (20ms when only --ttft is given).")
    String itl;

    @Option(names = "--zero-delay", description = "Emit every token as fast as possible (client capacity tests).")
    boolean zeroDelay;

    @Option(names = "--zero-delay-batch", paramLabel = "N", description = "With --zero-delay: at most N tokens per flush (default: ${DEFAULT-VALUE}; 1 = one write per token, the costliest stream for a client).")
    int zeroDelayBatch = 32;

    @Option(names = "--io-threads", paramLabel = "N", description = "Event loop threads (default: ${DEFAULT-VALUE}).")
    int ioThreads = 1;

    @Option(names = "--seed", paramLabel = "N", description = "Seed for generated text, lengths and faults (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(names = "--faults", paramLabel = "SPEC", description = "Fault probabilities, e.g. http_429=0.05,disconnect=0.01 (kinds: http_429, http_500, http_503, slow_headers, disconnect, stall, malformed_chunk, error_event).")
    String faults;

    @Option(names = "--ground-truth", paramLabel = "FILE", description = "Write every response's token emission times (JSONL, System.nanoTime) to FILE.")
    Path groundTruth;

    @Override
    public Integer call() throws IOException, InterruptedException {
      boolean fixed = zeroDelay || ttft != null || itl != null;
      String ttftText = ttft == null ? "50ms" : ttft;
      String itlText = itl == null ? "20ms" : itl;
      EngineTiming engineTiming = fixed ? null : new EngineTiming(engine.config(), Ticker.system());
      TimingModel timing =
          zeroDelay
              ? TimingModel.zero()
              : fixed
                  ? TimingModel.fixed(Durations.parseNanos("--ttft", ttftText), Durations.parseNanos("--itl", itlText))
                  : engineTiming;
      String model =
          servedModelName != null
              ? servedModelName
              : fixed ? "tokenmeter-sim" : engineTiming.roofline().config().model().name();
      if (ioThreads < 1) {
        throw new UsageException("--io-threads must be at least 1");
      }
      if (port < 0 || port > 65_535) {
        throw new UsageException("--port " + port + " is not a TCP port: use 1-65535, or 0 for any free port");
      }
      if (zeroDelayBatch < 1) {
        throw new UsageException("--zero-delay-batch must be at least 1, got " + zeroDelayBatch);
      }
      SimConfig.Builder b =
          SimConfig.builder().port(port).servedModelName(model).timing(timing).ioThreads(ioThreads).seed(seed)
              .faults(parseFaults(faults)).zeroDelayBatchTokens(zeroDelayBatch);
      if (engineTiming != null) {
        b.maxModelLen(engineTiming.maxModelLen());
      }
      GroundTruthFile truth = groundTruth == null ? null : new GroundTruthFile(groundTruth);
      if (truth != null) {
        b.groundTruthSink(truth);
      }
      SimServer server;
      try {
        server = SimServer.start(b.build());
      } catch (RuntimeException e) {
        throw new RunFailedException("cannot start the server on 127.0.0.1:" + port + ": " + e.getMessage()
            + ". Is the port taken? Try --port 0.");
      }
      System.err.println(
          "tokenmeter sim: serving '" + model + "' at " + server.baseUrl() + "/v1 ("
              + (zeroDelay
                  ? "zero delay"
                  : fixed
                      ? "TTFT " + ttftText + ", ITL " + itlText
                      : engineTiming.roofline().config().describe() + ", KV cache "
                          + engineTiming.roofline().kvCapacityTokens() + " tokens")
              + "); Ctrl-C to stop");
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    Histogram jitter = server.jitterHistogram();
                    var stats = server.stats();
                    server.close();
                    if (truth != null) {
                      truth.close();
                    }
                    System.err.printf(
                        Locale.ROOT,
                        "%ntokenmeter sim: %d requests, %d tokens, %d connections; emission lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms%s%n",
                        stats.requests(), stats.tokens(), stats.connectionsOpened(),
                        jitter.getValueAtPercentile(50) / 1e6, jitter.getValueAtPercentile(99) / 1e6,
                        jitter.getMaxValue() / 1e6,
                        engineTiming == null
                            ? ""
                            : String.format(Locale.ROOT, "; prefix cache hit rate %.1f%%",
                                100 * engineTiming.prefixCacheHitRate()));
                    stopped.countDown();
                  }));
      stopped.await();
      return 0;
    }

    static Faults parseFaults(String spec) {
      Faults f = Faults.none();
      if (spec == null || spec.isBlank()) {
        return f;
      }
      for (String part : spec.split(",")) {
        String[] kv = part.trim().split("=", 2);
        if (kv.length != 2) {
          throw new UsageException("--faults '" + part + "': expected KIND=PROBABILITY, e.g. http_429=0.05");
        }
        Fault kind;
        try {
          kind = Fault.valueOf(kv[0].trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new UsageException("--faults: unknown kind '" + kv[0].trim()
              + "'; kinds: http_429, http_500, http_503, slow_headers, disconnect, stall, malformed_chunk, error_event");
        }
        double p;
        try {
          p = Double.parseDouble(kv[1].trim());
        } catch (NumberFormatException e) {
          throw new UsageException("--faults: '" + kv[1].trim() + "' is not a probability between 0 and 1");
        }
        if (kind == Fault.NONE || !(p >= 0 && p <= 1)) {
          throw new UsageException("--faults: " + part + " needs a kind and a probability between 0 and 1");
        }
        f = f.with(kind, p);
      }
      return f;
    }
  }
}
