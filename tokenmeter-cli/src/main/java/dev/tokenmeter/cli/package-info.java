/**
 * The {@code tokenmeter} command line, on picocli (the only package that uses it). {@link
 * dev.tokenmeter.cli.Main} is the only {@code main()} and the one place that turns exceptions into
 * messages and exit codes (0 ok, 1 run failed, 2 usage error, 3 SLO violated, 130 interrupted).
 * Each command ({@code BenchCommand}, {@code DemoCommand}, {@code SimulateCommand}, {@code
 * SimCommand}, {@code CompareCommand}, {@code MergeCommand}, {@code ReportCommand}, {@code
 * TokensCommand}, {@code ProxyCommand} and its subcommands) is built from option groups shared
 * between commands ({@code TargetOptions}, {@code LoadOptions}, {@code WorkloadOptions} with its
 * nested {@code CompletionOptions}, {@code ProfileOptions} and {@code TokenizerOptions}, {@code
 * SloOptions}, ...), validates them into settings and calls the package that does the work: {@code
 * run} through {@code Runs}, {@code report}, {@code proxy}, {@code tokenizer}. Bad input is a
 * {@code UsageException}, exit code 2.
 *
 * <p>Not only parsing: it also reads ledger windows ({@code ProductionSource}) and turns {@code
 * --variant}s into a run's lanes ({@code VariantLanes}), and sets the load a {@code --workload}
 * profile observed where none is given ({@code ObservedTraffic}). The proxy itself is assembled
 * by {@code proxy.ProxyRun}; the command only resolves its settings.
 *
 * <p>May use: core.., client.., workload.., tokenizer.., simulator.., report.., run.., ledger..,
 * proxy.., telemetry.., governance..
 */
package dev.tokenmeter.cli;
