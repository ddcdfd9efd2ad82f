package dev.tokenmeter.core.time;

/**
 * A source of monotonic nanoseconds: the only way tokenmeter code reads time.
 *
 * <p>Production code uses {@link #system()}; tests inject a scripted or manually advanced ticker,
 * so no test sleeps to make time pass. Values are comparable only with values from the same
 * ticker. On Linux {@code System.nanoTime} is CLOCK_MONOTONIC, shared by every process on the
 * machine, so a client and a server in two processes can compare their timestamps.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {

  /** Monotonic time in nanoseconds, with an arbitrary origin. */
  long nanos();

  /** The JVM's monotonic clock ({@link System#nanoTime()}). */
  static Ticker system() {
    return System::nanoTime;
  }
}
