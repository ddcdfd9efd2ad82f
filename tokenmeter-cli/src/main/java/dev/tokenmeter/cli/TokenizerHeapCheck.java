package dev.tokenmeter.cli;

/**
 * The launcher sizes a closed-loop bench's heap from its arguments, and adds room for a tokenizer
 * only when {@code --model} names the model (scripts/heap-for-run.sh). Without it the bench takes
 * the model the server lists first, which the launcher could not see; when that model loads a
 * tokenizer (o200k_base holds 33 MB), the heap has less room than the rule meant and full
 * collections come often (1,000 paced streams with o200k_base in 96 MiB: 9 a minute, up to 1.4 s
 * each, docs/PERFORMANCE.md, "Memory"), each pause delaying every stream's reads. The launcher marks such a heap with the system property
 * {@value #PROPERTY} (its cap in MiB), and this says so in one line.
 */
final class TokenizerHeapCheck {
  /** Set by tm_java_opts to the cap in MiB when it was sized for a run without a tokenizer. */
  static final String PROPERTY = "tokenmeter.heap.noTokenizerMb";

  /** MiB the launcher adds for a named model's tokenizer (tm_heap_mb's rule). */
  static final int TOKENIZER_MB = 40;

  private TokenizerHeapCheck() {}

  /**
   * The warning for a run whose {@code model} loaded the tokenizer {@code tokenizer} (null: none)
   * into a heap the launcher sized without one ({@code noTokenizerMb}, the property's value; null
   * when the launcher did not mark it); null when there is nothing to say.
   */
  static String warning(String tokenizer, String model, String noTokenizerMb) {
    if (tokenizer == null || noTokenizerMb == null || !noTokenizerMb.matches("[0-9]{1,6}")) {
      return null;
    }
    int mb = Integer.parseInt(noTokenizerMb);
    return "tokenmeter: warning: the launcher sized the Java heap (-Xmx" + mb + "m) for a run without a tokenizer, and"
        + " model '" + model + "' loads " + tokenizer + " (33 MB for o200k_base): full collections will come often, and each pause delays every stream's reads."
        + " Give --model " + model + " so that the launcher adds room for it, or TOKENMETER_JAVA_OPTS=-Xmx"
        + (mb + TOKENIZER_MB) + "m";
  }
}
