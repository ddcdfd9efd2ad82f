package dev.tokenmeter.cli;

import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.run.RepeatingSequence;
import dev.tokenmeter.run.StageSequence;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** {@code --repeat N}, {@code --vary-seed}, {@code --confidence}: shared by bench, demo and simulate. */
final class RepeatOptions {
  /** More would be a benchmark of its own; 1,000 keeps a typo from running for days. */
  private static final int MAX_REPEAT = 1_000;

  @Option(
      names = "--repeat",
      paramLabel = "N",
      description = "Run each stage N times in a row, each on fresh connections, and report every headline metric's mean, confidence interval and CV over the repeats (default: ${DEFAULT-VALUE}).")
  int repeat = 1;

  @Option(
      names = "--vary-seed",
      description = "With --repeat: give each repeat its own seed (other prompts and arrival times); by default every repeat replays its stage's seed.")
  boolean varySeed;

  @Option(
      names = "--confidence",
      paramLabel = "LEVEL",
      description = "Confidence level of the repeats' intervals: 95%% or 0.95 (default: ${DEFAULT-VALUE}).")
  String confidence = "95%";

  /** {@code plans}, each run {@code --repeat} times. */
  StageSequence sequence(List<StagePlan> plans) {
    return sequence(StageSequence.of(plans));
  }

  /** {@code stages}, each run {@code --repeat} times; {@code stages} itself when N is 1. */
  StageSequence sequence(StageSequence stages) {
    if (repeat < 1 || repeat > MAX_REPEAT) {
      throw new UsageException("--repeat must be between 1 and " + MAX_REPEAT + ", got " + repeat);
    }
    if (repeat > 1 && stages.plannedStages() < 0) {
      // A search picks its next load from each probe's verdict; repeats would judge the first of
      // them only, and the probes would no longer be the search's stages one for one.
      throw new UsageException("--repeat cannot be combined with --find-max-concurrency or --find-max-rate:"
          + " run the search, then repeat a fixed list of loads around its answer");
    }
    double level = confidenceLevel();
    if (repeat == 1) {
      if (varySeed) {
        throw new UsageException("--vary-seed needs --repeat N with N of 2 or more");
      }
      return stages;
    }
    return new RepeatingSequence(stages, repeat, varySeed, level);
  }

  /** {@code --confidence} as a fraction in (0, 1). */
  double confidenceLevel() {
    String text = confidence.trim();
    boolean percent = text.endsWith("%");
    double v;
    try {
      v = Double.parseDouble(percent ? text.substring(0, text.length() - 1) : text);
    } catch (NumberFormatException e) {
      v = Double.NaN;
    }
    if (percent || v >= 1) {
      v /= 100;
    }
    if (!(v > 0 && v < 1)) {
      throw new UsageException(String.format(Locale.ROOT,
          "--confidence '%s': give a level between 0 and 100%%, e.g. 95%% or 0.95", confidence));
    }
    return v;
  }
}
