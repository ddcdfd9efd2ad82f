package dev.tokenmeter.cli;

import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.simulator.PromptCounter;
import dev.tokenmeter.tokenizer.Tokenizer;
import dev.tokenmeter.tokenizer.TokenizerResolver;
import dev.tokenmeter.workload.PromptSynthesizer;
import dev.tokenmeter.workload.TokenEstimator;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The tokenizer that sizes prompts and counts output when the server sends no usage: the {@code
 * --tokenizer} and {@code --tokenizer-map} flags of the workload group (nested in {@link
 * WorkloadOptions}, shown in its section), the resolver over the user's map files, and the
 * tokenizer chosen, with where it came from. An explicit {@code --tokenizer} is resolved by {@link
 * #resolveGiven} (a usage error before the server is contacted), the model's by {@link #chooseFor}.
 * Single-threaded.
 */
final class TokenizerOptions {
  @Option(names = "--tokenizer", paramLabel = "SPEC", description = "The target model's tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base, a model name (gpt-4o, gpt-4.1, o3, ...), path/to/tokenizer.json or a model folder, or hf:org/name[@revision] (Hugging Face cache, downloaded when missing; HF_TOKEN for gated models). Default: from --model when tokenmeter knows it, else prompt sizes are estimates. See docs/TOKENIZERS.md.")
  String tokenizer;

  @Option(names = "--tokenizer-map", paramLabel = "FILE", description = "Model names or globs to tokenizers, a JSON object ({\"my-llama-*\": \"hf:meta-llama/Llama-3.1-8B-Instruct\"}), over ~/.config/tokenmeter/tokenizers.json (or $TOKENMETER_TOKENIZER_MAP) and the built-in map.")
  Path tokenizerMap;

  private TokenizerResolver resolver;
  private String model;
  private Tokenizer chosen;
  private String chosenFrom = "none";

  /** Resolves an explicit {@code --tokenizer}, if given: an unknown one fails here. */
  void resolveGiven() {
    if (tokenizer != null) {
      chosen = resolver().resolve(tokenizer);
      chosenFrom = "--tokenizer";
    }
  }

  /** Notes the target {@code model} and, without an explicit tokenizer, takes the model's when known. */
  void chooseFor(String model) {
    this.model = model;
    if (chosen == null && model != null) {
      resolver().forModel(model).ifPresent(t -> {
        chosen = t;
        chosenFrom = "model " + model;
      });
    }
  }

  /** The resolver, with the user's map files; loads them on first use. */
  private TokenizerResolver resolver() {
    if (resolver == null) {
      resolver = TokenizerResolver.system(tokenizerMap);
    }
    return resolver;
  }

  /** The tokenizer chosen, or null for the estimate. */
  Tokenizer chosen() {
    return chosen;
  }

  /** What sizes prompts: the chosen tokenizer, else the heuristic estimate. */
  TokenEstimator estimator() {
    return chosen == null ? TokenEstimator.heuristic() : TokenEstimator.exact(chosen);
  }

  /** A synthesizer sizing text with {@code estimator} when a tokenizer is chosen, else the standard one. */
  PromptSynthesizer synthesizer(TokenEstimator estimator) {
    return chosen == null ? PromptSynthesizer.standard() : new PromptSynthesizer(estimator);
  }

  /**
   * A simulator's prompt counter that counts as bench does with {@code tokenizer}: its ids, or,
   * when null, bench's heuristic estimate ({@link TokenEstimator#heuristic()}). So bench's planned
   * prompt tokens and the simulator's {@code usage.prompt_tokens} differ by its chat framing only.
   */
  static PromptCounter promptCounter(Tokenizer tokenizer) {
    if (tokenizer == null) {
      TokenEstimator heuristic = TokenEstimator.heuristic();
      return PromptCounter.counting(heuristic.toString(), heuristic::count);
    }
    return PromptCounter.tokenizer(tokenizer.name(), tokenizer::encode);
  }

  /** Counts output tokens with the chosen tokenizer when the server sends no usage; null without one. */
  OutputTokenCounter outputCounter() {
    Tokenizer t = chosen;
    return t == null ? null : OutputTokenCounter.named(t.name(), t::count);
  }

  /** One line for the terminal saying how tokens are counted. */
  String line() {
    if (chosen != null) {
      return "tokenizer: " + chosen.name() + " (from " + chosenFrom + "); prompt lengths are exact and output without usage is counted with it.";
    }
    String hint = model == null ? null : resolver().hintFor(model);
    return "tokenizer: none known for this model; prompt lengths are estimates (heuristic, about 10% off on English) and output without usage is counted by chunks. "
        + (hint == null ? "Pass --tokenizer for exact counts." : "For exact counts: " + hint + ".");
  }

  /** How tokens are counted, as summary.json's workload says it, into {@code m}. */
  void describe(Map<String, Object> m) {
    m.put("input_tokens_exact", chosen != null);
    m.put("tokenizer", chosen == null ? "heuristic" : chosen.name());
    m.put("tokenizer_source", chosen == null ? "estimate" : chosenFrom);
  }
}
