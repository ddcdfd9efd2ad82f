package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.request.Phase;

/**
 * A snapshot for the live progress line, taken by {@link StageRecorder#live(long)}.
 *
 * @param elapsedNanos time since the stage started
 * @param phase the phase the stage is in now
 * @param inFlight requests sent and not ended
 * @param completed requests completed so far, every phase
 * @param failed requests failed so far, every phase
 * @param outputTokensPerSecond output tokens of requests that ended over the last second or so
 *     (tokens are counted when their request ends, so long requests make it lumpy)
 * @param ttftP50Nanos median TTFT of every request so far, -1 before the first
 */
public record LiveStats(
    long elapsedNanos,
    Phase phase,
    int inFlight,
    long completed,
    long failed,
    double outputTokensPerSecond,
    long ttftP50Nanos) {}
