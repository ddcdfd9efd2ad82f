package dev.tokenmeter.scrape;

import java.util.List;

/**
 * Where {@code --gpu-metrics} reads GPU telemetry from, on a thread of its own: an exporter's
 * Prometheus endpoint ({@link GpuScraper}) or {@code nvidia-smi} ({@link NvidiaSmi}). Failures are
 * one line each to the notice the source was started with, and the run goes on. Thread-safe.
 */
public sealed interface GpuSource extends AutoCloseable permits GpuScraper, NvidiaSmi {

  /** Every reading so far, in time order. */
  List<GpuReading> readings();

  /** What the readings came from; null before the first good one. */
  GpuKind kind();

  /** Takes one more reading now and waits for it (bounded): the reading that closes a window. */
  void readNow();

  /** Stops reading. */
  @Override
  void close();
}
