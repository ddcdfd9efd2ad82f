package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.request.Phase;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * The live-progress side of a {@link StageRecorder}: the writer (event loop) publishes through
 * volatile fields and a wait-free {@link SingleWriterRecorder}; readers (the progress printer)
 * synchronise among themselves on this object and fold interval histograms into a running total.
 */
final class LiveView {
  /** Shortest span the output rate is measured over; shorter calls repeat the last rate. */
  private static final long RATE_SPAN_NANOS = 1_000_000_000L;

  // Written by the single writer only, read by any thread.
  volatile long completed;
  volatile long failed;
  volatile long outputTokens;
  volatile int inFlight;
  volatile Phase phase = Phase.WARMUP;
  private final SingleWriterRecorder ttft = new SingleWriterRecorder(3);

  // Reader state, guarded by this.
  private Histogram interval;
  private final Histogram ttftTotal = new Histogram(3);
  private long sampleNanos = -1;
  private long sampleTokens;
  private double tokensPerSecond;

  /** Writer: a request with this TTFT (or -1) ended. */
  void recordTtft(long ttftNanos) {
    if (ttftNanos >= 0) {
      ttft.recordValue(ttftNanos);
    }
  }

  synchronized LiveStats snapshot(long nowNanos, long stageStartNanos) {
    interval = interval == null ? ttft.getIntervalHistogram() : ttft.getIntervalHistogram(interval);
    ttftTotal.add(interval);
    long tokens = outputTokens;
    if (sampleNanos < 0) {
      sampleNanos = stageStartNanos;
    }
    long span = nowNanos - sampleNanos;
    if (span >= RATE_SPAN_NANOS) {
      tokensPerSecond = (tokens - sampleTokens) * 1e9 / span;
      sampleNanos = nowNanos;
      sampleTokens = tokens;
    }
    long p50 = ttftTotal.getTotalCount() == 0 ? -1 : ttftTotal.getValueAtPercentile(50);
    return new LiveStats(
        nowNanos - stageStartNanos, phase, inFlight, completed, failed, tokensPerSecond, p50);
  }
}
