/**
 * The root of the measurement core, which holds one class: {@link dev.tokenmeter.core.Version},
 * the tool's version (the jar manifest's when packaged, else {@code 0.1.0-dev}). The core itself
 * lives in the sub-packages: {@code core.time} (the clock), {@code core.load} (load models as
 * plans), {@code core.request} (one request), {@code core.loadgen} (the load generator: the stage
 * runner and the ports it drives), {@code core.metrics} (recording a stage), {@code core.analysis}
 * (what a stage or a run means), {@code core.stats} (its statistical tests), {@code core.slo} (SLOs
 * and their verdicts) and {@code core.production} (summaries of production traffic). None of them uses Netty, Jackson, picocli, a tokenizer library or JDBC (checked by
 * ArchitectureTest), so the core knows nothing of HTTP, JSON, files or the command line.
 *
 * <p>May use: nothing else in tokenmeter.
 */
package dev.tokenmeter.core;
