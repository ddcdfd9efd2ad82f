package dev.tokenmeter.cli;

import dev.tokenmeter.workload.ConversationProfile;
import dev.tokenmeter.workload.ThinkTime;
import dev.tokenmeter.workload.WorkloadProfile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * A {@code --workload} profile of observed production traffic, read once on first use, and the
 * load and sessions it stands for where the user gave none: its mean arrival rate as {@code
 * --rate}, its conversations' turns and think times as {@code --turns} and {@code --think-time}
 * (its lengths are {@link WorkloadOptions}'). Each is said on the terminal. Single-threaded.
 */
final class ObservedTraffic {
  private final Path file;
  private WorkloadProfile profile;

  ObservedTraffic(Path file) {
    this.file = file;
  }

  /** The profile, read on first use. */
  WorkloadProfile profile() {
    if (profile == null) {
      profile = WorkloadProfile.read(file);
    }
    return profile;
  }

  /**
   * The profile's mean arrival rate as {@code load}'s {@code --rate}, said on {@code err}; the
   * caller checks that no load was given. A profile without a rate (fewer than two requests) is a
   * usage error.
   */
  void rateInto(LoadOptions load, PrintStream err) {
    double rate = profile().meanRatePerSecond();
    if (Double.isNaN(rate)) {
      throw new UsageException("--workload " + file + " has no arrival rate (fewer than 2 requests): give --rate R or --concurrency N");
    }
    load.rate = new java.util.ArrayList<>(List.of(rate));
    err.println(String.format(java.util.Locale.ROOT, "tokenmeter: --rate %.4g/s (%s arrivals) from %s: its mean rate from the"
        + " first to the last request; the rates by hour of day are not replayed", rate, load.arrival, file));
  }

  /**
   * When the profile has conversations of more than one turn: their turns as {@code --turns} and
   * their think times as {@code --think-time}, each unless given on {@code command} (the think
   * times only when there are sessions: not under {@code --turns 1}), said on {@code err}. So a
   * benchmark built from production traffic holds its conversations.
   */
  void conversationsInto(CostOptions cost, LoadOptions load, CommandSpec command, PrintStream err) {
    ConversationProfile c = profile().conversationsOrNull();
    if (c == null || c.turns().mean() <= 1.0) {
      return;
    }
    var given = command.commandLine().getParseResult();
    List<String> said = new java.util.ArrayList<>();
    if (!given.hasMatchedOption("--turns")) {
      cost.observedTurns = c.turns();
      said.add(String.format(java.util.Locale.ROOT, "--turns as observed (mean %.2f, max %d)", c.turns().mean(),
          c.turns().quantiles().getLast()));
    }
    // think times only where there are sessions (not under an explicit --turns 1)
    if (!given.hasMatchedOption("--think-time") && !c.thinkTimeMillis().isEmpty() && cost.sessionTurns() != null) {
      load.observedThinkTime = new ThinkTime.Empirical(c.thinkTimeMillis());
      said.add("--think-time as observed (" + load.observedThinkTime.describe() + ")");
    }
    if (!said.isEmpty()) {
      err.println("tokenmeter: " + String.join(" and ", said) + " from " + file + ": its "
          + c.conversations() + " conversations");
    }
  }
}
