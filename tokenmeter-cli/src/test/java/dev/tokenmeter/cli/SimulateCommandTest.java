package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.JsonSchemaSubset;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tokenmeter simulate} end to end through Main.run: tables, summary.json, requests.jsonl. */
class SimulateCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void sweepWritesASimulatedResultsFolderThatMatchesTheSchema(@TempDir Path dir) throws Exception {
    Cli.Result r =
        Cli.run(
            "simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--concurrency", "1,32",
            "--input-tokens", "100", "--output-tokens", "16", "--duration", "20s", "--warmup", "2s",
            "--cooldown", "1s", "--seed", "5", "--out", dir.toString());

    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("Stage 1/2  c=1").contains("Stage 2/2  c=32")
        .contains("client: none: simulated in virtual time").doesNotContain("WARNING");
    assertThat(r.err()).containsPattern("requests over [0-9.]+ s of virtual time in [0-9.]+ s of wall time")
        .contains("engine: vllm (vLLM V1 (0.8+)), 1024 sequences, 8192 tokens per iteration;"
            + " calibration: MFU 0.725 of an achievable 0.803 of the peak, MBU 0.88, roofline k = 3, 2.000 ms per iteration + 0.0075 ms per sequence"
            + " (fitted to published measurements, docs/SIMULATOR.md Accuracy)");

