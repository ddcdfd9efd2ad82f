package dev.tokenmeter.telemetry;

import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.OptionalInt;

/** Finished requests built by hand, as the engine would fill them, for the bench metrics' tests. */
final class BenchRequests {
  private static final long MS = 1_000_000L;
  private long id;

  /** A completed streamed request: sent at 0, one-token chunks at these milliseconds, usage prompt/completion. */
  RequestMetrics completed(Phase phase, int prompt, int completion, long... chunkMs) {
    RequestTimeline t = timeline(phase);
    t.sent(0);
    t.headers(200, MS / 2);
    for (long at : chunkMs) {
      t.item(new StreamItem.Text("x", TextKind.CONTENT), at * MS);
    }
    long last = chunkMs[chunkMs.length - 1] * MS;
    t.item(new StreamItem.Finish("stop"), last);
    t.item(new StreamItem.Usage(prompt, completion, -1, -1), last);
    t.end(new Outcome.Completed("stop"), last);
    return RequestMetrics.of(t, null);
  }

  /** A request that could not connect, ended at 3 ms. */
  RequestMetrics refused(Phase phase) {
    RequestTimeline t = timeline(phase);
    t.end(new Outcome.ConnectFailed("refused"), 3 * MS);
    return RequestMetrics.of(t, null);
  }

  /** A streamed request tokenmeter cancelled (stage end, Ctrl-C) after one-token chunks at these milliseconds. */
  RequestMetrics cancelled(Phase phase, long... chunkMs) {
    RequestTimeline t = timeline(phase);
    t.sent(0);
    t.headers(200, MS / 2);
    for (long at : chunkMs) {
      t.item(new StreamItem.Text("x", TextKind.CONTENT), at * MS);
    }
    t.end(new Outcome.Cancelled("stage ended"), (chunkMs[chunkMs.length - 1] + 5) * MS);
    return RequestMetrics.of(t, null);
  }

  private RequestTimeline timeline(Phase phase) {
    return new RequestTimeline(new RequestSpec(id++, new Prompt.Text("hi"), 7, true, OptionalInt.empty()), 1, phase, 0);
  }
}
