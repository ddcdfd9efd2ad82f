package dev.tokenmeter.report;

import dev.tokenmeter.core.metrics.SampleStages;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A two-stage run for summary tests. */
final class SampleRun {
  private SampleRun() {}

  static RunSummary summary() {
    Map<String, Object> workload = new LinkedHashMap<>();
    workload.put("input_tokens", Map.of("distribution", "fixed", "mean", 512));
    workload.put("output_tokens", 256);
    workload.put("ignore_eos", true);
    return new RunSummary(
        new RunSummary.Tool("tokenmeter", "0.1.0-SNAPSHOT"),
        Instant.parse("2025-03-01T10:00:00Z"),
        Instant.parse("2025-03-01T10:00:17.250Z"),
        new RunSummary.Target("http://127.0.0.1:8000", "chat", "llama-3.1-8b"),
        List.of("bench", "--concurrency", "4", "--duration", "10s"),
        42,
        new RunSummary.Settings(
            new RunSummary.Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(10), null),
            workload),
        RunSummary.Completion.interrupted("Ctrl-C during stage 1"),
        List.of(SampleStages.closed(42), SampleStages.openInterrupted(43)));
  }
}