    JsonNode summary = JSON.readTree(dir.resolve("summary.json").toFile());
    JsonNode schema = JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, summary)).isEmpty();
    assertThat(summary.at("/target/url").asText()).isEqualTo("simulate:llama-3.1-8b@1xh100-sxm");
    JsonNode sim = summary.at("/settings/simulation");
    assertThat(sim.get("note").asText()).contains("virtual time").contains("not a measurement");
    assertThat(sim.get("kv_cache_tokens").asLong()).isEqualTo(442_704); // RooflineTest
    assertThat(sim.get("simulated_s").asDouble()).isBetween(2 * 23.0, 2 * 23.0 + 1); // 2 x (2 + 20 + 1) s
    assertThat(summary.at("/settings/workload/ignore_eos").asBoolean()).isTrue();

    JsonNode engine = sim.get("engine");
    assertThat(engine.get("profile").asText()).isEqualTo("vllm");
    assertThat(engine.get("calibration").asText()).isEqualTo("fitted");
    assertThat(engine.get("fitted_on").asText()).contains("published-points.json");
    assertThat(engine.get("iteration_cv").asDouble()).isZero();
    assertThat(engine.get("arrival_jitter_ms").asDouble()).isZero();
    assertThat(r.err()).contains("variation: none (exact engine; --variation adds the estimated spread");
    // its error bars: every source's held-out errors, then those of the sources behind vLLM on CUDA
    assertThat(r.err()).contains("accuracy, held out by source (docs/SIMULATOR.md Accuracy): median"
        + " |error| TPOT/ITL 8.1% (p90 37.9%)")
        .contains("accuracy of the vllm profile on CUDA GPUs, each source held out: silybench")
        .contains("note: closed-loop users all start at once and fixed output lengths keep them in step");
    JsonNode accuracy = engine.get("accuracy");
    assertThat(accuracy.get(0).get("scope").asText()).isEqualTo("all");
    assertThat(accuracy.get(0).get("quantity").asText()).isEqualTo("tpot");
    assertThat(accuracy.get(0).get("median_abs_error_pct").asDouble()).isEqualTo(8.1);
    List<String> scopes = new ArrayList<>();
    accuracy.forEach(a -> scopes.add(a.get("scope").asText()));
    assertThat(scopes).containsOnly("all", "silybench", "rtx4090-vllm", "gpustack-vllm");

    // c=1: ITL is the decode iteration over ~100 cached tokens, 7.1264 ms (SimulationTest).
    JsonNode one = summary.at("/stages/0");
    assertThat(one.at("/metrics/itl_ms/mean").asDouble()).isCloseTo(7.126, within(0.01));
    assertThat(one.at("/client_health/bottleneck").asBoolean()).isFalse();
    JsonNode many = summary.at("/stages/1");
    assertThat(many.at("/metrics/decode_tps/p50").asDouble())
        .isLessThan(one.at("/metrics/decode_tps/p50").asDouble());
    assertThat(many.at("/throughput/output_tokens_per_s").asDouble())
        .isGreaterThan(10 * one.at("/throughput/output_tokens_per_s").asDouble());

    List<String> lines = Files.readAllLines(dir.resolve("requests.jsonl"));
    long measured = one.at("/requests/completed").asLong() + many.at("/requests/completed").asLong();
    assertThat(lines.size()).isGreaterThan((int) measured);
    JsonNode first = JSON.readTree(lines.get(0));
    assertThat(first.get("output_tokens").asInt()).isEqualTo(16);
    assertThat(first.get("usage_prompt_tokens").asInt()).isEqualTo(100);
    assertThat(first.get("client_prompt_tokens").asInt()).isEqualTo(100);
    assertThat(first.get("client_prompt_tokens_exact").asBoolean()).isTrue();
  }

  @Test
  void expertParallelDeploymentsAreRecordedAndRefusedInOneLine(@TempDir Path dir) throws Exception {
    Cli.Result r = Cli.run("simulate", "--model", "deepseek-r1", "--gpu", "h200", "--gpus", "8",
        "--engine", "sglang", "--dp-attention", "--expert-parallel", "8", "--concurrency", "16",
        "--input-tokens", "256", "--output-tokens", "32", "--duration", "5s", "--warmup", "1s",
        "--cooldown", "0s", "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).contains("deepseek-r1 on 8 x h200 (fp8 weights, bf16 KV cache, DP attention 8,"
        + " EP 8), KV cache 3680128 tokens"); // ParallelismTest: 28,751 blocks × 16 × 8
    JsonNode summary = JSON.readTree(dir.resolve("summary.json").toFile());
    JsonNode schema = JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, summary)).isEmpty();
    JsonNode sim = summary.at("/settings/simulation");
    assertThat(sim.get("dp_attention").asInt()).isEqualTo(8);
    assertThat(sim.get("expert_parallel").asInt()).isEqualTo(8);
    assertThat(sim.get("kv_cache_tokens").asLong()).isEqualTo(3_680_128L);

    Cli.Result bad = Cli.run("simulate", "--model", "llama-3.1-70b", "--gpu", "h200", "--gpus", "8",
        "--ep", "8", "--concurrency", "1", "--out", dir.resolve("bad").toString());
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err().strip()).isEqualTo(
        "tokenmeter: --expert-parallel needs a mixture-of-experts model; llama-3.1-70b is dense");
  }

  @Test
  void disaggregatedPoolsAreReportedRecordedAndRefusedInOneLine(@TempDir Path dir) throws Exception {
    Cli.Result r = Cli.run("simulate", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--prefill-gpus", "4",
        "--decode-gpus", "4", "--rate", "2", "--input-tokens", "4096", "--output-tokens", "64", "--duration", "10s",
        "--warmup", "2s", "--cooldown", "0s", "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).contains("disaggregated: prefill pool 4 x h100-sxm");
    assertThat(r.out()).contains("  pools: prefill 4 GPUs busy ");
    JsonNode summary = JSON.readTree(dir.resolve("summary.json").toFile());
    JsonNode schema = JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, summary)).isEmpty();
    JsonNode d = summary.at("/settings/simulation/disaggregation");
    assertThat(d.get("prefill_gpus").asInt()).isEqualTo(4);
    assertThat(d.get("decode_gpus").asInt()).isEqualTo(4);
    // both pools in one node of 8: NVLink 4, 450 GB/s a direction = 3,600 Gb/s
    assertThat(d.get("kv_transfer_gbps").asDouble()).isEqualTo(3600.0);
    // 80 layers × 8 KV heads × 128 × 2 (K and V) × 2 B / TP 4 = 81,920 B a token and GPU
    assertThat(d.get("kv_transfer_bytes_per_token").asDouble()).isEqualTo(81_920.0);
    JsonNode stage = d.at("/stages/0");
    // 4,096 × 81,920 B = 335,544,320 B / 450e9 B/s = 745,654 ns
    assertThat(stage.at("/handoff/transfer_mean_ms").asDouble()).isCloseTo(0.745654, within(1e-9));
    assertThat(stage.at("/handoff/requests").asLong()).isGreaterThan(10);
    assertThat(stage.at("/prefill/utilization").asDouble()).isBetween(0.05, 1.0);
    // decode-only steps: no 4,096-token prompt (about 250 ms on TP 4) ever lengthens one; the
    // longest gap is a landed request's first: the step in flight when its KV landed, then its own
    JsonNode itl = summary.at("/stages/0/metrics/itl_ms");
    assertThat(itl.get("max").asDouble()).isLessThan(2.5 * itl.get("p50").asDouble());

    Cli.Result half = Cli.run("simulate", "--model", "llama-3.1-70b", "--prefill-gpus", "4", "--concurrency", "1",
        "--out", dir.resolve("bad").toString());
    assertThat(half.exitCode()).isEqualTo(2);
    assertThat(half.err().strip()).isEqualTo(
        "tokenmeter: disaggregated prefill/decode needs both --prefill-gpus N and --decode-gpus M");
    Cli.Result both = Cli.run("simulate", "--model", "llama-3.1-70b", "--gpus", "8", "--prefill-gpus", "4",
        "--decode-gpus", "4", "--concurrency", "1", "--out", dir.resolve("bad").toString());
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err().strip()).startsWith("tokenmeter: --gpus is one engine's GPU count");
  }

  @Test
  void theSameSeedWritesTheSameMetrics(@TempDir Path dir) throws Exception {
    String[] args = {"simulate", "--rate", "20", "--input-tokens", "uniform:100,1000",
        "--output-tokens", "uniform:10,200", "--duration", "10s", "--warmup", "1s", "--cooldown", "1s",
        "--seed", "9", "--out"};
    JsonNode a = stages(dir.resolve("a"), args);
    JsonNode b = stages(dir.resolve("b"), args);
    assertThat(a.at("/0/requests/completed").asLong()).isGreaterThan(100);
    assertThat(b).isEqualTo(a);
  }

  private static JsonNode stages(Path out, String... args) throws Exception {
    String[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = out.toString();
    Cli.Result r = Cli.run(all);
    assertThat(r.exitCode()).as(r.both()).isZero();
    return JSON.readTree(out.resolve("summary.json").toFile()).get("stages");
  }

  @Test
  void efficiencyFlagsReplaceTheFittedDefaults(@TempDir Path dir) throws Exception {
    // The pre-fit factors: (15,009,849,344 + 101 × 131,072) B / (3.35 TB/s × 0.8) = 5,605,630 ns
    // + sampling 383 ns + the graph launch 20 µs + 0.5 ms, no per-sequence term: 6.126 ms for the
    // first decode step, + 48.9 ns a token.
    Cli.Result r = Cli.run("simulate", "--concurrency", "1", "--input-tokens", "100",
        "--output-tokens", "16", "--duration", "5s", "--warmup", "0s", "--cooldown", "0s",
        "--mfu", "0.5", "--mbu", "0.8", "--iteration-overhead", "0.5ms",
        "--per-sequence-overhead", "0", "--arrival-jitter", "0", "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode summary = JSON.readTree(dir.resolve("summary.json").toFile());
    JsonNode sim = summary.at("/settings/simulation");
    assertThat(sim.get("mfu").asDouble()).isEqualTo(0.5);
    assertThat(sim.get("achievable_matmul_share").asDouble()).isEqualTo(0.803); // the H100, BF16
    assertThat(sim.get("mbu").asDouble()).isEqualTo(0.8);
    assertThat(sim.get("iteration_overhead_ms").asDouble()).isEqualTo(0.5);
    assertThat(sim.get("per_sequence_overhead_ms").asDouble()).isZero();
    assertThat(sim.at("/engine/calibration").asText()).isEqualTo("flags");
    assertThat(sim.at("/engine/iteration_cv").asDouble()).isZero();
    assertThat(sim.at("/engine/arrival_jitter_ms").asDouble()).isZero();
    assertThat(summary.at("/stages/0/metrics/itl_ms/mean").asDouble()).isCloseTo(6.13, within(0.01));
    assertThat(r.err()).contains("calibration: MFU 0.500 of an achievable 0.803 of the peak, MBU 0.80, roofline k = 3, 0.500 ms per iteration + 0.0000 ms"
        + " per sequence (set by flags)");
    assertThat(r.err()).contains("measured at the fitted calibration, which flags override here")
        .doesNotContain("note: closed-loop users"); // one user: no cohort

    Cli.Result perSequence = Cli.run("simulate", "--concurrency", "1", "--requests", "1",
        "--per-sequence-overhead", "80us", "--out", dir.resolve("b").toString());
    assertThat(perSequence.exitCode()).as(perSequence.both()).isZero();
    assertThat(JSON.readTree(dir.resolve("b/summary.json").toFile())
            .at("/settings/simulation/per_sequence_overhead_ms").asDouble())
        .isEqualTo(0.08);
  }

  @Test
  void usageErrorsExitWith2() {
    usageError("--output-tokens", "--concurrency", "1", "--output-tokens", "none");
    usageError("does not fit on 1 x h100-sxm", "--model", "llama-3.1-70b", "--concurrency", "1");
    usageError("--shared-prefix-tokens", "--concurrency", "1", "--shared-prefix-tokens", "-1");
    usageError("");
    usageError("--mfu must be in (0, 1], got 1.5", "--concurrency", "1", "--mfu", "1.5");
    usageError("--per-sequence-overhead '-1ms' is not a duration", "--concurrency", "1",
        "--per-sequence-overhead", "-1ms");
    usageError("--iteration-cv must be in [0, 1), got 1.5", "--concurrency", "1", "--iteration-cv", "1.5");
    usageError("--arrival-jitter 'soon' is not a duration", "--concurrency", "1", "--arrival-jitter", "soon");
  }

  /** {@code simulate ARGS} exits 2 with {@code message} on stderr. */
  private static void usageError(String message, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "simulate";
    System.arraycopy(args, 0, all, 1, args.length);
    Cli.Result r = Cli.run(all);
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err()).contains(message);
  }

  /** {@code args}, which end with {@code --out}, with {@code flag} inserted before it. */
  private static String[] with(String[] args, String flag) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length - 1] = flag;
    all[args.length] = "--out";
    return all;
  }

  @Test
  void variationSpreadsTheTailsOfAClosedLoop(@TempDir Path dir) throws Exception {
    String[] args = {"simulate", "--concurrency", "16", "--input-tokens", "1000", "--output-tokens",
        "64", "--duration", "20s", "--warmup", "2s", "--cooldown", "0s", "--seed", "4", "--out"};
    JsonNode exact = summary(dir.resolve("exact"), args);
    JsonNode varied = summary(dir.resolve("varied"), with(args, "--variation"));
    assertThat(varied.at("/settings/simulation/engine/iteration_cv").asDouble()).isEqualTo(0.05);
    assertThat(varied.at("/settings/simulation/engine/arrival_jitter_ms").asDouble()).isEqualTo(2.0);
    JsonNode v = varied.at("/stages/0/metrics");
    JsonNode e = exact.at("/stages/0/metrics");
    // Exact: 16 identical users start at once and stay in step, every prompt prefilled in the same
    // two iterations, so every TTFT is the same (251 ms) and p99 = p50.
    assertThat(e.at("/ttft_ms/p99").asDouble()).isCloseTo(e.at("/ttft_ms/p50").asDouble(), within(1.0));
    assertThat(e.at("/tpot_ms/p99").asDouble()).isCloseTo(e.at("/tpot_ms/p50").asDouble(), within(0.1));
    // Varied (seed 4: TTFT p50 306 ms, p99 499 ms; TPOT p50 11.4 ms, p99 15.6 ms): the arrival
    // jitter splits the cohort where it straddles an iteration's start, so prompts prefill in
    // different iterations and decodes meet different numbers of prefills.
    assertThat(v.at("/ttft_ms/p99").asDouble()).isGreaterThan(1.3 * v.at("/ttft_ms/p50").asDouble());
    assertThat(v.at("/tpot_ms/p99").asDouble()).isGreaterThan(1.2 * v.at("/tpot_ms/p50").asDouble());
    // The factors have mean 1 and the jitter is 1 ms on average: throughput stays within 5%.
    assertThat(varied.at("/stages/0/throughput/output_tokens_per_s").asDouble())
        .isCloseTo(exact.at("/stages/0/throughput/output_tokens_per_s").asDouble(), org.assertj.core.data.Percentage.withPercentage(5));
  }

  @Test
  void aSharedPrefixIsServedFromThePrefixCache(@TempDir Path dir) throws Exception {
    String[] args = {"simulate", "--concurrency", "1", "--input-tokens", "1100", "--output-tokens", "4",
        "--shared-prefix-tokens", "1024", "--duration", "5s", "--warmup", "0s", "--cooldown", "0s",
        "--seed", "3", "--out"};
    JsonNode on = summary(dir.resolve("on"), args);
    JsonNode off = summary(dir.resolve("off"), with(args, "--no-prefix-caching"));
    // Fitted defaults (MFU 0.725 of the H100's achievable share 0.803, MBU 0.88, vLLM's 2.0 ms +
    // 7.5 µs per scheduled sequence): a cold 1,100-token prefill is compute-bound,
    // c = (2 × 7,504,924,672 × 1,100 + 524,288 × 1,100 × 1,101 / 2) / 576.004e12 = 29.215625 ms,
    // with m = (15,009,849,344 + 1,100 × 131,072) / 2.948e12 = 5.140444 ms of weights and KV the
    // smooth roofline gives c × (1 + (m/c)³)^(1/3) = 29.268575 ms, + 348 ns sampling + 32 × 40 µs
    // eager launches (1,100 tokens > 512) + 2.0075 ms = 32.556 ms;
    // behind 64 cached blocks (1,024 tokens) 76 are prefilled, memory-bound: m as above, c =
    // 2.053952 ms, m × (1 + (c/m)³)^(1/3) = 5.247506 ms, + 348 ns + one graph launch (20 µs) +
    // 2.0075 ms = 7.275354 ms (histograms keep 3 significant digits)
    assertThat(off.at("/stages/0/metrics/ttft_ms/p50").asDouble()).isCloseTo(32.556, within(0.04));
    assertThat(on.at("/stages/0/metrics/ttft_ms/p50").asDouble()).isCloseTo(7.275, within(0.015));
    assertThat(on.at("/stages/0/metrics/ttft_ms/max").asDouble()).isCloseTo(32.556, within(0.05));
    // every request but the first hits 1,024 of its 1,100 tokens
    long n = Files.readAllLines(dir.resolve("on/requests.jsonl")).size();
    assertThat(n).isGreaterThan(50);
    assertThat(on.at("/settings/simulation/prefix_cache_hit_rate").asDouble())
        .isCloseTo((n - 1) * 1024.0 / (n * 1100.0), within(1e-3));
    assertThat(on.at("/settings/simulation/prefix_caching").asBoolean()).isTrue();
    assertThat(off.at("/settings/simulation/prefix_caching").asBoolean()).isFalse();
    assertThat(off.at("/settings/simulation/prefix_cache_hit_rate").asDouble()).isZero();
    assertThat(on.at("/settings/workload/shared_prefix_tokens").asInt()).isEqualTo(1024);
  }

  private static JsonNode summary(Path out, String... args) throws Exception {
    String[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = out.toString();
    Cli.Result r = Cli.run(all);
    assertThat(r.exitCode()).as(r.both()).isZero();
    return JSON.readTree(out.resolve("summary.json").toFile());
  }

  @Test
  void anInterruptWritesTheStagesDoneAndThePartialOneAndExits130(@TempDir Path dir) throws Exception {
    // Stage 1 (c=1, 600 s virtual, ~1,400 requests) takes well under a second; stage 2 (c=256,
    // ~150,000 requests) a few seconds: it is interrupted as soon as it has started.
    SimulateCommand cmd = new SimulateCommand();
    picocli.CommandLine cl = new picocli.CommandLine(cmd);
    int[] exit = {-1};
    java.io.PrintStream oldOut = System.out;
    java.io.PrintStream oldErr = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    Thread run;
    try (java.io.PrintStream sink = new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8)) {
      System.setOut(sink);
      System.setErr(sink);
      run = new Thread(() -> exit[0] = cl.execute("--concurrency", "1,256", "--duration", "600s",
          "--warmup", "0s", "--cooldown", "0s", "--output-tokens", "64", "--out", dir.toString()));
      run.start();
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (cmd.stagesStarted() < 2 && System.nanoTime() < deadline && run.isAlive()) {
        Thread.onSpinWait(); // waiting for the other thread, not for time to pass
      }
      assertThat(cmd.stagesStarted()).as(captured.toString()).isEqualTo(2);
      cmd.onSignal(); // what the Ctrl-C hook runs: returns once summary.json is written
      run.join(30_000);
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    assertThat(run.isAlive()).isFalse();
    assertThat(exit[0]).as(captured.toString()).isEqualTo(Main.EXIT_INTERRUPTED);
    assertThat(captured.toString()).contains("partial: interrupted").doesNotContain("Exception");
    JsonNode summary = JSON.readTree(dir.resolve("summary.json").toFile());
    assertThat(summary.at("/partial").asBoolean()).isTrue();
    assertThat(summary.at("/partial_reason").asText()).isEqualTo("interrupted");
    assertThat(summary.get("stages").size()).isEqualTo(2);
    assertThat(summary.at("/stages/0/window/complete").asBoolean()).isTrue();
    assertThat(summary.at("/stages/1/window/complete").asBoolean()).isFalse();
    assertThat(summary.at("/settings/simulation/simulated_s").asDouble()).isLessThan(600 + 600);
    JsonNode schema = JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, summary)).isEmpty();
  }
}
