/**
 * A run's results folder, and what is rendered from it. The folder: {@code requests.jsonl}
 * (streamed during the run by {@link dev.tokenmeter.report.RequestsJsonlWriter}, read back by
 * {@link dev.tokenmeter.report.RequestsJsonlReader}) and {@code summary.json} (a {@link
 * dev.tokenmeter.report.RunSummary} written by {@link dev.tokenmeter.report.SummaryJsonWriter},
 * read back by {@link dev.tokenmeter.report.SummaryJsonReader}; docs/summary.schema.json), the
 * merging of side-by-side runs ({@link dev.tokenmeter.report.SummaryMerger}) and the rebuilding of
 * a crashed run's summary ({@link dev.tokenmeter.report.Recovery}). The renderings: console tables
 * ({@link dev.tokenmeter.report.ConsoleReport}), run comparisons ({@link
 * dev.tokenmeter.report.CompareReport}, {@code compare.json}), SLO verdicts as text, Markdown and
 * JUnit XML, and the proxy's production report ({@code production.json}). Renderers compute no
 * metric, and nothing here touches the network.
 *
 * <p>Mixed: despite its name, as much of it is the results folder's I/O (writers, readers,
 * mergers, crash recovery) as rendering, and {@code requests.jsonl} and {@code
 * stage-in-progress.json} are written while the run goes, not after it.
 *
 * <p>May use: core.., scrape..
 */
package dev.tokenmeter.report;
