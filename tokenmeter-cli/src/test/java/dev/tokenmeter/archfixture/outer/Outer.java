package dev.tokenmeter.archfixture.outer;

import dev.tokenmeter.archfixture.inner.Inner;

/** The other half of the fixture's cycle: outer uses inner, which uses outer. */
public final class Outer {
  private Outer() {}

  public static int depth() {
    return 1;
  }

  public static int viaInner() {
    return Inner.upward();
  }
}
