package dev.tokenmeter.cli;

import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.workload.ThinkTime;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import picocli.CommandLine.Option;

/** Load-model and stage options shared by {@code bench} and {@code demo}. */
final class LoadOptions {
  @Option(
      names = "--concurrency",
      split = ",",
      paramLabel = "N[,N...]",
      description = "Closed loop: N virtual users, each sends its next request when its last ended. A list runs one stage per value.")
  List<Integer> concurrency = new ArrayList<>();

  @Option(
      names = "--rate",
      split = ",",
      paramLabel = "R[,R...]",
      description = "Open loop: R requests per second whatever the server's speed. A list runs one stage per value.")
  List<Double> rate = new ArrayList<>();

  @Option(
      names = "--arrival",
      paramLabel = "KIND",
      description = "Open-loop spacing: constant, poisson or gamma (default: ${DEFAULT-VALUE}).")
  String arrival = "poisson";

  @Option(
      names = "--burstiness",
      paramLabel = "K",
      description = "Gamma shape for --arrival gamma: 1 is Poisson, <1 burstier, >1 more regular (default: ${DEFAULT-VALUE}).")
  double burstiness = 1.0;

  @Option(names = "--max-concurrency", paramLabel = "N", description = "Open loop: at most N requests in flight; later arrivals queue.")
  Integer maxConcurrency;

  @Option(names = "--think-time", paramLabel = "SPEC", description = "Pause between a user's requests (closed loop) or, with --turns, between a session's turns (closed and open loop), or, with --profile completion, between a user's typing bursts (closed loop): a duration (2s), or per turn uniform:1s,5s or exponential:3s (a mean; with --turns or --profile completion only) (default: 0).")
  String thinkTime = "0";

  /**
   * Set by {@code bench --turns}: the think time is drawn per turn by the sessions ({@link
   * #thinkTime()}), and a closed-loop user starts its next session at once.
   */
  boolean sessions;

  /** Set from a --workload profile's conversations when --think-time was not given; else null. */
  ThinkTime observedThinkTime;

  @Option(names = "--duration", paramLabel = "DURATION", description = "Measurement window per stage (default: 60s unless --requests).")
  String duration;

  @Option(names = "--requests", paramLabel = "N", description = "Measure exactly N requests per stage instead of a duration; the warm-up and cool-down send more, unmeasured (see --max-requests).")
  Long requests;

  @Option(names = "--max-requests", paramLabel = "M", description = "Send at most M requests per stage, warm-up and cool-down included; with --requests N, at least N, the warm-up sending M-N at most (docs/METRICS.md).")
  Long maxRequests;

  @Option(names = "--warmup", paramLabel = "DURATION", description = "Unmeasured warm-up before each stage's window (default: ${DEFAULT-VALUE}).")
  String warmup = "10s";

  @Option(names = "--cooldown", paramLabel = "DURATION", description = "Load kept on after the window, unmeasured (default: ${DEFAULT-VALUE}).")
  String cooldown = "5s";

  @Option(names = "--seed", paramLabel = "N", description = "Seed for arrivals and prompts (default: ${DEFAULT-VALUE}).")
  long seed = 42;

  /** Set by {@code --trace}: the replay's stages, which {@link #stages} then returns. */
  List<StagePlan> planned;

