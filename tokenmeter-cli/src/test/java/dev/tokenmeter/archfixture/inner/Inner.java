package dev.tokenmeter.archfixture.inner;

import dev.tokenmeter.archfixture.outer.Outer;

/** Breaks the rules on purpose (see ArchitectureRulesFailTest): an inner package that calls outward. */
public final class Inner {
  private Inner() {}

  /** An arrow from inner to outer, the kind the architecture forbids. */
  public static int upward() {
    return Outer.depth() + 1;
  }
}
