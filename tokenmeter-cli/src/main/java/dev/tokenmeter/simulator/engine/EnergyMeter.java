package dev.tokenmeter.simulator.engine;

import java.util.Arrays;

/**
 * The energy an engine's GPUs draw, iteration by iteration, after {@link GpuPower}'s model: the
 * known truth of {@code simulate}'s joules per token and of the DCGM series {@code sim serve}
 * exposes. Time is the engine's (nanoseconds, virtual or ticker); energy is kept in buckets of
 * {@value #BUCKET_NANOS} ns, so the energy, mean power and utilisation of any past span can be
 * asked for, exact to within one bucket's share at each end. Every GPU of a tensor-parallel
 * deployment does the same share of each iteration, so all draw the same power.
 *
 * <p>A meter keeps every bucket by default ({@code simulate}'s runs are bounded and ask for any past
 * stage). A long-lived server ({@code sim serve}) asks only about the recent past, so it calls
 * {@link #retain(long)}: older buckets then fold into running totals, which keeps memory bounded (an
 * hour at 10 ms buckets would be 11.5 MB, a day 280 MB) and the energy counter exact; only spans that
 * begin before the retained window are refused.
 *
 * <p>Not thread-safe: the engine's owner calls it under the engine's lock.
 */
public final class EnergyMeter {
  /** 10 ms: finer than an exporter samples (DCGM's default is 1 s), a few MB for an hour's run. */
  public static final long BUCKET_NANOS = 10_000_000L;
  private static final double NANOS_PER_SECOND = 1e9;

  private final GpuPower power;
  private final int gpus;
  private final double overlapExponent;
  private long originNanos = Long.MIN_VALUE;
  /** Per bucket, per GPU: energy above idle (J), busy ns, tensor-core-busy ns, memory-busy ns. */
  private double[] extraJoules = new double[1024];
  private double[] busyNanos = new double[1024];
  private double[] computeNanos = new double[1024];
  private double[] memoryNanos = new double[1024];
  /** Buckets since the origin (absolute count); the arrays hold those from {@code dropped} on. */
  private int buckets;
  /** Buckets folded into the {@code dropped*} totals and no longer in the arrays. */
  private int dropped;
  private double droppedJoules;
  private double droppedBusy;
  private double droppedCompute;
  private double droppedMemory;
  /** Buckets kept in the arrays; {@link Integer#MAX_VALUE}: all. */
  private int retainBuckets = Integer.MAX_VALUE;
  private long lastStartNanos = Long.MIN_VALUE;
  private long lastEndNanos = Long.MIN_VALUE;
  private double lastExtraWatts;

  /**
   * A meter of {@code gpus} GPUs of {@code power}'s kind; {@code overlapExponent} is the roofline's
   * k ({@link EngineConfig#overlapExponent()}), which splits an iteration's GPU time into compute
   * and memory time.
   */
  public EnergyMeter(GpuPower power, int gpus, double overlapExponent) {
    if (gpus < 1) {
      throw new IllegalArgumentException("gpus must be at least 1");
    }
    this.power = power;
    this.gpus = gpus;
    this.overlapExponent = overlapExponent;
  }

  /** The power model. */
  public GpuPower power() {
    return power;
  }

  /** GPUs metered. */
  public int gpus() {
    return gpus;
  }

  /**
   * Keeps only the last {@code windowNanos} (at least one second) of buckets for {@link #span}'s
   * figures; energy since the start ({@link #joulesAt} at or after the window's start) stays exact.
   */
  public void retain(long windowNanos) {
    if (windowNanos < 1_000_000_000L) {
      throw new IllegalArgumentException("the retained window must be at least 1 s, got " + windowNanos + " ns");
    }
    retainBuckets = (int) Math.min(Integer.MAX_VALUE / 2, (windowNanos + BUCKET_NANOS - 1) / BUCKET_NANOS);
  }

  /** The earliest time {@link #span} and {@link #joulesAt} answer for (the origin unless retaining). */
  public long earliestNanos() {
    return originNanos + (long) dropped * BUCKET_NANOS;
  }

  /** Starts the meter at {@code nanos} (before any iteration): idle energy counts from there. */
  public void startAt(long nanos) {
    if (originNanos == Long.MIN_VALUE) {
      originNanos = nanos;
    }
  }

