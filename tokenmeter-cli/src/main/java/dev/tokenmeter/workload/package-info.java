/**
 * What each request sends: seeded synthetic prompts and prompts from files, as {@link
 * dev.tokenmeter.core.loadgen.RequestSource}s.
 *
 * <ul>
 *   <li>{@link dev.tokenmeter.workload.LengthSpec}: token-count distributions parsed from specs
 *       like {@code 512}, {@code uniform:256,1024}, {@code lognormal:512,256};
 *   <li>{@link dev.tokenmeter.workload.TokenEstimator}: how text is counted in tokens, a heuristic
 *       until exact tokenizers replace it;
 *   <li>{@link dev.tokenmeter.workload.PromptSynthesizer}: English-like text of a token count;
 *   <li>{@link dev.tokenmeter.workload.SyntheticWorkload}, {@link
 *       dev.tokenmeter.workload.FileWorkload} (over a {@link dev.tokenmeter.workload.PromptFile}):
 *       the request sources; {@link dev.tokenmeter.workload.PreparedRequests} builds specs ahead;
 *   <li>{@link dev.tokenmeter.workload.Trace} (read in a {@link dev.tokenmeter.workload.TraceFormat}
 *       by the {@code TraceReader} of its family, {@code JsonTraceReader} or {@code CsvTraceReader})
 *       and {@link dev.tokenmeter.workload.TraceWorkload}: replayed request traces, one fixed text
 *       per prompt block id; {@link dev.tokenmeter.workload.AheadRequests} builds their specs ahead
 *       of the schedule on a background thread.
 * </ul>
 *
 * Determinism: every draw for request {@code id} comes from its own {@code SplittableRandom} seeded
 * by mixing the run's seed with the id and a per-purpose stream number, so a request's spec does
 * not depend on call order, and two variants under one seed send the same prompts. Problems loading
 * a workload throw {@link dev.tokenmeter.workload.WorkloadException}, whose message is fit to show
 * the user.
 *
 * <p>May use: core.., tokenizer..
 */
package dev.tokenmeter.workload;
