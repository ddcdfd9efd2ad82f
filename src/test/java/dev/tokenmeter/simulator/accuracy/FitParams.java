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
    return new FitParams(Calibration.MFU, Calibration.MBU,
        PROFILES.stream().mapToLong(EngineProfile::iterationOverheadNanos).toArray(),
        PROFILES.stream().mapToLong(EngineProfile::perSequenceNanos).toArray(),
        Arrays.stream(Platform.values()).mapToLong(Platform::iterationExtraNanos).toArray(),
        Arrays.stream(Platform.values()).mapToLong(Platform::perSequenceExtraNanos).toArray());
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
    return new FitParams(v, mbu, iterationNanos, perSequenceNanos, platformIterationNanos,
        platformPerSequenceNanos);
  }

  FitParams withMbu(double v) {
    return new FitParams(mfu, v, iterationNanos, perSequenceNanos, platformIterationNanos,
        platformPerSequenceNanos);
  }

  FitParams withIteration(int profile, long nanos) {
    long[] a = iterationNanos.clone();
    a[profile] = nanos;
    return new FitParams(mfu, mbu, a, perSequenceNanos, platformIterationNanos,
        platformPerSequenceNanos);
  }

  FitParams withPerSequence(int profile, long nanos) {
    long[] b = perSequenceNanos.clone();
    b[profile] = nanos;
    return new FitParams(mfu, mbu, iterationNanos, b, platformIterationNanos,
        platformPerSequenceNanos);
  }

  FitParams withPlatformIteration(Platform platform, long nanos) {
    long[] a = platformIterationNanos.clone();
    a[platform.ordinal()] = nanos;
    return new FitParams(mfu, mbu, iterationNanos, perSequenceNanos, a, platformPerSequenceNanos);
  }

  FitParams withPlatformPerSequence(Platform platform, long nanos) {
    long[] b = platformPerSequenceNanos.clone();
    b[platform.ordinal()] = nanos;
    return new FitParams(mfu, mbu, iterationNanos, perSequenceNanos, platformIterationNanos, b);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FitParams f && f.mfu == mfu && f.mbu == mbu
        && Arrays.equals(f.iterationNanos, iterationNanos)
        && Arrays.equals(f.perSequenceNanos, perSequenceNanos)
        && Arrays.equals(f.platformIterationNanos, platformIterationNanos)
        && Arrays.equals(f.platformPerSequenceNanos, platformPerSequenceNanos);
  }

  @Override
  public int hashCode() {
    return Double.hashCode(mfu) * 31 + Double.hashCode(mbu) * 17 + Arrays.hashCode(iterationNanos)
        + Arrays.hashCode(perSequenceNanos) + 7 * Arrays.hashCode(platformIterationNanos)
        + 5 * Arrays.hashCode(platformPerSequenceNanos);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "MFU %.3f, MBU %.3f", mfu, mbu));
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
}