  /**
   * Records one iteration that ran from {@code startNanos} to {@code endNanos} (its duration may
   * differ from {@code cost.totalNanos()} by the engine's variation) at {@code cost}.
   */
  public void iteration(long startNanos, long endNanos, Roofline.Cost cost) {
    startAt(startNanos);
    long d = endNanos - startNanos;
    if (d <= 0 || startNanos < originNanos) {
      return;
    }
    double scale = (double) d / Math.max(1, cost.totalNanos());
    double g = cost.gpuNanos() * scale;
    double s = cost.computeShare();
    double c;
    double m;
    if (overlapExponent == Double.POSITIVE_INFINITY) {
      c = s > 0.5 ? g : 0;
      m = s > 0.5 ? 0 : g;
    } else {
      c = g * Math.pow(s, 1 / overlapExponent);
      m = g * Math.pow(1 - s, 1 / overlapExponent);
    }
    // A speculative drafter's passes are small decode steps: memory-bound GPU work.
    double draft = cost.draftNanos() * scale;
    m += cost.samplingNanos() * scale + draft;
    // collectives (tensor-parallel all-reduces, expert-parallel all-to-alls) keep the GPU busy
    double busy = Math.min(d, g + cost.samplingNanos() * scale + cost.allReduceNanos() * scale
        + cost.allToAllNanos() * scale + draft);
    double uc = Math.min(1, c / d);
    double um = Math.min(1, m / d);
    double extra = power.watts(uc, um) - power.idleWatts();
    lastStartNanos = startNanos;
    lastEndNanos = endNanos;
    lastExtraWatts = extra;
    spread(startNanos, endNanos, extra, busy / d, uc, um);
  }

  /** Adds the iteration's per-GPU figures to the buckets it spans, by the time it spends in each. */
  private void spread(long from, long to, double extraWatts, double busyShare, double uc, double um) {
    long t = from;
    while (t < to) {
      int b = (int) ((t - originNanos) / BUCKET_NANOS);
      long bucketEnd = originNanos + (b + 1L) * BUCKET_NANOS;
      long part = Math.min(to, bucketEnd) - t;
      if (b < dropped) { // an iteration that began before the retained window: its part there folds
        droppedJoules += extraWatts * part / NANOS_PER_SECOND;
        droppedBusy += busyShare * part;
        droppedCompute += uc * part;
        droppedMemory += um * part;
        t += part;
        continue;
      }
      grow(b + 1);
      int i = b - dropped;
      extraJoules[i] += extraWatts * part / NANOS_PER_SECOND;
      busyNanos[i] += busyShare * part;
      computeNanos[i] += uc * part;
      memoryNanos[i] += um * part;
      t += part;
    }
  }

  /** Makes room for {@code n} buckets since the origin, folding the oldest when retaining. */
  private void grow(int n) {
    if (n - dropped > 2L * retainBuckets) {
      fold(n - retainBuckets);
    }
    int held = n - dropped;
    if (held > extraJoules.length) {
      int size = Math.max(held, extraJoules.length * 2);
      extraJoules = Arrays.copyOf(extraJoules, size);
      busyNanos = Arrays.copyOf(busyNanos, size);
      computeNanos = Arrays.copyOf(computeNanos, size);
      memoryNanos = Arrays.copyOf(memoryNanos, size);
    }
    if (n > buckets) {
      // buckets skipped by an idle gap since the last iteration start empty
      int from = buckets - dropped;
      int to = n - dropped;
      if (from < to) {
        Arrays.fill(extraJoules, Math.max(0, from), to, 0);
        Arrays.fill(busyNanos, Math.max(0, from), to, 0);
        Arrays.fill(computeNanos, Math.max(0, from), to, 0);
        Arrays.fill(memoryNanos, Math.max(0, from), to, 0);
      }
      buckets = n;
    }
  }

  /** Folds the buckets before {@code firstKept} (absolute) into the running totals. */
  private void fold(int firstKept) {
    int k = Math.min(firstKept, buckets) - dropped; // buckets to fold from the arrays
    for (int i = 0; i < k; i++) {
      droppedJoules += extraJoules[i];
      droppedBusy += busyNanos[i];
      droppedCompute += computeNanos[i];
      droppedMemory += memoryNanos[i];
    }
    int held = buckets - dropped - Math.max(0, k);
    if (k > 0 && held > 0) {
      System.arraycopy(extraJoules, k, extraJoules, 0, held);
      System.arraycopy(busyNanos, k, busyNanos, 0, held);
      System.arraycopy(computeNanos, k, computeNanos, 0, held);
      System.arraycopy(memoryNanos, k, memoryNanos, 0, held);
    }
    // an idle gap longer than the window: the arrays start empty at the first kept bucket
    dropped = firstKept;
    if (dropped > buckets) {
      buckets = dropped;
    }
  }

