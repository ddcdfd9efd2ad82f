package dev.tokenmeter.core;

/** The tool's version: the jar manifest's when packaged, else a development marker. */
public final class Version {
  public static final String VERSION = readVersion();

  private Version() {}

  private static String readVersion() {
    String v = Version.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-dev" : v;
  }
}
