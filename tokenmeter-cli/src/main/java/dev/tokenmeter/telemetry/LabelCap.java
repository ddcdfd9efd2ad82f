package dev.tokenmeter.telemetry;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Bounds the distinct values of one label: the first {@code max} distinct values seen keep their
 * name, every later one is reported as {@link #OTHER}. A real value equal to {@code "other"} shares
 * that series. Null reads as the empty value, which Prometheus treats as the label being absent.
 *
 * <p>Thread-safe. A value already admitted costs one {@link ConcurrentHashMap#get} (no lock, no
 * allocation); so does any value once the cap is reached. Admitting a new value takes this object's
 * lock, at most {@code max} times in the life of the cap.
 */
final class LabelCap {
  /** The value that stands for every value past the cap. */
  static final String OTHER = "other";

  private final int max;
  private final ConcurrentHashMap<String, String> admitted = new ConcurrentHashMap<>();
  private volatile int size;

  LabelCap(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("a label cap must admit at least 1 value, got " + max);
    }
    this.max = max;
  }

  /** {@code value} itself while fewer than {@code max} distinct values were seen, else "other". */
  String fold(String value) {
    if (value == null) {
      return "";
    }
    String known = admitted.get(value);
    if (known != null) {
      return known;
    }
    if (size >= max) {
      return OTHER;
    }
    return admit(value);
  }

  private synchronized String admit(String value) {
    String known = admitted.get(value);
    if (known != null) {
      return known;
    }
    if (size >= max) {
      return OTHER;
    }
    admitted.put(value, value);
    size = size + 1; // under this object's lock: the only writer
    return value;
  }

  /** Distinct values admitted so far ({@link #OTHER} not counted). */
  int size() {
    return size;
  }
}
