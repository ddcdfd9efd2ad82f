package dev.tokenmeter.cli;

import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.run.BenchRun;
import dev.tokenmeter.run.LoadSplit;
import dev.tokenmeter.run.Preflight;
import dev.tokenmeter.run.RunFailedException;
import dev.tokenmeter.run.ServerWatch;
import dev.tokenmeter.run.SloRun;
import dev.tokenmeter.run.TargetException;
import dev.tokenmeter.run.StageSequence;
import dev.tokenmeter.run.VariantReport;
import dev.tokenmeter.run.WorkerLink;
import dev.tokenmeter.run.WorkerSequence;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tokenmeter bench}: load-tests an OpenAI-compatible endpoint. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    abbreviateSynopsis = true,
    sortOptions = false,
    description = {
      "Load-tests an LLM streaming endpoint and reports TTFT, TPOT, ITL and tokens/s per stage.",
      "One stage per --concurrency or --rate value, each with a warm-up, a measured window and a cool-down; writes requests.jsonl, summary.json and report.html to --out DIR (metric definitions: docs/METRICS.md)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter bench --url http://127.0.0.1:8000 \\",
      "      --model meta-llama/Llama-3.1-8B-Instruct --concurrency 1,10,25,50 \\",
      "      --duration 60s --input-tokens 512 --output-tokens 256 \\",
      "      --extra-body '{\"ignore_eos\":true}'",
      "  tokenmeter bench --url http://127.0.0.1:8000 --model M --rate 2,4,8 \\",
      "      --arrival poisson --slo 'ttft.p99<=1s,tps.p10>=30'",
      "  tokenmeter bench --url https://api.openai.com --model gpt-4o-mini \\",
      "      --api-key-env OPENAI_API_KEY --concurrency 4 --requests 40 \\",
      "      --max-requests 40",
      "  tokenmeter bench --url http://127.0.0.1:8000 --model M \\",
      "      --find-max-concurrency 1..256 --slo 'ttft.p99<=1s'"
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @ArgGroup(validate = false, heading = "%nTarget:%n")
  TargetOptions target = new TargetOptions();

  @ArgGroup(validate = false, heading = "%nLoad:%n")
  LoadOptions load = new LoadOptions();

  @ArgGroup(validate = false, heading = "%nWorkload:%n")
  WorkloadOptions workload = new WorkloadOptions();

  @ArgGroup(validate = false, heading = "%nTrace replay:%n")
  TraceOptions trace = new TraceOptions();

  @ArgGroup(validate = false, heading = "%nRepeats:%n")
  RepeatOptions repeats = new RepeatOptions();

  @ArgGroup(validate = false, heading = "%nCost:%n")
  CostOptions.WithGpus cost = new CostOptions.WithGpus();

  @ArgGroup(validate = false, heading = "%nTimeouts and output:%n")
  OutputOptions output = new OutputOptions();

  @ArgGroup(validate = false, heading = "%nSLO gates and capacity search:%n")
  SloOptions slo = new SloOptions();

  @ArgGroup(validate = false, heading = "%nServer metrics:%n")
  ServerMetricsOptions serverMetrics = new ServerMetricsOptions();

  @ArgGroup(validate = false, heading = "%nGPU power and energy:%n")
  GpuMetricsOptions gpuMetrics = new GpuMetricsOptions();

  @ArgGroup(validate = false, heading = "%nLive export (Prometheus, OpenTelemetry):%n")
  ExportOptions export = new ExportOptions();

  @ArgGroup(validate = false, heading = "%nWorkers (load beyond one process or machine):%n")
  WorkersOptions workers = new WorkersOptions();

  /** Set by {@code tokenmeter worker}: this bench is one worker's share, in step with the others. */
  WorkerLink worker;

  @Option(names = "--variant", paramLabel = "NAME[:K=V,...]", description = {
      "An A/B variant, repeatable (at least 2): keys model, url, system (a system prompt, or @FILE), header ('K: V'),"
          + " extra-body (JSON, merged over --extra-body), api-key-env, api (another --api); unset keys inherit the bench's own flags.",
      "All variants run side by side under one stage plan and seed, each with 1/k of --concurrency or --rate and"
          + " the same prompts; results in DIR/NAME/, compared against the first in DIR/compare.md (docs/RESULTS.md)."})
  List<String> variants = new ArrayList<>();

  @Override
  public Integer call() {
    PrintStream err = System.err;
    List<Variant> parsed = variants.isEmpty() ? List.of() : Variant.parseAll(variants);
    if (!parsed.isEmpty()) {
      LoadSplit.check(load.requests, load.concurrency, load.maxConcurrency, parsed.size());
      if (load.maxRequests != null) {
        throw new UsageException("--max-requests bounds one target's requests: it cannot be combined with --variant");
      }
    }
    workload.rateFromProfile(load, System.err);
    workload.conversationsFromProfile(cost, load, spec, System.err);
    var turns = cost.sessionTurns();
    if (turns != null) {
      cost.sessionsAreReal = true;
      load.sessions = true;
      workload.sessions(turns, load.thinkTime());
    }
    if (trace.enabled()) {
      checkTrace(parsed, turns != null || workload.completion());
      load.planned = trace.plan(load, load.maxConcurrency == null ? java.util.OptionalInt.empty()
          : java.util.OptionalInt.of(load.maxConcurrency));
      trace.announce(err);
      if (target.extraBody == null || !target.extraBody.contains("ignore_eos")) {
        err.println("tokenmeter: the trace's output lengths are sent as max_tokens; a server stops earlier at its end of"
            + " text unless told not to: add --extra-body '{\"ignore_eos\":true}' (vLLM, SGLang, sim serve) to replay them exactly");
      }
    }
    int streams = LoadOptions.largestStreams(load.concurrency, load.maxConcurrency, slo.searchMaxConcurrency());
    if (workload.completion()) {
      // Typing bursts are sessions: the think time is the users' pause between bursts.
      load.sessions = true;
      workload.typing(spec.commandLine().getParseResult().hasMatchedOption("--think-time")
          ? load.thinkTime() : WorkloadOptions.COMPLETION_PAUSE);
    }
    SloRun sloRun = slo.resolve(load);
    if (!parsed.isEmpty() && sloRun.gated()) {
      throw new UsageException("--variant cannot be combined with --slo or a capacity search: compare the variants,"
          + " then gate each with its own bench --slo run");
    }
    if (workers.enabled()) {
      workers.check(load, repeats.repeat, sloRun.gated(), !parsed.isEmpty(), serverMetrics.url != null,
          export.metricsPort != null || export.otlp != null);
    }
    StageSequence stages = repeats.sequence(sloRun.stages());
    if (worker != null) {
      stages = new WorkerSequence(stages, worker.shard(), worker::awaitStage);
    }
    var pricing = cost.model();
    workload.validate();
    workload.checkApi(target.api);
    for (Variant v : parsed) {
      if (v.api() != null) {
        workload.checkApi(v.api());
      }
    }
    output.timeouts(); // validate before contacting the server
    output.failFast();
    int eventLoops = output.eventLoops(streams / Math.max(1, parsed.size())); // each variant has its share
    var exportSettings = export.settings();
    Path outDir = output.outDir(Instant.now());
    if (workers.enabled()) {
      EndpointConfig cfg = resolve(target, err, "");
      // Expanded: an @-file's arguments travel to the workers, which may run where the file is not.
      List<String> args = WorkersOptions.workerArgs(spec.root().commandLine().getParseResult().expandedArgs());
      if (target.model == null && cfg.model() != null) {
        args = new ArrayList<>(args);
        args.addAll(List.of("--model", cfg.model())); // the one the pre-flight chose, for every worker
      }
      return Runs.coordinate(workers.settings(args, stages.next(List.of()), outDir), Runs.commandLine(spec));
    }
    List<BenchRun.Lane> lanes;
    dev.tokenmeter.run.Warmup warmup = null;
    if (!parsed.isEmpty() && serverMetrics.url != null) {
      throw new UsageException("--server-metrics scrapes one server: it cannot be combined with --variant");
    }
    if (!parsed.isEmpty() && gpuMetrics.spec != null) {
      throw new UsageException("--gpu-metrics reads one deployment's GPUs: it cannot be combined with --variant");
    }
    var gpus = gpuMetrics.resolve(cost.powerPricePerKwh(), cost.currency.strip());
    ServerWatch.Settings scrape = null;
    if (parsed.isEmpty()) {
      EndpointConfig cfg = resolve(target, err, "");
      scrape = serverMetrics.resolve(cfg);
      var requests = workload.factory(cfg.model());
      if (trace.enabled()) {
        requests = trace.factory(workload.synthesizer());
      }
      err.println("tokenmeter: " + workload.tokenizerLine());
      String heap = TokenizerHeapCheck.warning(workload.tokenizer() == null ? null : workload.tokenizer().name(),
          cfg.model(), System.getProperty(TokenizerHeapCheck.PROPERTY));
      if (heap != null) {
        err.println(heap);
      }
      var described = workload.describe();
      if (trace.enabled()) {
        described.remove("input_tokens");
        described.remove("output_tokens");
        described.remove("shared_prefix_tokens");
        described.putAll(trace.describe());
        described.put("trace_warmup", trace.warmupLabel());
        warmup = trace.warmup(workload.synthesizer());
      }
      lanes = BenchRun.single(cfg, requests, described, outDir);
    } else {
      lanes = VariantLanes.of(parsed, target, workload, outDir, err);
      VariantReport.writeDefinitions(outDir, lanes, parsed.stream().map(Variant::system).toList(), load.seed);
    }
    if (worker != null) {
      worker.awaitStage(0); // the start barrier: every worker's run starts at the agreed instant
    }
    return Runs.bench(outDir, lanes, stages, workload, output, load.seed, pricing, spec, sloRun, scrape, exportSettings,
        eventLoops, gpus, warmup);
  }

  /** The options a trace replay replaces or cannot run with, refused in one line each. */
  private void checkTrace(List<Variant> parsed, boolean turns) {
    if (!parsed.isEmpty()) {
      throw new UsageException("--trace cannot be combined with --variant yet: replay the trace against each target in its own run");
    }
    if (workers.enabled()) {
      throw new UsageException("--trace cannot be split over --workers yet: replay it from one process");
    }
    if (turns) {
      throw new UsageException("--trace holds its own conversations and schedule: drop --turns and --profile");
    }
    if (workload.prompts != null || workload.workloadFile != null || workload.inputTokens != null
        || workload.outputTokens != null || workload.sharedPrefixTokens != 0) {
      throw new UsageException("--trace gives every request's lengths and prompt blocks: drop --prompts, --workload,"
          + " --input-tokens, --output-tokens and --shared-prefix-tokens");
    }
    if (slo.findMaxConcurrency != null || slo.findMaxRate != null) {
      throw new UsageException("--trace is the schedule: it cannot be combined with --find-max-concurrency/--find-max-rate");
    }
  }

  /**
   * {@code target}'s endpoint after the pre-flight: its warnings printed, the model the server
   * lists first when none is given. {@code who} prefixes messages ({@code "variant b: "}).
   */
  static EndpointConfig resolve(TargetOptions target, PrintStream err, String who) {
    EndpointConfig probe = target.config(target.model);
    Preflight.Result pre;
    try {
      pre = Preflight.check(probe, Duration.ofSeconds(10));
    } catch (RunFailedException e) {
      throw who.isEmpty() ? e : new RunFailedException(who + e.getMessage());
    } catch (TargetException e) {
      throw who.isEmpty() ? e : new TargetException(who + e.getMessage());
    }
    pre.warnings().forEach(w -> err.println("tokenmeter: warning: " + who + w));
    String model = target.model;
    if (model == null && !pre.models().isEmpty()) {
      model = pre.models().get(0);
      err.println("tokenmeter: " + who + "--model not given; using the server's first model '" + model + "'");
    }
    if (model == null && probe.api().needsModel()) {
      throw new UsageException(who + "--api " + probe.api().wireName() + " needs a model and the server listed none:"
          + " give --model NAME");
    }
    return target.config(model);
  }
}
