/**
 * Running a measurement end to end: the stages a run goes through (a fixed list, repeats, a
 * capacity search), the lanes it drives against endpoints, what it writes as it goes ({@code
 * requests.jsonl}, {@code summary.json}, {@code report.html}) and what it prints. Between the
 * command line ({@code cli}, which only parses options and calls in here) and the parts a run uses
 * ({@code core}, {@code client}, {@code simulator}, {@code report}). See docs/ARCHITECTURE.md.
 *
 * <p>May use: core.., client.., simulator, simulator.virtual.., simulator.engine.., report..,
 * scrape.., telemetry..
 */
package dev.tokenmeter.run;
