package dev.tokenmeter.cli;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.run.ServeRun;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.simulator.GroundTruthFile;
import dev.tokenmeter.simulator.OutputLengths;
import dev.tokenmeter.simulator.PromptCounter;
import dev.tokenmeter.simulator.PromptTokens;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.TimingModel;
import dev.tokenmeter.tokenizer.Tokenizer;
import dev.tokenmeter.tokenizer.TokenizerResolver;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
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
      abbreviateSynopsis = true,
      sortOptions = false,
      description = {
        "Serves an OpenAI-compatible streaming API on 127.0.0.1 from a simulated inference engine until Ctrl-C.",
        "/v1/chat/completions, /v1/completions and /v1/models stream every token when a simulated continuous-batching engine makes it (--model, --gpu, --gpus), or, with --ttft/--itl or --zero-delay, on a fixed schedule. GET /metrics serves vLLM's Prometheus metrics computed from the engine (docs/SIM-SERVE.md, \"/metrics\")."
      },
      footerHeading = "%nExamples:%n",
      footer = {
        "  tokenmeter sim serve --port 8000",
        "  tokenmeter sim serve --model llama-3.1-70b --gpu h100-sxm --gpus 4 \\",
        "      --port 8000",
        "  tokenmeter sim serve --zero-delay --port 8000"
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

    @Option(names = "--tokenizer", paramLabel = "SPEC", description = "Counts prompt tokens (usage.prompt_tokens, prefill, the context limit) with this tokenizer, bench's --tokenizer specs. Default: the one bench uses for the served model (--tokenizer-map, the Hugging Face cache, the built-in map), else bench's heuristic estimate. Chat adds 4 tokens a message and 3 (docs/TOKENIZERS.md).")
    String tokenizer;

    @Option(names = "--tokenizer-map", paramLabel = "FILE", description = "Model names or globs to tokenizers, as bench's --tokenizer-map.")
    Path tokenizerMap;

    @Option(names = "--parallel-tool-calls", paramLabel = "SPEC", description = "Tool calls in each answer that calls tools: N or uniform:MIN,MAX, drawn per request (default: 1); one where the request forbids parallel calls (parallel_tool_calls false, Anthropic's disable_parallel_tool_use). See docs/SIM-SERVE.md, Parallel tool calls.")
    String parallelToolCalls;

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
      PromptCounter counter = promptCounter(tokenizer, tokenizerMap, model);
      SimConfig.Builder b =
          SimConfig.builder().port(port).servedModelName(model).timing(timing).ioThreads(ioThreads).seed(seed)
              .faults(parseFaults(faults)).zeroDelayBatchTokens(zeroDelayBatch).promptCounter(counter)
              .parallelToolCalls(parallelToolCalls(parallelToolCalls));
      if (engineTiming != null) {
        b.maxModelLen(engineTiming.maxModelLen());
      }
      GroundTruthFile truth = groundTruth == null ? null : new GroundTruthFile(groundTruth);
      if (truth != null) {
        b.groundTruthSink(truth);
      }
      String what = zeroDelay
          ? "zero delay"
          : fixed
              ? "TTFT " + ttftText + ", ITL " + itlText
              : engineTiming.roofline().config().describe() + ", KV cache "
                  + engineTiming.roofline().kvCapacityTokens() + " tokens";
      System.err.println("tokenmeter sim: prompt tokens counted with " + counter.name() + " ("
          + (tokenizer != null ? "--tokenizer" : "as bench counts '" + model + "'")
          + "), plus " + PromptTokens.FRAMING_PER_MESSAGE + " a chat message and " + PromptTokens.REPLY_PRIMING
          + " priming the reply");
      ServeRun.serveUntilStopped(b.build(), what, engineTiming, truth, System.err);
      return Main.EXIT_OK;
    }

    /**
     * {@code --tokenizer} resolved as bench resolves it, else the tokenizer bench infers for the
     * served model, else bench's heuristic: bench and the server then count a prompt alike.
     */
    static PromptCounter promptCounter(String spec, Path mapFile, String model) {
      TokenizerResolver resolver = TokenizerResolver.system(mapFile);
      Tokenizer t = spec != null ? resolver.resolve(spec) : resolver.forModel(model).orElse(null);
      return WorkloadOptions.promptCounter(t);
    }

    /** {@code --faults}, a usage error naming the flag when it does not parse. */
    static Faults parseFaults(String spec) {
      try {
        return Faults.parse(spec);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--faults " + e.getMessage());
      }
    }
  }

  /** {@code --parallel-tool-calls}: {@code N} or {@code uniform:MIN,MAX}, each 1 to 64; null: 1. */
  static OutputLengths parallelToolCalls(String spec) {
    if (spec == null) {
      return OutputLengths.fixed(1);
    }
    String s = spec.strip();
    try {
      if (s.startsWith("uniform:")) {
        String[] p = s.substring("uniform:".length()).split(",", -1);
        if (p.length == 2) {
          int min = Integer.parseInt(p[0].strip());
          int max = Integer.parseInt(p[1].strip());
          if (min >= 1 && max >= min && max <= 64) {
            return OutputLengths.uniform(min, max);
          }
        }
      } else {
        int n = Integer.parseInt(s);
        if (n >= 1 && n <= 64) {
          return OutputLengths.fixed(n);
        }
      }
    } catch (NumberFormatException e) {
      // the line below says what is wanted
    }
    throw new UsageException("--parallel-tool-calls '" + spec + "' is not a count of tool calls: give N or"
        + " uniform:MIN,MAX with 1 <= MIN <= MAX <= 64, e.g. --parallel-tool-calls 3");
  }
}
