package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.simulator.engine.Calibration;
import dev.tokenmeter.simulator.engine.EngineProfile;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The factors the accuracy study fits: one MFU and one MBU for every engine, and each engine
 * profile's per-iteration and per-sequence host overheads (in {@link EngineProfile#all()} order).
 * Immutable.
 */
record FitParams(double mfu, double mbu, long[] iterationNanos, long[] perSequenceNanos) {
  static final List<EngineProfile> PROFILES = EngineProfile.all();

  FitParams {
    iterationNanos = iterationNanos.clone();
    perSequenceNanos = perSequenceNanos.clone();
  }

  /** The committed calibration ({@link Calibration}, through the profiles). */
  static FitParams committed() {
    return new FitParams(Calibration.MFU, Calibration.MBU,
        PROFILES.stream().mapToLong(EngineProfile::iterationOverheadNanos).toArray(),
        PROFILES.stream().mapToLong(EngineProfile::perSequenceNanos).toArray());
  }

  /** The same factors for every profile. */
  static FitParams uniform(double mfu, double mbu, long iterationNanos, long perSequenceNanos) {
    long[] a = new long[PROFILES.size()];
    long[] b = new long[PROFILES.size()];
    Arrays.fill(a, iterationNanos);
    Arrays.fill(b, perSequenceNanos);
    return new FitParams(mfu, mbu, a, b);
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

  FitParams withMfu(double v) {
    return new FitParams(v, mbu, iterationNanos, perSequenceNanos);
  }

  FitParams withMbu(double v) {
    return new FitParams(mfu, v, iterationNanos, perSequenceNanos);
  }

  FitParams withIteration(int profile, long nanos) {
    long[] a = iterationNanos.clone();
    a[profile] = nanos;
    return new FitParams(mfu, mbu, a, perSequenceNanos);
  }

  FitParams withPerSequence(int profile, long nanos) {
    long[] b = perSequenceNanos.clone();
    b[profile] = nanos;
    return new FitParams(mfu, mbu, iterationNanos, b);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FitParams f && f.mfu == mfu && f.mbu == mbu
        && Arrays.equals(f.iterationNanos, iterationNanos)
        && Arrays.equals(f.perSequenceNanos, perSequenceNanos);
  }

  @Override
  public int hashCode() {
    return Double.hashCode(mfu) * 31 + Double.hashCode(mbu) * 17 + Arrays.hashCode(iterationNanos)
        + Arrays.hashCode(perSequenceNanos);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "MFU %.3f, MBU %.3f", mfu, mbu));
    for (int i = 0; i < PROFILES.size(); i++) {
      b.append(String.format(Locale.ROOT, "; %s %.3f ms + %.4f ms/seq", PROFILES.get(i).id(),
          iterationNanos[i] / 1e6, perSequenceNanos[i] / 1e6));
    }
    return b.toString();
  }
}
