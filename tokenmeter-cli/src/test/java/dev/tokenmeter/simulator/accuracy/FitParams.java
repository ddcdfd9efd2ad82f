package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.simulator.engine.Calibration;
import dev.tokenmeter.simulator.engine.EngineProfile;
import dev.tokenmeter.simulator.engine.Platform;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The factors the accuracy study fits: one MFU and one MBU for every engine, each engine profile's
 * per-iteration and per-sequence host overheads (in {@link EngineProfile#all()} order), and what
 * each {@link Platform} adds to both (in {@link Platform#values()} order; CUDA's is 0, the
 * baseline, and never fitted). Immutable.
 */
record FitParams(
    double mfu,
    double mbu,
    double overlap,
    long[] iterationNanos,
    long[] perSequenceNanos,
    long[] platformIterationNanos,
    long[] platformPerSequenceNanos) {
  static final List<EngineProfile> PROFILES = EngineProfile.all();

  FitParams {
    iterationNanos = iterationNanos.clone();
    perSequenceNanos = perSequenceNanos.clone();
    platformIterationNanos = platformIterationNanos.clone();
    platformPerSequenceNanos = platformPerSequenceNanos.clone();
  }

  /** The committed calibration ({@link Calibration}, through the profiles and platforms). */
  static FitParams committed() {
    return new FitParams(Calibration.MFU, Calibration.MBU, Calibration.OVERLAP_EXPONENT,
        PROFILES.stream().mapToLong(EngineProfile::iterationOverheadNanos).toArray(),
        PROFILES.stream().mapToLong(EngineProfile::perSequenceNanos).toArray(),
        Arrays.stream(Platform.values()).mapToLong(Platform::iterationExtraNanos).toArray(),
        Arrays.stream(Platform.values()).mapToLong(Platform::perSequenceExtraNanos).toArray());
  }

  /**
   * The candidates for the smooth roofline's k ({@code Roofline}), each at its own all-source fixed
   * point (refitted by {@code AccuracyFitTest -Daccuracy.refit=true}; the one at
   * {@link Calibration#OVERLAP_EXPONENT} is {@link #committed()}): 1 (no overlap, c + m), 2, 3, 4
   * and ∞ (the plain roofline, max(c, m)). The all-source fit takes the one of least objective and
   * so does each held-out fold, on its training sources ({@code AccuracyFit.leaveOneSourceOut}).
   */
  static List<FitParams> candidates() {
    List<FitParams> all = List.of(
        candidate(1, 0.900, 0.920, 2_100_000, 2_500, 2_600_000, 135_000, 6_400_000, 15_000,
            5_100_000, 45_000, 3_700_000, 110_000),
        candidate(2, 0.750, 0.860, 2_100_000, 0, 2_700_000, 137_500, 5_600_000, 10_000,
            1_800_000, 47_500, 3_500_000, 132_500),
        committed(),
        candidate(4, 0.725, 0.880, 2_100_000, 7_500, 2_800_000, 147_500, 5_500_000, 17_500,
            1_600_000, 52_500, 3_600_000, 92_500),
        candidate(Double.POSITIVE_INFINITY, 0.725, 0.880, 2_200_000, 5_000, 2_800_000, 147_500,
            5_600_000, 15_000, 1_600_000, 52_500, 3_500_000, 95_000));
    return all.stream().sorted(java.util.Comparator.comparingDouble(FitParams::overlap)).toList();
  }

  /** Factors in {@link EngineProfile#all()} order: vLLM, SGLang, TensorRT-LLM, LMDeploy; then ROCm. */
  private static FitParams candidate(double k, double mfu, double mbu, long... nanos) {
    int platforms = Platform.values().length;
    return new FitParams(mfu, mbu, k,
        new long[] {nanos[0], nanos[2], nanos[4], nanos[6]},
        new long[] {nanos[1], nanos[3], nanos[5], nanos[7]},
        new long[platforms], new long[platforms])
        .withPlatformIteration(Platform.ROCM, nanos[8])
        .withPlatformPerSequence(Platform.ROCM, nanos[9]);
  }

  static int index(EngineProfile p) {
    int i = PROFILES.indexOf(p);
    if (i < 0) {
      throw new IllegalArgumentException("not a built-in profile: " + p.id());
    }
    return i;
  }

  /** {@code base} with this fit's overheads. */
  EngineProfile profile(EngineProfile base) {
    int i = index(base);
    return base.withOverheads(iterationNanos[i], perSequenceNanos[i]);
  }

  /** Per-iteration host time of {@code profile} on {@code platform}: the profile's + the platform's. */
  long iterationOn(int profile, Platform platform) {
    return iterationNanos[profile] + platformIterationNanos[platform.ordinal()];
  }

  /** Per-sequence host time of {@code profile} on {@code platform}. */
  long perSequenceOn(int profile, Platform platform) {
    return perSequenceNanos[profile] + platformPerSequenceNanos[platform.ordinal()];
  }

  FitParams withMfu(double v) {
    return new FitParams(v, mbu, overlap, iterationNanos, perSequenceNanos, platformIterationNanos,
        platformPerSequenceNanos);
  }

  /** These factors with another k of the smooth roofline ({@code Roofline}). */
  FitParams withOverlap(double k) {
    return new FitParams(mfu, mbu, k, iterationNanos, perSequenceNanos, platformIterationNanos,
        platformPerSequenceNanos);
  }

  FitParams withMbu(double v) {
    return new FitParams(mfu, v, overlap, iterationNanos, perSequenceNanos, platformIterationNanos,
        platformPerSequenceNanos);
  }

  FitParams withIteration(int profile, long nanos) {
    long[] a = iterationNanos.clone();
    a[profile] = nanos;
    return new FitParams(mfu, mbu, overlap, a, perSequenceNanos, platformIterationNanos,
        platformPerSequenceNanos);
  }

  FitParams withPerSequence(int profile, long nanos) {
    long[] b = perSequenceNanos.clone();
    b[profile] = nanos;
    return new FitParams(mfu, mbu, overlap, iterationNanos, b, platformIterationNanos,
        platformPerSequenceNanos);
  }

  FitParams withPlatformIteration(Platform platform, long nanos) {
    long[] a = platformIterationNanos.clone();
    a[platform.ordinal()] = nanos;
    return new FitParams(mfu, mbu, overlap, iterationNanos, perSequenceNanos, a, platformPerSequenceNanos);
  }

  FitParams withPlatformPerSequence(Platform platform, long nanos) {
    long[] b = platformPerSequenceNanos.clone();
    b[platform.ordinal()] = nanos;
    return new FitParams(mfu, mbu, overlap, iterationNanos, perSequenceNanos, platformIterationNanos, b);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FitParams f && f.mfu == mfu && f.mbu == mbu && f.overlap == overlap
        && Arrays.equals(f.iterationNanos, iterationNanos)
        && Arrays.equals(f.perSequenceNanos, perSequenceNanos)
        && Arrays.equals(f.platformIterationNanos, platformIterationNanos)
        && Arrays.equals(f.platformPerSequenceNanos, platformPerSequenceNanos);
  }

  @Override
  public int hashCode() {
    return Double.hashCode(mfu) * 31 + Double.hashCode(mbu) * 17 + Double.hashCode(overlap) * 13
        + Arrays.hashCode(iterationNanos)
        + Arrays.hashCode(perSequenceNanos) + 7 * Arrays.hashCode(platformIterationNanos)
        + 5 * Arrays.hashCode(platformPerSequenceNanos);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder(
        String.format(Locale.ROOT, "k %s, MFU %.3f, MBU %.3f", overlapName(overlap), mfu, mbu));
    for (int i = 0; i < PROFILES.size(); i++) {
      b.append(String.format(Locale.ROOT, "; %s %.3f ms + %.4f ms/seq", PROFILES.get(i).id(),
          iterationNanos[i] / 1e6, perSequenceNanos[i] / 1e6));
    }
    for (Platform p : Platform.values()) {
      if (p != Platform.CUDA) {
        b.append(String.format(Locale.ROOT, "; %s platform +%.3f ms + %.4f ms/seq", p.id(),
            platformIterationNanos[p.ordinal()] / 1e6, platformPerSequenceNanos[p.ordinal()] / 1e6));
      }
    }
    return b.toString();
  }

  /** k as the docs write it: {@code 3}, {@code ∞}. */
  static String overlapName(double k) {
    if (k == Double.POSITIVE_INFINITY) {
      return "∞";
    }
    return k == Math.rint(k) ? Long.toString((long) k) : Double.toString(k);
  }
}
