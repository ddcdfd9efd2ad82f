package dev.tokenmeter.cli;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.run.BenchRun;
import dev.tokenmeter.run.LiveExport;
import dev.tokenmeter.run.SloRun;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.PromptTokens;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
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
    abbreviateSynopsis = true,
    sortOptions = false,
    description = {
      "Runs a short concurrency sweep (1, 10, 25, 50 users) against the embedded simulated server.",
      "The server simulates a continuous-batching engine serving --model on --gpus x --gpu (default: Llama 3.1 8B on one H100 SXM): per-user TPS falls as users share each iteration while aggregate TPS climbs. --server-ttft/--server-itl use a fixed schedule instead. Writes the same results folder as bench."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter demo",
      "  tokenmeter demo --model llama-3.1-70b --gpu h100-sxm --gpus 4"
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

  @picocli.CommandLine.Mixin EngineOptions engine = new EngineOptions();

  @Option(names = "--server-ttft", paramLabel = "DURATION", description = "Fixed schedule instead of the engine: time to first token (50ms when only --server-itl is given).")
  String serverTtft;

  @Option(names = "--server-itl", paramLabel = "DURATION", description = "Fixed schedule instead of the engine: time between tokens (20ms when only --server-ttft is given).")
  String serverItl;

  @ArgGroup(validate = false, heading = "%nWorkload:%n")
  WorkloadOptions workload = new WorkloadOptions();

  @ArgGroup(validate = false, heading = "%nRepeats:%n")
  RepeatOptions repeats = new RepeatOptions();

  @ArgGroup(validate = false, heading = "%nCost (GPUs: --gpus):%n")
  CostOptions cost = new CostOptions();

  @ArgGroup(validate = false, heading = "%nOutput:%n")
  OutputOptions output = new OutputOptions();

  @ArgGroup(validate = false, heading = "%nSLO gates and capacity search:%n")
  SloOptions slo = new SloOptions();

  @Override
  public Integer call() {
    PrintStream err = System.err;
    LoadOptions load = new LoadOptions();
    load.concurrency = slo.searching() ? new ArrayList<>() : concurrency; // a search picks its own
    load.duration = duration;
    load.warmup = warmup;
    load.cooldown = cooldown;
    int streams = LoadOptions.largestStreams(concurrency, null, slo.searchMaxConcurrency());
    SloRun sloRun = slo.resolve(load);
    var stages = repeats.sequence(sloRun.stages());
    if (cost.powerPrice != null) {
      throw new UsageException("--power-price prices GPU energy, which demo does not read: use simulate --power-price,"
          + " or bench --gpu-metrics URL --power-price");
    }
    var pricing = cost.model(engine.gpus);
    workload.withDefaults("256", "128");
    if (workload.completion()) {
      workload.typing(WorkloadOptions.COMPLETION_PAUSE); // demo has no --think-time
    }
    workload.validate();
    boolean fixed = serverTtft != null || serverItl != null;
    SimConfig.Builder sim = SimConfig.builder().port(0);
    String model;
    String what;
    if (fixed) {
      String ttftText = serverTtft == null ? "50ms" : serverTtft;
      String itlText = serverItl == null ? "20ms" : serverItl;
      long ttft = Durations.parseNanos("--server-ttft", ttftText);
      long itl = Durations.parseNanos("--server-itl", itlText);
      model = "tokenmeter-demo";
      sim.timing(TimingModel.fixed(ttft, itl));
      what = "TTFT " + ttftText + ", ITL " + itlText + " per token, fixed";
    } else {
      EngineTiming timing = new EngineTiming(engine.config(), Ticker.system());
      model = timing.roofline().config().model().name();
      sim.timing(timing).maxModelLen(timing.maxModelLen());
      what =
          "simulating " + timing.roofline().config().describe() + ", KV cache "
              + timing.roofline().kvCapacityTokens() + " tokens";
    }
    // The served model's tokenizer when known (meta-llama/Llama-3.1-8B-Instruct: from the Hugging
    // Face cache), else the labelled estimate; the simulator counts prompts with the same, so its
    // usage.prompt_tokens is bench's count plus its chat framing (docs/TOKENIZERS.md).
    var requests = workload.factory(model);
    err.println("tokenmeter demo: " + workload.tokenizerLine());
    try (SimServer server = SimServer.start(sim.servedModelName(model).promptCounter(workload.promptCounter()).build())) {
      err.println("tokenmeter demo: embedded server at " + server.baseUrl() + " (" + what + "); it counts prompts"
          + " as bench does, plus " + PromptTokens.FRAMING_PER_MESSAGE + " tokens a chat message and "
          + PromptTokens.REPLY_PRIMING + " priming the reply");
      EndpointConfig cfg =
          new EndpointConfig(
              URI.create(server.baseUrl()), Api.CHAT, model, null, Map.of(), "{\"ignore_eos\":true}",
              true, true, 5_000);
      Path outDir = output.outDir(Instant.now());
      return Runs.bench(outDir, BenchRun.single(cfg, requests, workload.describe(), outDir), stages, workload, output,
          load.seed, pricing, spec, sloRun, null, LiveExport.Settings.NONE, output.eventLoops(streams));
    }
  }
}
