package dev.tokenmeter.governance;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock the test moves. Thread-safe. */
final class FakeClock implements InstantSource {
  private volatile Instant now;

  FakeClock(String iso) {
    now = Instant.parse(iso);
  }

  @Override
  public Instant instant() {
    return now;
  }

  void set(String iso) {
    now = Instant.parse(iso);
  }

  void advance(Duration d) {
    now = now.plus(d);
  }
}