  /** The stages, in order. */
  List<StagePlan> stages() {
    if (planned != null) {
      return planned;
    }
    if (!concurrency.isEmpty() && !rate.isEmpty()) {
      throw new UsageException("give either --concurrency or --rate, not both");
    }
    if (concurrency.isEmpty() && rate.isEmpty()) {
      throw new UsageException("give a load: --concurrency N[,N...] (closed loop) or --rate R[,R...] (open loop)");
    }
    if (duration != null && requests != null) {
      throw new UsageException("give either --duration or --requests, not both");
    }
    StopCondition stop;
    if (requests != null) {
      if (requests < 1) {
        throw new UsageException("--requests must be at least 1, got " + requests);
      }
      stop = new StopCondition.Requests(requests);
    } else {
      long d = Durations.parseNanos("--duration", duration == null ? "60s" : duration);
      if (d <= 0) {
        throw new UsageException("--duration must be positive");
      }
      stop = new StopCondition.Duration(d);
    }
    long warm = Durations.parseNanos("--warmup", warmup);
    long cool = Durations.parseNanos("--cooldown", cooldown);
    ThinkTime thinkSpec = thinkTime();
    long think;
    if (sessions) {
      think = 0;
    } else if (thinkSpec instanceof ThinkTime.Fixed f) {
      think = f.nanos();
    } else {
      throw new UsageException("--think-time " + thinkTime + " draws a pause per turn of a conversation: add --turns N,"
          + " or give a fixed duration such as 2s");
    }
    List<LoadModel> loads = new ArrayList<>();
    for (Integer c : concurrency) {
      if (c == null || c < 1) {
        throw new UsageException("--concurrency values must be at least 1, got " + c);
      }
      loads.add(new LoadModel.Closed(c, think));
    }
    if (!rate.isEmpty()) {
      Arrivals a = arrivals();
      if (maxConcurrency != null && maxConcurrency < 1) {
        throw new UsageException("--max-concurrency must be at least 1, got " + maxConcurrency);
      }
      OptionalInt max = maxConcurrency == null ? OptionalInt.empty() : OptionalInt.of(maxConcurrency);
      for (Double r : rate) {
        if (r == null || !(r > 0) || r.isInfinite()) {
          throw new UsageException("--rate values must be positive numbers of requests per second, got " + r);
        }
        loads.add(new LoadModel.Open(r, a, max));
      }
    } else if (maxConcurrency != null) {
      throw new UsageException("--max-concurrency applies to --rate (open loop) only");
    }
    if (maxRequests != null && maxRequests < 1) {
      throw new UsageException("--max-requests must be at least 1, got " + maxRequests);
    }
    long max = maxRequests == null ? 0 : maxRequests;
    List<StagePlan> plans = new ArrayList<>();
    for (int i = 0; i < loads.size(); i++) {
      try {
        plans.add(new StagePlan(i, loads.get(i), stop, warm, cool, seed + i, max));
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
    }
    return plans;
  }

  /**
   * {@code --think-time} parsed: a duration ({@code 2s}, {@code fixed:2s}), {@code uniform:MIN,MAX}
   * or {@code exponential:MEAN}.
   */
  ThinkTime thinkTime() {
    if (observedThinkTime != null) {
      return observedThinkTime;
    }
    return durationSpec("--think-time", thinkTime);
  }

  /**
   * A duration spec ({@code --think-time}, {@code --tool-time}, {@code --keystroke-time}): a
   * duration ({@code 2s}, {@code fixed:2s}), {@code uniform:MIN,MAX} or {@code exponential:MEAN}.
   */
  static ThinkTime durationSpec(String flag, String value) {
    String spec = value.strip();
    int colon = spec.indexOf(':');
    String kind = colon < 0 ? "fixed" : spec.substring(0, colon).strip().toLowerCase(java.util.Locale.ROOT);
    String[] args = (colon < 0 ? spec : spec.substring(colon + 1)).split(",", -1);
    String problem = flag + " '" + Durations.printable(value) + "': ";
    String forms = "use a duration (2s), uniform:1s,5s or exponential:3s";
    int expected = kind.equals("uniform") ? 2 : 1;
    if (!List.of("fixed", "uniform", "exponential").contains(kind) || args.length != expected) {
      throw new UsageException(problem + forms);
    }
    try {
      long first = Durations.parseNanos(flag, args[0]);
      return switch (kind) {
        case "uniform" -> new ThinkTime.Uniform(first, Durations.parseNanos(flag, args[1]));
        case "exponential" -> new ThinkTime.Exponential(first);
        default -> new ThinkTime.Fixed(first);
      };
    } catch (IllegalArgumentException e) {
      String why = e.getMessage().startsWith(flag) ? "not a duration" : e.getMessage();
      throw new UsageException(problem + why + "; " + forms);
    }
  }

  private Arrivals arrivals() {
    if (burstiness != 1.0 && !arrival.equalsIgnoreCase("gamma")) {
      throw new UsageException("--burstiness shapes gamma arrivals only: add --arrival gamma (or leave out --burstiness)");
    }
    return switch (arrival.toLowerCase(java.util.Locale.ROOT)) {
      case "constant" -> new Arrivals.Constant();
      case "poisson" -> new Arrivals.Poisson();
      case "gamma" -> {
        if (!(burstiness > 0)) {
          throw new UsageException("--burstiness must be positive, got " + burstiness);
        }
        yield new Arrivals.Gamma(burstiness);
      }
      default -> throw new UsageException("--arrival '" + arrival + "': use constant, poisson or gamma");
    };
  }

  /**
   * The most requests any stage may hold in flight: the largest {@code --concurrency}, {@code
   * --max-concurrency} or {@code searchMax} (a capacity search's upper bound); 0 when nothing
   * bounds them (an open loop without a cap).
   */
  static int largestStreams(List<Integer> concurrency, Integer maxConcurrency, int searchMax) {
    int most = Math.max(searchMax, maxConcurrency == null ? 0 : maxConcurrency);
    for (Integer c : concurrency) {
      if (c != null) {
        most = Math.max(most, c);
      }
    }
    return most;
  }
}
