/**
 * The server's own view during a run: scrapes its Prometheus endpoint on a thread of its own
 * ({@link dev.tokenmeter.scrape.ServerScraper}), parses the text exposition format ({@link
 * dev.tokenmeter.scrape.PromText}), reads known servers' series in common names ({@link
 * dev.tokenmeter.scrape.ServerKind}) and computes each stage's figures ({@link
 * dev.tokenmeter.scrape.ServerFigures}). With the same loop and parser, the GPUs' telemetry
 * ({@code bench --gpu-metrics}): NVIDIA DCGM and AMD device-metrics-exporter series per GPU ({@link
 * dev.tokenmeter.scrape.GpuKind}), {@code nvidia-smi} ({@link dev.tokenmeter.scrape.NvidiaSmi}),
 * and each stage's power and energy ({@link dev.tokenmeter.scrape.GpuFigures}). Uses the core's
 * ticker only; knows nothing of the client, reports or the command line. docs/METRICS.md, "Server
 * metrics" and "GPU power and energy".
 *
 * <p>May use: core.time
 */
package dev.tokenmeter.scrape;
