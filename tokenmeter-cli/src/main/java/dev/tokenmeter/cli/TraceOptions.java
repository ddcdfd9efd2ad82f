package dev.tokenmeter.cli;

import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.workload.AheadRequests;
import dev.tokenmeter.workload.PromptSynthesizer;
import dev.tokenmeter.workload.Trace;
import dev.tokenmeter.workload.TraceFormat;
import dev.tokenmeter.workload.TraceWorkload;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * {@code --trace FILE} and its settings, shared by {@code bench} and {@code simulate}: the trace is
 * the schedule (one open-loop stage, or one per {@code --trace-stages} window) and the workload.
 * Call {@link #plan} once the seed is known, then {@link #factory}.
 */
final class TraceOptions {
  /** Prompts built ahead of the schedule, at least: enough for a burst. */
  private static final int AHEAD = 256;
  /**
   * More are built ahead, before the clock starts, while their prompts add up to at most this many
   * tokens (about 16 MB of text): a busy stretch then sends prompts built beforehand, not ones the
   * builder thread is making on the client's CPU as the loop sends.
   */
  static final long AHEAD_TOKENS = 4_000_000;
  /** The most windows --trace-stages may cut: each is a stage of the results. */
  private static final int MAX_STAGES = 1000;

  @Option(names = "--trace", paramLabel = "FILE", description = "Replay a request trace: each record sent at its timestamp (open loop; the trace is the schedule), its prompt of its input length, its output length as max_tokens; records naming prompt blocks (hash_ids) share those blocks' text, so a prefix cache sees the trace's sharing. Formats: docs/TRACES.md.")
  Path file;

  @Option(names = "--trace-format", paramLabel = "NAME", description = "mooncake, bailian, burstgpt, azure or tokenmeter (default: detected from the file's first line).")
  String format;

  @Option(names = "--trace-block-tokens", paramLabel = "N", description = "Tokens per block of the trace's hash_ids (default: the format's own: 512 for Mooncake, 16 for Bailian, a tokenmeter trace's block_tokens, else 512).")
  Integer blockTokens;

  @Option(names = "--trace-speed", paramLabel = "X", description = "Replay X times faster: arrival times divided by X (default: ${DEFAULT-VALUE}).")
  double speed = 1;

  @Option(names = "--trace-window", paramLabel = "FROM..TO", description = "Replay only the records that arrived in [FROM, TO) of the trace's own time, e.g. 10m..20m (either end may be left out).")
  String window;

  @Option(names = "--trace-scale", paramLabel = "S", description = "Replay a seeded share S in (0, 1] of the trace: of its sessions when it names them (all of a session's turns or none), else of its records (default: ${DEFAULT-VALUE}).")
  double scale = 1;

  @Option(names = "--trace-stages", paramLabel = "DURATION", description = "Cut the replay into windows of DURATION of trace time, each reported as a stage (a time series of TTFT, TPOT, throughput and prefix-cache hits); default: one stage.")
  String stages;

  @Option(names = "--trace-warmup", paramLabel = "DURATION|off", description = "Before the trace's clock starts, send"
      + " unmeasured requests for DURATION over as many connections as the trace's busiest second has arrivals (at most "
      + TraceOptions.WARMUP_MAX_CONNECTIONS + "): short prompts of their own, not the trace's, in no stage and not in"
      + " requests.jsonl; the summary states them (trace_warmup_*). The first record is then sent at its offset from the"
      + " clock's start, by a client whose connections are open and whose send path is compiled (default: ${DEFAULT-VALUE}; bench only: simulate's virtual time needs none).")
  String warmup = "5s";

  /** The most connections a trace's warm-up opens. */
  static final int WARMUP_MAX_CONNECTIONS = 256;
  /** A warm-up prompt's length at most (the trace's median when shorter), and its output length. */
  static final int WARMUP_INPUT_TOKENS = 1024;
  static final int WARMUP_OUTPUT_TOKENS = 16;

  private Trace trace;
  private final Map<Arrivals.Trace, List<Trace.Record>> recordsOf = new HashMap<>();
  private long seed;

  boolean enabled() {
    return file != null;
  }

  /**
   * Reads the trace and cuts it into stages; {@code seed} seeds the scale's draws and the blocks'
   * text. Rejects the load options a trace replaces.
   */
  List<StagePlan> plan(LoadOptions load, OptionalInt maxConcurrency) {
    if (!load.concurrency.isEmpty() || !load.rate.isEmpty()) {
      throw new UsageException("--trace is the schedule: drop --concurrency/--rate");
    }
    if (load.duration != null || load.requests != null) {
      throw new UsageException("--trace replays the whole trace: drop --duration/--requests (cut it with --trace-window)");
    }
    this.seed = load.seed;
    warmupNanos(); // a bad --trace-warmup is refused before the trace is read
    if (blockTokens != null && blockTokens < 1) {
      throw new UsageException("--trace-block-tokens must be at least 1, got " + blockTokens);
    }
    Trace t = Trace.read(file, format == null ? null : TraceFormat.parse(format), blockTokens == null ? 0 : blockTokens);
    if (window != null) {
      long[] w = window(window);
      long span = t.spanNanos();
      t = t.window(w[0], w[1]);
      if (t.records().isEmpty()) {
        throw new UsageException(String.format(Locale.ROOT, "--trace-window %s holds no request of %s (its records"
            + " span 0s..%.0fs): widen it", Durations.printable(window), file, span / 1e9));
      }
    }
    t = t.scale(scale, seed);
    this.trace = t;
    long stageNanos = stages == null ? 0 : Durations.parseNanos("--trace-stages", stages);
    if (stages != null && stageNanos <= 0) {
      throw new UsageException("--trace-stages must be a positive duration, got " + stages);
    }
    if (stageNanos > 0 && t.spanNanos() / stageNanos >= MAX_STAGES) {
      throw new UsageException(String.format(Locale.ROOT, "--trace-stages %s cuts %.0f s of trace into more than %d"
          + " stages: give a longer window", Durations.printable(stages), t.spanNanos() / 1e9, MAX_STAGES));
    }
    List<StagePlan> plans = new ArrayList<>();
    long max = load.maxRequests == null ? 0 : load.maxRequests;
    if (stageNanos == 0) {
      plans.add(stage(0, t.speed(speed), -1, max, maxConcurrency));
    } else {
      long end = t.spanNanos();
      for (long from = 0; from <= end; from += stageNanos) {
        Trace part = t.window(from, from + stageNanos).speed(speed);
        plans.add(stage(plans.size(), part, Math.max(1, Math.round(stageNanos / speed)), max, maxConcurrency));
      }
    }
    return plans;
  }

  private StagePlan stage(int index, Trace part, long windowNanos, long max, OptionalInt cap) {
    long[] offsets = part.offsetsNanos();
    Arrivals.Trace arrivals = new Arrivals.Trace(offsets);
    recordsOf.put(arrivals, part.records());
    long last = offsets.length == 0 ? 0 : offsets[offsets.length - 1];
    long duration = windowNanos > 0 ? windowNanos : last + 1; // the last arrival inside the window
    return new StagePlan(index, new LoadModel.Open(arrivals.meanRatePerSecond(), arrivals, cap),
        new StopCondition.Duration(duration), 0, 0, seed + index, max);
  }

  /** The requests of each stage, prompts built by {@code synth} ahead of the schedule. */
  Function<StagePlan, RequestSource> factory(PromptSynthesizer synth) {
    int block = trace.blockTokens();
    long s = seed;
    return plan -> {
      List<Trace.Record> records = recordsOf.get((Arrivals.Trace) ((LoadModel.Open) plan.load()).arrivals());
      return new AheadRequests(new TraceWorkload(records, block, s, synth), records.size(), ahead(records));
    };
  }

  /** How many of {@code records} to build ahead: {@link #AHEAD}, or more while within {@link #AHEAD_TOKENS}. */
  static int ahead(List<Trace.Record> records) {
    long tokens = 0;
    int n = 0;
    for (Trace.Record r : records) {
      tokens += r.inputTokens();
      if (tokens > AHEAD_TOKENS) {
        break;
      }
      n++;
    }
    return Math.max(AHEAD, n);
  }

  /**
   * The requests of each stage for the virtual-time simulator: stand-in prompts whose blocks the
   * simulated prefix cache hashes as the trace shares them ({@link TraceWorkload#standIns}).
   */
  Function<StagePlan, RequestSource> standInFactory() {
    int block = trace.blockTokens();
    long s = seed;
    return plan -> {
      List<Trace.Record> records = recordsOf.get((Arrivals.Trace) ((LoadModel.Open) plan.load()).arrivals());
      return new AheadRequests(TraceWorkload.standIns(records, block, s), records.size(), AHEAD);
    };
  }

  /**
   * The warm-up {@code --trace-warmup} asks for, null when off; after {@link #plan}. Its connections
   * are the most records the replay (at its speed) starts within any one second, its prompts the
   * replay's median input length up to {@link #WARMUP_INPUT_TOKENS}, built by {@code synth}.
   */
  dev.tokenmeter.run.Warmup warmup(PromptSynthesizer synth) {
    long nanos = warmupNanos();
    if (nanos == 0) {
      return null;
    }
    int connections = Math.max(1, Math.min(WARMUP_MAX_CONNECTIONS, busiestSecond(trace.speed(speed).offsetsNanos())));
    int[] inputs = trace.records().stream().mapToInt(Trace.Record::inputTokens).sorted().toArray();
    int input = Math.max(1, Math.min(WARMUP_INPUT_TOKENS, inputs.length == 0 ? 1 : inputs[inputs.length / 2]));
    long s = seed;
    return new dev.tokenmeter.run.Warmup(nanos, connections,
        () -> TraceWorkload.warmup(connections, input, WARMUP_OUTPUT_TOKENS, s, synth));
  }

  /** {@code --trace-warmup} in nanoseconds, 0 for off; a bad value is a usage error. */
  long warmupNanos() {
    String w = warmup.strip();
    if (w.equalsIgnoreCase("off")) {
      return 0;
    }
    long nanos = Durations.parseNanos("--trace-warmup", w);
    if (nanos <= 0) {
      throw new UsageException("--trace-warmup must be a positive duration (e.g. 5s) or off, got " + warmup);
    }
    return nanos;
  }

  /** {@code --trace-warmup} as summary.json's {@code trace_warmup} states it: a duration, or off. */
  String warmupLabel() {
    return warmup.strip().equalsIgnoreCase("off") ? "off" : Durations.printable(warmup.strip());
  }

  /** The most of {@code offsetsNanos} (ascending) that fall within any one second. */
  static int busiestSecond(long[] offsetsNanos) {
    int most = 0;
    for (int from = 0, to = 0; to < offsetsNanos.length; to++) {
      while (offsetsNanos[to] - offsetsNanos[from] >= 1_000_000_000L) {
        from++;
      }
      most = Math.max(most, to - from + 1);
    }
    return most;
  }

  /** The replayed trace, after {@link #plan}. */
  Trace trace() {
    return trace;
  }

  /** For summary.json's workload: where the trace came from and how it was replayed. */
  Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("trace_file", file.toString());
    m.put("trace_format", trace.format().label());
    m.put("trace_requests", trace.records().size());
    m.put("trace_block_tokens", trace.blockTokens());
    m.put("trace_speed", speed);
    m.put("trace_window", window == null ? "all" : window);
    m.put("trace_scale", scale);
    m.put("trace_skipped_rows", trace.skipped());
    long[] reuse = trace.blockReuse();
    m.put("trace_distinct_blocks", reuse[0]);
    m.put("trace_block_references", reuse[1]);
    return m;
  }

  /** One line for the terminal. */
  void announce(PrintStream err) {
    long[] reuse = trace.blockReuse();
    err.println("tokenmeter: " + trace.describe() + (speed == 1 ? "" : ", at " + speed + "x")
        + (reuse[1] == 0 ? "; no prompt blocks named (nothing shared)" : String.format(Locale.ROOT,
            "; %d block references to %d distinct blocks of %d tokens (%.1f%% reuse implied)", reuse[1], reuse[0],
            trace.blockTokens(), 100.0 * (reuse[1] - reuse[0]) / reuse[1])));
  }

  /** {@code 10m..20m} as nanoseconds {@code [from, to)}; an end left out is 0 or the end of time. */
  static long[] window(String spec) {
    int dots = spec.indexOf("..");
    if (dots < 0) {
      throw new UsageException("--trace-window " + spec + ": give FROM..TO, e.g. 10m..20m (or 10m.. or ..20m)");
    }
    String a = spec.substring(0, dots).strip();
    String b = spec.substring(dots + 2).strip();
    long from = a.isEmpty() ? 0 : Durations.parseNanos("--trace-window", a);
    long to = b.isEmpty() ? Long.MAX_VALUE : Durations.parseNanos("--trace-window", b);
    if (to <= from) {
      throw new UsageException("--trace-window " + spec + ": the end must be after the start");
    }
    return new long[] {from, to};
  }
}
