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
  private int buckets;
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
      grow(b + 1);
      extraJoules[b] += extraWatts * part / NANOS_PER_SECOND;
      busyNanos[b] += busyShare * part;
      computeNanos[b] += uc * part;
      memoryNanos[b] += um * part;
      t += part;
    }
  }

  private void grow(int n) {
    if (n > extraJoules.length) {
      int size = Math.max(n, extraJoules.length * 2);
      extraJoules = Arrays.copyOf(extraJoules, size);
      busyNanos = Arrays.copyOf(busyNanos, size);
      computeNanos = Arrays.copyOf(computeNanos, size);
      memoryNanos = Arrays.copyOf(memoryNanos, size);
    }
    buckets = Math.max(buckets, n);
  }

  /** Energy all GPUs drew from the start to {@code nanos}, in joules (0 before the start). */
  public double joulesAt(long nanos) {
    startAt(nanos);
    if (nanos <= originNanos) {
      return 0;
    }
    double idle = power.idleWatts() * (nanos - originNanos) / NANOS_PER_SECOND;
    return gpus * (idle + integral(extraJoules, nanos));
  }

  /** Σ of {@code perBucket} from the start to {@code nanos}, the last bucket pro rata. */
  private double integral(double[] perBucket, long nanos) {
    long offset = nanos - originNanos;
    if (offset <= 0) {
      return 0;
    }
    int whole = (int) Math.min(buckets, offset / BUCKET_NANOS);
    double sum = 0;
    for (int i = 0; i < whole; i++) {
      sum += perBucket[i];
    }
    if (whole < buckets) {
      sum += perBucket[whole] * (double) (offset - (long) whole * BUCKET_NANOS) / BUCKET_NANOS;
    }
    return sum;
  }

  /** What the GPUs did over {@code [fromNanos, toNanos)}. */
  public Span span(long fromNanos, long toNanos) {
    startAt(fromNanos);
    double seconds = (toNanos - fromNanos) / NANOS_PER_SECOND;
    if (!(seconds > 0)) {
      return new Span(0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    double joules = joulesAt(toNanos) - joulesAt(fromNanos);
    double peak = power.idleWatts();
    long from = Math.max(0, (fromNanos - originNanos) / BUCKET_NANOS);
    long to = Math.min(buckets, (toNanos - originNanos + BUCKET_NANOS - 1) / BUCKET_NANOS);
    for (long b = from; b < to; b++) {
      peak = Math.max(peak, power.idleWatts() + extraJoules[(int) b] * NANOS_PER_SECOND / BUCKET_NANOS);
    }
    double nanos = toNanos - fromNanos;
    double busy = integral(busyNanos, toNanos) - integral(busyNanos, fromNanos);
    double compute = integral(computeNanos, toNanos) - integral(computeNanos, fromNanos);
    double memory = integral(memoryNanos, toNanos) - integral(memoryNanos, fromNanos);
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
