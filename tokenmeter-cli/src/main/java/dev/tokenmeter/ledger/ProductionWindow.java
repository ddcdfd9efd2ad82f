package dev.tokenmeter.ledger;

import java.time.Instant;
import java.util.Objects;

/**
 * What {@code proxy report} and {@code compare --production} ask the ledger: the requests that
 * started in {@code [since, until)}, of one tenant and one model or all.
 *
 * @param since start of the window (inclusive), compared with {@code started_at_epoch_ms}
 * @param until end of the window (exclusive)
 * @param tenantOrNull only this tenant, or null for every tenant
 * @param modelOrNull only this model, or null for every model
 */
public record ProductionWindow(Instant since, Instant until, String tenantOrNull, String modelOrNull) {
  public ProductionWindow {
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(until, "until");
  }
}
