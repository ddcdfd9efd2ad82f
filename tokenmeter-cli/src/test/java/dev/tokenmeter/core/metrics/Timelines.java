package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.OptionalInt;

/** Builds request timelines by hand, as the engine would fill them. Test code. */
final class Timelines {
  private final RequestTimeline t;

  private Timelines(RequestTimeline t) {
    this.t = t;
  }

  /** A request scheduled at {@code scheduledNanos} whose client prompt count is {@code prompt}. */
  static Timelines request(long id, Phase phase, long scheduledNanos, int promptTokens) {
    RequestSpec spec =
        new RequestSpec(id, new Prompt.Text("hello"), promptTokens, false, OptionalInt.empty());
    return new Timelines(new RequestTimeline(spec, 0, phase, scheduledNanos));
  }

  static Timelines request(long scheduledNanos) {
    return request(0, Phase.MEASURED, scheduledNanos, 10);
  }

  Timelines connect(long startNanos, long doneNanos) {
    t.connected(startNanos, doneNanos);
    return this;
  }

  Timelines sent(long nanos) {
    t.sent(nanos);
    return this;
  }

  /** An answer chunk of {@code text}. */
  Timelines chunk(long nanos, String text) {
    t.item(new StreamItem.Text(text, TextKind.CONTENT), nanos);
    return this;
  }

  /** Answer chunks, one character each, at these times. */
  Timelines chunks(long... nanos) {
    for (long n : nanos) {
      chunk(n, "x");
    }
    return this;
  }

  Timelines reasoning(long nanos, String text) {
    t.item(new StreamItem.Text(text, TextKind.REASONING), nanos);
    return this;
  }

  Timelines finish(long nanos) {
    t.item(new StreamItem.Finish("stop"), nanos);
    return this;
  }

  Timelines usage(int promptTokens, int completionTokens) {
    t.item(new StreamItem.Usage(promptTokens, completionTokens, -1), 0);
    return this;
  }

  /** Completed normally at {@code endNanos}. */
  RequestTimeline completed(long endNanos) {
    t.end(new Outcome.Completed("stop"), endNanos);
    return t;
  }

  RequestTimeline failed(Outcome outcome, long endNanos) {
    t.end(outcome, endNanos);
    return t;
  }

  /** Finish with the last chunk, then complete: the common shape where done == lastToken. */
  RequestTimeline completedAtLastChunk(long endNanos) {
    finish(t.lastTokenNanos());
    return completed(endNanos);
  }

  /** The timeline as built so far. */
  RequestTimeline timeline() {
    return t;
  }
}
