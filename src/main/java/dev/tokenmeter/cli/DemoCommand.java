package dev.tokenmeter.cli;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tokenmeter demo}: starts the embedded server on a free loopback port and runs a short
 * concurrency sweep against it, exactly as {@code bench} would against a real server.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs a short concurrency sweep (1, 10, 25, 50 users) against the embedded OpenAI-compatible server.",
      "The embedded server streams each token on a fixed schedule (--server-ttft, --server-itl), so the",
      "numbers measured can be checked against what was sent. Writes the same results folder as bench."
    })
final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--concurrency", split = ",", paramLabel = "N[,N...]", description = "Stages (default: ${DEFAULT-VALUE}).")
  List<Integer> concurrency = new ArrayList<>(List.of(1, 10, 25, 50));

  @Option(names = "--duration", paramLabel = "DURATION", description = "Window per stage (default: ${DEFAULT-VALUE}).")
  String duration = "8s";

  @Option(names = "--warmup", paramLabel = "DURATION", description = "Warm-up per stage (default: ${DEFAULT-VALUE}).")
  String warmup = "2s";

  @Option(names = "--cooldown", paramLabel = "DURATION", description = "Cool-down per stage (default: ${DEFAULT-VALUE}).")
  String cooldown = "1s";

  @Option(names = "--server-ttft", paramLabel = "DURATION", description = "Embedded server's time to first token (default: ${DEFAULT-VALUE}).")
  String serverTtft = "50ms";

  @Option(names = "--server-itl", paramLabel = "DURATION", description = "Embedded server's time between tokens (default: ${DEFAULT-VALUE}).")
  String serverItl = "20ms";

  @ArgGroup(validate = false, heading = "%nWorkload:%n")
  WorkloadOptions workload = defaultWorkload();

  @ArgGroup(validate = false, heading = "%nOutput:%n")
  OutputOptions output = new OutputOptions();

  private static WorkloadOptions defaultWorkload() {
    WorkloadOptions w = new WorkloadOptions();
    w.inputTokens = "256";
    w.outputTokens = "128";
    return w;
  }

  @Override
  public Integer call() {
    PrintStream err = System.err;
    LoadOptions load = new LoadOptions();
    load.concurrency = concurrency;
    load.duration = duration;
    load.warmup = warmup;
    load.cooldown = cooldown;
    var stages = load.stages();
    var requests = workload.factory(null);
    err.println("tokenmeter demo: " + workload.tokenizerLine());
    long ttft = Durations.parseNanos("--server-ttft", serverTtft);
    long itl = Durations.parseNanos("--server-itl", serverItl);
    SimConfig sim =
        SimConfig.builder().port(0).servedModelName("tokenmeter-demo").timing(TimingModel.fixed(ttft, itl)).build();
    try (SimServer server = SimServer.start(sim)) {
      err.println(
          "tokenmeter demo: embedded server at " + server.baseUrl() + " (TTFT " + serverTtft + ", ITL " + serverItl
              + " per token, fixed)");
      EndpointConfig cfg =
          new EndpointConfig(
              URI.create(server.baseUrl()), Api.CHAT, "tokenmeter-demo", null, Map.of(), "{\"ignore_eos\":true}",
              true, true, 5_000);
      return BenchRun.execute(cfg, stages, requests, workload, output, load.seed, spec);
    }
  }
}
