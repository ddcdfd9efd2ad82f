package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.RequestTimeline;

/**
 * Receives every finished request, in any phase, on the engine's loop. Must not block: a sink that
 * writes to disk hands the record to its own thread.
 */
@FunctionalInterface
public interface RequestSink {
  void accept(RequestTimeline timeline, RequestMetrics metrics);
}
