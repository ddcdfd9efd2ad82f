package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs each stage of another sequence {@code count} times in a row ({@code --repeat N}). Every run
 * is a stage of its own, with its own index in {@code requests.jsonl} and {@code summary.json}:
 * run {@code i} of a fixed list is repeat {@code i % N} of planned stage (group) {@code i / N}.
 * Each repeat replays its group's seed unless {@code varySeed}, where repeat {@code r} gets
 * {@code seed + r · 0x9E3779B97F4A7C15} (repeat 0 keeps the seed, so it is the run without
 * {@code --repeat}). Not thread-safe, like every {@link StageSequence}.
 */
public final class RepeatingSequence implements StageSequence {
  /** The golden-ratio increment of SplitMix64: repeats' seeds far apart from stages' seed + i. */
  private static final long SEED_STEP = 0x9E3779B97F4A7C15L;

  private final StageSequence inner;
  private final int count;
  private final boolean varySeed;
  private final double confidence;
  /** Per run index: its group and repeat. */
  private final List<Member> members = new ArrayList<>();
  /** The inner sequence's plan of the current group. */
  private StagePlan base;
  /** The first repeat of each group so far: what the inner sequence is shown. */
  private final List<StageResult> firsts = new ArrayList<>();

  /** Where a run sits: repeat {@code repeat} (from 0) of planned stage {@code group}. */
  public record Member(int group, int repeat) {}

  public RepeatingSequence(StageSequence inner, int count, boolean varySeed, double confidence) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1, got " + count);
    }
    this.inner = inner;
    this.count = count;
    this.varySeed = varySeed;
    this.confidence = confidence;
  }

  @Override
  public StagePlan next(List<StageResult> done) {
    int i = done.size();
    if (i > members.size()) {
      throw new IllegalStateException("results of stages this sequence did not plan");
    }
    int repeat = i == 0 ? 0 : members.get(i - 1).repeat() + 1;
    if (i == 0 || repeat == count) {
      if (i > 0) {
        firsts.add(done.get(i - count));
      }
      base = inner.next(firsts);
      if (base == null) {
        return null;
      }
      repeat = 0;
    }
    if (i == members.size()) {
      members.add(new Member(firsts.size(), repeat));
    }
    long seed = varySeed ? base.seed() + repeat * SEED_STEP : base.seed();
    return new StagePlan(i, base.load(), base.stop(), base.warmupNanos(), base.cooldownNanos(), seed,
        base.maxRequests());
  }

  @Override
  public int plannedStages() {
    int planned = inner.plannedStages();
    return planned < 0 ? -1 : planned * count;
  }

  /** Repeats per stage. */
  public int count() {
    return count;
  }

  /** Where the run with index {@code stageIndex} sits. */
  public Member member(int stageIndex) {
    return members.get(stageIndex);
  }

  /** {@code ", repeat 2/3 of stage 1"}, for the line announcing a stage. */
  public String note(StagePlan plan) {
    Member m = member(plan.index());
    return ", repeat " + (m.repeat() + 1) + "/" + count + " of stage " + (m.group() + 1);
  }

  /** The repeats of the runs done so far, grouped by planned stage; groups with no run left out. */
  public Repeats aggregate(List<StageResult> done) {
    List<Repeats.Group> groups = new ArrayList<>();
    List<StageResult> group = new ArrayList<>();
    for (StageResult r : done) {
      Member m = member(r.plan().index());
      if (!group.isEmpty() && member(group.get(0).plan().index()).group() != m.group()) {
        groups.add(Repeats.aggregate(member(group.get(0).plan().index()).group(), group, confidence));
        group.clear();
      }
      group.add(r);
    }
    if (!group.isEmpty()) {
      groups.add(Repeats.aggregate(member(group.get(0).plan().index()).group(), group, confidence));
    }
    return new Repeats(count, confidence, varySeed, groups);
  }

  /** The repeats section of a run with {@code stages}, or null when it does not repeat. */
  public static Repeats repeatsOf(StageSequence stages, List<StageResult> done) {
    return stages instanceof RepeatingSequence r && r.count > 1 ? r.aggregate(done) : null;
  }

  /** The stage line's note on repeats, empty when the run does not repeat. */
  public static String noteOf(StageSequence stages, StagePlan plan) {
    return stages instanceof RepeatingSequence r && r.count > 1 ? r.note(plan) : "";
  }

  /** Whether {@code plan} should start on fresh connections: a repeating run's every stage but the first. */
  public static boolean freshConnections(StageSequence stages, StagePlan plan) {
    return stages instanceof RepeatingSequence r && r.count > 1 && plan.index() > 0;
  }
}
