package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Shard;
import dev.tokenmeter.core.load.StagePlan;
import java.util.List;

/**
 * A worker's stages in {@code bench --workers N}: the run's own sequence, each stage cut to the
 * worker's share ({@link LoadSplit#share}: 1/N of the users, or of the rate with every N-th arrival
 * of the one schedule, {@link Shard}) and started at the stage's barrier, the instant all workers
 * agreed on ({@link WorkerLink#awaitStage}); the first stage's barrier is awaited by the caller
 * before the run starts, so that every worker's {@code started_at} is the agreed instant. Not
 * thread-safe, like every sequence.
 */
public final class WorkerSequence implements StageSequence {
  /** Blocks until stage {@code ordinal} (0, 1, ... in run order) may start. */
  public interface Barrier {
    void await(int ordinal);
  }

  private final StageSequence run;
  private final Shard shard;
  private final Barrier barrier;

  public WorkerSequence(StageSequence run, Shard shard, Barrier barrier) {
    this.run = run;
    this.shard = shard;
    this.barrier = barrier;
  }

  @Override
  public StagePlan next(List<StageResult> done) {
    StagePlan plan = run.next(done);
    if (plan == null) {
      return null;
    }
    StagePlan share = LoadSplit.share(plan, shard.count()).withShard(shard);
    if (!done.isEmpty()) {
      barrier.await(done.size()); // the first stage's barrier is the run's start, before the run opened its folder
    }
    return share;
  }

  @Override
  public int plannedStages() {
    return run.plannedStages();
  }
}
