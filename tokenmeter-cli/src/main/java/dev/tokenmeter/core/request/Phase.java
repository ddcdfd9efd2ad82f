package dev.tokenmeter.core.request;

/** Where in its stage a request was scheduled. Only {@link #MEASURED} requests count. */
public enum Phase {
  WARMUP,
  MEASURED,
  COOLDOWN;

  /** Lower-case name used in JSON. */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
