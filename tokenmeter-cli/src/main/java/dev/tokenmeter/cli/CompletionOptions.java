package dev.tokenmeter.cli;

import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.PromptSynthesizer;
import dev.tokenmeter.workload.SyntheticCompletions;
import dev.tokenmeter.workload.ThinkTime;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * Code completion's typing bursts ({@code --profile completion}): the {@code --burst}, {@code
 * --keystroke-time} and {@code --cancel-after} flags of the workload group (nested in {@link
 * WorkloadOptions}, shown in its section), their checks and the defaults of that profile, and the
 * closed-loop pause between bursts the command sets. Single-threaded, filled by picocli, then
 * checked once by {@link #check}.
 */
final class CompletionOptions {
  @Option(names = "--burst", paramLabel = "SPEC", description = "--profile completion: requests per typing burst, a length spec: 4, uniform:2,6 (default: uniform:2,6).")
  String burst;

  @Option(names = "--keystroke-time", paramLabel = "SPEC", description = "--profile completion: the pause between a burst's requests, on the user's clock (a request still in flight when the next goes out is cancelled as superseded): a duration (150ms), uniform:100ms,300ms or exponential:150ms (default: 150ms).")
  String keystrokeTime;

  @Option(names = "--cancel-after", paramLabel = "DURATION", description = "--profile completion: also cancel a request not done this long after it was issued (an editor that gives up on a slow suggestion), counted apart from superseded ones and from errors (default: none).")
  String cancelAfter;

  static final String COMPLETION_INPUT = "uniform:1024,2048";
  static final String COMPLETION_OUTPUT = "uniform:16,64";
  static final String COMPLETION_BURST = "uniform:2,6";
  static final String COMPLETION_KEYSTROKE = "150ms";
  /** A closed-loop completion user's pause between bursts when --think-time is not given. */
  static final ThinkTime COMPLETION_PAUSE = new ThinkTime.Fixed(2_000_000_000L); // 2 s

  private LengthSpec burstSpec;
  private ThinkTime keystroke;
  private long cancelAfterNanos;
  /** Set by {@link WorkloadOptions#typing}: a closed-loop user's pause between bursts. */
  ThinkTime pause = ThinkTime.NONE;

  /**
   * Checks code completion's options: only with --profile completion ({@code completion}), and
   * what it cannot take (sessions of {@code --turns}, a prompt file or profile, {@code
   * --max-context}); parses them when it is on.
   */
  void check(boolean completion, boolean sessions, Path prompts, Path workloadFile, int maxContext) {
    if (!completion) {
      for (String[] o : new String[][] {{"--burst", burst}, {"--keystroke-time", keystrokeTime}, {"--cancel-after", cancelAfter}}) {
        if (o[1] != null) {
          throw new UsageException(o[0] + " shapes code completion's typing bursts: add --profile completion (or leave out " + o[0] + ")");
        }
      }
      return;
    }
    if (sessions) {
      throw new UsageException("--profile completion sends bursts of keystroke requests, not conversations: give --burst N instead of --turns");
    }
    if (prompts != null || workloadFile != null) {
      throw new UsageException("--profile completion synthesizes its fill-in-the-middle prompts: leave out "
          + (prompts != null ? "--prompts" : "--workload") + " (and size them with --input-tokens)");
    }
    if (maxContext > 0) {
      throw new UsageException("--max-context ends conversations: --profile completion has none (leave it out)");
    }
    burstSpec = WorkloadOptions.parse("--burst", burst == null ? COMPLETION_BURST : burst, false);
    keystroke = LoadOptions.durationSpec("--keystroke-time", keystrokeTime == null ? COMPLETION_KEYSTROKE : keystrokeTime);
    if (cancelAfter != null) {
      cancelAfterNanos = Durations.parseNanos("--cancel-after", cancelAfter);
      if (cancelAfterNanos <= 0) {
        throw new UsageException("--cancel-after must be a positive duration such as 500ms, got '" + cancelAfter + "'");
      }
    }
  }

  /** The per-stage typing bursts of {@code in}-token prompts, {@code pool} of them built ahead (after {@link #check}). */
  Function<StagePlan, RequestSource> factory(LengthSpec in, LengthSpec out, PromptSynthesizer synth, int pool) {
    LengthSpec i = in;
    LengthSpec o = out;
    LengthSpec b = burstSpec;
    ThinkTime k = keystroke;
    ThinkTime p = pause;
    long cancel = cancelAfterNanos;
    return plan -> new SyntheticCompletions(
        new SyntheticCompletions.Settings(i, o, b, k, p, cancel, plan.seed(), synth, pool));
  }

  /** The bursts as summary.json's workload describes them, into {@code m}. */
  void describe(Map<String, Object> m) {
    m.put("burst", burst == null ? COMPLETION_BURST : burst);
    m.put("keystroke_time", keystrokeTime == null ? COMPLETION_KEYSTROKE : keystrokeTime);
    m.put("cancel_after", cancelAfter == null ? "none" : cancelAfter);
    m.put("think_time", pause.describe());
  }
}
