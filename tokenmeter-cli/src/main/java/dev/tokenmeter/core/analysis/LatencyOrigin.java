package dev.tokenmeter.core.analysis;

import dev.tokenmeter.core.load.LoadModel;

/**
 * Where a latency is measured from: the moment the load model wanted the request sent ({@code
 * scheduled}) or the moment it was sent ({@code sent}). The headline TTFT and E2E of a stage (the
 * console's first rows, {@code headline_latency_from} in summary.json, report.html's latency table,
 * a bare {@code ttft} or {@code e2e} in {@code --slo}) are from the origin {@link #headlineOf} picks:
 *
 * <ul>
 *   <li>open loop ({@code --rate}): from the schedule, the user's experience. A request that
 *       waited for a {@code --max-concurrency} slot, or behind a late client, waited in the user's
 *       clock too; timing it from its send would hide the queue (coordinated omission).
 *   <li>closed loop ({@code --concurrency}): from the send. A virtual user's next request is
 *       scheduled at the moment it is issued, so the schedule is the send but for the connect and
 *       the writing of the request; nobody waited in a queue the send-based figure could hide.
 * </ul>
 *
 * The figure from the other origin is reported beside the headline (docs/METRICS.md, "Headline
 * latency: from the schedule or from the send").
 */
public enum LatencyOrigin {
  /** From {@code scheduled}: {@code ttft_from_scheduled}, {@code e2e_from_scheduled}. */
  SCHEDULED("scheduled", Metric.TTFT_FROM_SCHEDULED, Metric.E2E_FROM_SCHEDULED),
  /** From {@code sent}: {@code ttft}, {@code e2e}. */
  SENT("sent", Metric.TTFT, Metric.E2E);

  private final String wireName;
  private final Metric ttft;
  private final Metric e2e;

  LatencyOrigin(String wireName, Metric ttft, Metric e2e) {
    this.wireName = wireName;
    this.ttft = ttft;
    this.e2e = e2e;
  }

  /** The origin of the headline latencies under {@code load}: the schedule for open loops. */
  public static LatencyOrigin headlineOf(LoadModel load) {
    return switch (load) {
      case LoadModel.Open o -> SCHEDULED;
      case LoadModel.Closed c -> SENT;
    };
  }

  /** The origin of the headline latencies of a saved stage ({@code load.model}, null = unknown). */
  public static LatencyOrigin headlineOf(String loadModel) {
    return "open".equals(loadModel) ? SCHEDULED : SENT;
  }

  /** {@code "scheduled"} or {@code "sent"}, as in summary.json. */
  public String wireName() {
    return wireName;
  }

  /** The TTFT distribution measured from this origin. */
  public Metric ttft() {
    return ttft;
  }

  /** The E2E distribution measured from this origin. */
  public Metric e2e() {
    return e2e;
  }

  /** The other origin: the one reported beside the headline. */
  public LatencyOrigin other() {
    return this == SCHEDULED ? SENT : SCHEDULED;
  }
}
