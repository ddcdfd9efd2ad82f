package dev.tokenmeter.cli;

import java.util.ArrayList;
import java.util.List;

/** Run by {@link LauncherHeapTest} in a JVM of its own: fills the heap until it runs out. */
public final class OutOfMemoryFixture {
  private OutOfMemoryFixture() {}

  public static void main(String[] args) {
    List<long[]> kept = new ArrayList<>();
    while (true) {
      kept.add(new long[64 * 1024]);
    }
  }
}
