package dev.tokenmeter.cli;

import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.run.BenchRun;
import dev.tokenmeter.workload.SystemPrompted;
import dev.tokenmeter.workload.TokenEstimator;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns {@code bench --variant}s into the run's lanes: each variant's endpoint (pre-flight checked,
 * its model found when none is given), its results folder {@code DIR/NAME}, and its requests.
 *
 * <p>Every variant gets the same workload, built once: the prompts are sized with the first
 * variant's tokenizer (or {@code --tokenizer}) and every variant sends the same text for the same
 * request id, so the streams differ only in what the variant changes (its system prompt, put
 * first; its model, server, headers, body). Stateless.
 */
final class VariantLanes {
  private VariantLanes() {}

  /** The lanes of {@code variants}, in order, into subfolders of {@code outDir}; writes nothing. */
  static List<BenchRun.Lane> of(
      List<Variant> variants, TargetOptions target, WorkloadOptions workload, Path outDir, PrintStream err) {
    List<EndpointConfig> configs = new ArrayList<>();
    for (Variant v : variants) {
      configs.add(BenchCommand.resolve(v.over(target), err, "variant " + v.name() + ": "));
    }
    Function<StagePlan, RequestSource> shared = workload.factory(configs.get(0).model());
    err.println("tokenmeter: " + workload.tokenizerLine()
        + " Every variant sends the same prompts, sized with this tokenizer.");
    TokenEstimator estimator = workload.estimator();
    List<BenchRun.Lane> lanes = new ArrayList<>();
    for (int i = 0; i < variants.size(); i++) {
      Variant v = variants.get(i);
      String system = v.systemPrompt();
      Map<String, Object> described = new LinkedHashMap<>(workload.describe());
      described.put("variant", v.name());
      described.put("variants", variants.stream().map(Variant::name).toList());
      described.put("load_share", "1/" + variants.size());
      Function<StagePlan, RequestSource> requests = shared;
      if (system != null) {
        described.put("system_prompt_chars", system.length());
        described.put("system_prompt_tokens", estimator.count(system));
        requests = plan -> new SystemPrompted(shared.apply(plan), system, estimator);
      }
      lanes.add(new BenchRun.Lane(v.name(), configs.get(i), requests, outDir.resolve(v.name()), described));
    }
    return lanes;
  }
}