  /** Energy all GPUs drew from the start to {@code nanos}, in joules (0 before the start). */
  public double joulesAt(long nanos) {
    startAt(nanos);
    if (nanos <= originNanos) {
      return 0;
    }
    double idle = power.idleWatts() * (nanos - originNanos) / NANOS_PER_SECOND;
    return gpus * (idle + integral(extraJoules, droppedJoules, nanos));
  }

  /**
   * Σ of the buckets from the start to {@code nanos}, the last bucket pro rata: {@code folded} (the
   * buckets no longer held) plus those of {@code perBucket} up to {@code nanos}.
   */
  private double integral(double[] perBucket, double folded, long nanos) {
    long offset = nanos - originNanos;
    if (offset <= 0) {
      return 0;
    }
    if (offset < (long) dropped * BUCKET_NANOS) {
      throw beforeWindow(nanos);
    }
    int whole = (int) Math.min(buckets, offset / BUCKET_NANOS) - dropped;
    int held = buckets - dropped;
    double sum = folded;
    for (int i = 0; i < whole; i++) {
      sum += perBucket[i];
    }
    if (whole < held) {
      sum += perBucket[whole] * (double) (offset - (long) (whole + dropped) * BUCKET_NANOS) / BUCKET_NANOS;
    }
    return sum;
  }

  private IllegalArgumentException beforeWindow(long nanos) {
    return new IllegalArgumentException("asked about " + ((nanos - originNanos) / 1_000_000) + " ms after the"
        + " start, before the retained window (the last " + (retainBuckets * (BUCKET_NANOS / 1_000_000)) + " ms)");
  }

  /**
   * What the GPUs did over {@code [fromNanos, toNanos)}; a retaining meter refuses a span that begins
   * before {@link #earliestNanos()} (its peak is no longer known).
   */
  public Span span(long fromNanos, long toNanos) {
    startAt(fromNanos);
    if (dropped > 0 && fromNanos < earliestNanos()) {
      throw beforeWindow(fromNanos);
    }
    double seconds = (toNanos - fromNanos) / NANOS_PER_SECOND;
    if (!(seconds > 0)) {
      return new Span(0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    double joules = joulesAt(toNanos) - joulesAt(fromNanos);
    double peak = power.idleWatts();
    long from = Math.max(dropped, (fromNanos - originNanos) / BUCKET_NANOS);
    long to = Math.min(buckets, (toNanos - originNanos + BUCKET_NANOS - 1) / BUCKET_NANOS);
    for (long b = from; b < to; b++) {
      peak = Math.max(peak, power.idleWatts() + extraJoules[(int) (b - dropped)] * NANOS_PER_SECOND / BUCKET_NANOS);
    }
    double nanos = toNanos - fromNanos;
    double busy = integral(busyNanos, droppedBusy, toNanos) - integral(busyNanos, droppedBusy, fromNanos);
    double compute = integral(computeNanos, droppedCompute, toNanos)
        - integral(computeNanos, droppedCompute, fromNanos);
    double memory = integral(memoryNanos, droppedMemory, toNanos) - integral(memoryNanos, droppedMemory, fromNanos);
    return new Span(seconds, joules, joules / seconds, peak * gpus, busy / nanos, compute / nanos, memory / nanos);
  }

  /**
   * What the GPUs did over a span, all GPUs together for energy and power, per GPU for shares.
   *
   * @param seconds the span's length
   * @param joules energy drawn
   * @param meanWatts joules / seconds
   * @param peakWatts the highest {@value EnergyMeter#BUCKET_NANOS}-ns mean power in it
   * @param busyShare share of the time a kernel ran (what DCGM_FI_DEV_GPU_UTIL reports), 0..1
   * @param computeShare share of the time the tensor cores worked at the engine's rate
   *     (DCGM_FI_PROF_SM_ACTIVE's stand-in), 0..1
   * @param memoryShare share of the time memory streamed at the engine's rate
   *     (DCGM_FI_PROF_DRAM_ACTIVE's stand-in), 0..1
   */
  public record Span(double seconds, double joules, double meanWatts, double peakWatts, double busyShare,
      double computeShare, double memoryShare) {}

  /** One GPU's power at {@code nanos}: its idle power plus the running iteration's share. */
  public double wattsAt(long nanos) {
    boolean running = nanos >= lastStartNanos && nanos < lastEndNanos;
    return power.idleWatts() + (running ? lastExtraWatts : 0);
  }
}
