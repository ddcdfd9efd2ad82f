package dev.tokenmeter.scrape;

import dev.tokenmeter.core.time.Ticker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * {@code --gpu-metrics nvml}: reads power, utilisation, memory and SM clock of the local NVIDIA
 * GPUs by running {@code nvidia-smi --query-gpu=...} every interval on a thread of its own, for a
 * machine with GPUs and no exporter. nvidia-smi reads them through NVML. It has no energy
 * counter in its query fields, so energy is power integrated over time (docs/METRICS.md, "GPU
 * power and energy").
 *
 * <p>Output format (nvidia-smi {@code --help-query-gpu}): with {@code --format=csv,noheader,nounits}
 * one line per GPU, fields in the order asked, separated by {@code ", "}; a field the GPU cannot
 * report reads {@code [N/A]} or {@code [Not Supported]}. Thread-safe.
 */
public final class NvidiaSmi implements GpuSource {
  /** The fields asked for, in this order. */
  public static final String FIELDS = "index,uuid,power.draw,utilization.gpu,memory.used,clocks.sm";

  /** The command run each interval. */
  public static final List<String> COMMAND =
      List.of("nvidia-smi", "--query-gpu=" + FIELDS, "--format=csv,noheader,nounits");

  private static final long TIMEOUT_NANOS = 5_000_000_000L;

  private final Ticker ticker;
  private final Consumer<String> notice;
  private final List<String> command;
  private final ScheduledExecutorService thread;
  private final List<GpuReading> readings = new ArrayList<>();
  private volatile boolean stopped;

  private NvidiaSmi(List<String> command, Ticker ticker, Consumer<String> notice) {
    this.command = List.copyOf(command);
    this.ticker = ticker;
    this.notice = notice;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tokenmeter-nvidia-smi");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts reading now and every {@code intervalNanos} with {@link #COMMAND}. */
  public static NvidiaSmi start(long intervalNanos, Ticker ticker, Consumer<String> notice) {
    return start(COMMAND, intervalNanos, ticker, notice);
  }

  /** Starts reading with {@code command} (a test's stand-in for nvidia-smi). */
  static NvidiaSmi start(List<String> command, long intervalNanos, Ticker ticker, Consumer<String> notice) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("--gpu-metrics-interval must be positive");
    }
    NvidiaSmi s = new NvidiaSmi(command, ticker, notice);
    s.thread.scheduleWithFixedDelay(s::read, 0, intervalNanos, TimeUnit.NANOSECONDS);
    return s;
  }

  /**
   * Parses nvidia-smi's answer to {@link #COMMAND}, taken at {@code atNanos}.
   *
   * @throws IllegalArgumentException naming the line that does not have the fields asked for
   */
  public static GpuReading parse(String csv, long atNanos) {
    Map<String, GpuReading.Gpu> gpus = new LinkedHashMap<>();
    String[] lines = csv.split("\r?\n");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\\s*,\\s*");
      if (f.length != 6) {
        throw new IllegalArgumentException("line " + (i + 1) + " of nvidia-smi's answer has " + f.length
            + " fields, not the 6 asked for (" + FIELDS + "): '" + PromText.abbreviate(line) + "'");
      }
      gpus.put(f[0] + " " + f[1], new GpuReading.Gpu(number(f[2], i), number(f[3], i), number(f[4], i),
          number(f[5], i), Double.NaN, Double.NaN, Double.NaN));
    }
    return new GpuReading(atNanos, gpus);
  }

  private static double number(String field, int line) {
    if (field.startsWith("[")) {
      return Double.NaN; // [N/A], [Not Supported], [Unknown Error]
    }
    try {
      return Double.parseDouble(field);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("line " + (line + 1) + " of nvidia-smi's answer: not a number: '"
          + PromText.abbreviate(field) + "'");
    }
  }

  private void read() {
    if (stopped) {
      return;
    }
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(TIMEOUT_NANOS, TimeUnit.NANOSECONDS)) {
        p.destroyForcibly();
        stop("nvidia-smi did not answer within 5 s");
        return;
      }
      long atNanos = ticker.nanos();
      String text = new String(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        stop("nvidia-smi exited with " + p.exitValue() + ": " + PromText.abbreviate(text.strip().lines().findFirst().orElse("")));
        return;
      }
      GpuReading r = parse(text, atNanos);
      if (r.gpus().isEmpty()) {
        stop("nvidia-smi listed no GPU");
        return;
      }
      synchronized (this) {
        readings.add(r);
      }
    } catch (IOException e) {
      stop("cannot run nvidia-smi (" + e.getMessage() + "); on a machine without NVIDIA GPUs give an exporter's URL");
    } catch (IllegalArgumentException e) {
      stop(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void stop(String why) {
    stopped = true;
    notice.accept("tokenmeter: GPU metrics: " + why + "; the run goes on without energy figures");
  }

  @Override
  public synchronized List<GpuReading> readings() {
    return List.copyOf(readings);
  }

  @Override
  public GpuKind kind() {
    return GpuKind.NVIDIA_SMI;
  }

  /** Whether a failure stopped the reading. */
  public boolean stopped() {
    return stopped;
  }

  @Override
  public void readNow() {
    try {
      thread.submit(this::read).get(TIMEOUT_NANOS + 1_000_000_000L, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
      // the read reports its own failures
    }
  }

  @Override
  public void close() {
    stopped = true;
    thread.shutdownNow();
  }
}
