package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TimeoutKind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;

/** Seeded, realistic stages for report tests: recorded through the real StageRecorder. */
public final class SampleStages {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  private SampleStages() {}

  /** A closed-loop stage: 2 s warm-up, 10 s window, 1 s cool-down, a few failures. */
  public static StageResult closed(long seed) {
    StagePlan plan =
        new StagePlan(0, new LoadModel.Closed(4, 0), new StopCondition.Duration(10 * S), 2 * S,
            S, seed);
    return run(plan, seed, 13 * S, true);
  }

  /** An open-loop stage interrupted before its window ended. */
  public static StageResult openInterrupted(long seed) {
    StagePlan plan =
        new StagePlan(1, new LoadModel.Open(3.5, new Arrivals.Gamma(0.5), OptionalInt.of(8)),
            new StopCondition.Requests(100), 0, 0, seed);
    return run(plan, seed, 4 * S, false);
  }

  private record Event(long nanos, int kind, RequestTimeline t) {}

  private static StageResult run(StagePlan plan, long seed, long lengthNanos, boolean endWindow) {
    Random random = new Random(seed);
    long start = 7 * S;
    long windowStart = start + plan.warmupNanos();
    long windowEnd = endWindow ? windowStart + 10 * S : Long.MAX_VALUE;
    List<Event> events = new ArrayList<>();
    long scheduled = start;
    for (int id = 0; scheduled < start + lengthNanos - 2 * S; id++) {
      scheduled += 50 * MS + random.nextInt(250) * MS;
      Phase phase =
          scheduled < windowStart ? Phase.WARMUP
              : scheduled < windowEnd ? Phase.MEASURED : Phase.COOLDOWN;
      RequestTimeline t = request(random, id, phase, scheduled);
      events.add(new Event(t.sentNanos(), 0, t));
      events.add(new Event(t.endNanos(), 1, t));
    }
    events.sort(Comparator.comparingLong(Event::nanos));
    StageRecorder r = new StageRecorder(plan, start);
    boolean windowOpen = false;
    boolean windowClosed = !endWindow;
    for (Event e : events) {
      if (!windowOpen && e.nanos >= windowStart) {
        r.windowStarted(windowStart);
        windowOpen = true;
      }
      if (!windowClosed && e.nanos >= windowEnd) {
        r.windowEnded(windowEnd);
        windowClosed = true;
      }
      r.loopLag(random.nextInt(300_000));
      r.sendLag(random.nextInt(2_000_000));
      if (e.kind == 0) {
        r.requestSent(e.t, e.nanos);
      } else {
        r.requestEnded(e.t, RequestMetrics.of(e.t, null));
      }
    }
    if (!windowClosed) {
      r.windowEnded(windowEnd);
    }
    long end = Math.max(start + lengthNanos, events.get(events.size() - 1).nanos);
    return r.finish(end, new ClientCpu(lengthNanos / 10, lengthNanos / 20, 2));
  }

  private static RequestTimeline request(Random random, int id, Phase phase, long scheduled) {
    Timelines b = Timelines.request(id, phase, scheduled, 100 + random.nextInt(50));
    long sent = scheduled + random.nextInt(200_000);
    if (id % 5 == 0) {
      b.connect(scheduled, scheduled + 150_000);
    }
    b.sent(sent);
    int kind = random.nextInt(20);
    if (kind == 0) {
      return b.failed(new Outcome.HttpError(429, "slow down"), sent + 3 * MS);
    }
    long at = sent + 80 * MS + random.nextInt(40) * MS;
    int tokens = 5 + random.nextInt(40);
    for (int i = 0; i < tokens; i++) {
      b.chunk(at, random.nextInt(10) == 0 ? "two words" : "tok");
      at += 15 * MS + random.nextInt(10) * MS;
    }
    if (kind == 1) {
      return b.failed(new Outcome.TimedOut(TimeoutKind.IDLE), at + 500 * MS);
    }
    b.usage(110 + random.nextInt(50), tokens + (random.nextInt(8) == 0 ? 1 : 0));
    return b.completedAtLastChunk(at + MS);
  }
}
