package dev.tokenmeter.cli;

import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.simulator.PromptCounter;
import dev.tokenmeter.tokenizer.Tokenizer;
import dev.tokenmeter.workload.AgentSessions;
import dev.tokenmeter.workload.ConversationProfile;
import dev.tokenmeter.workload.FileSessions;
import dev.tokenmeter.workload.FileWorkload;
import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.PreparedRequests;
import dev.tokenmeter.workload.PromptFile;
import dev.tokenmeter.workload.PromptSynthesizer;
import dev.tokenmeter.workload.SyntheticSessions;
import dev.tokenmeter.workload.SyntheticWorkload;
import dev.tokenmeter.workload.ThinkTime;
import dev.tokenmeter.workload.TokenEstimator;
import dev.tokenmeter.workload.WorkloadProfile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * What each request sends, and the tokenizer that sizes prompts and counts output when the server
 * sends no usage. Call {@link #validate} before contacting the server, then {@link #factory} once
 * the model is known.
 *
 * <p>One option group on the command line ("Workload:"); its own flags are the lengths, the prompt
 * sources and the sessions' context, and three nested groups without a heading hold the rest, shown
 * after them in this order: {@link CompletionOptions} (code completion's typing bursts), {@link
 * ProfileOptions} ({@code --profile} and agent loops) and {@link TokenizerOptions}. What a {@code
 * --workload} profile sets besides lengths (rate, turns, think times) is {@link ObservedTraffic}'s.
 */
final class WorkloadOptions {
  /** Prompts built ahead per stage: at most this many... */
  private static final int MAX_PREPARED = 2000;
  /** ...and at most this many characters in all (~40 MB of heap). */
  private static final long MAX_PREPARED_CHARS = 20_000_000L;

  @Option(names = "--input-tokens", paramLabel = "SPEC", description = "Prompt length in tokens: 512, uniform:256,1024, normal:512,128, lognormal:512,256 (default: 512; demo: 256). Exact with a tokenizer (--tokenizer, or known from --model); estimated otherwise.")
  String inputTokens;

  @Option(names = "--output-tokens", paramLabel = "SPEC", description = "max_tokens per request, same forms as --input-tokens, or none (default: 256; demo: 128). Add --extra-body '{\"ignore_eos\":true}' to make servers generate exactly that many.")
  String outputTokens;

  /**
   * Fills the length specs the user did not give. picocli builds a fresh group object as soon as
   * any of its options is given, so defaults that differ per command are applied here, after
   * parsing, not in field initialisers. Specs still unset when the workload is used get bench's
   * defaults.
   */
  static final String BENCH_INPUT = "512";
  static final String BENCH_OUTPUT = "256";

  WorkloadOptions withDefaults(String input, String output) {
    if (completion()) {
      input = CompletionOptions.COMPLETION_INPUT;
      output = CompletionOptions.COMPLETION_OUTPUT;
    }
    if (workloadFile != null) {
      inputTokens = inputTokens == null ? FROM_PROFILE + workloadFile : inputTokens;
      outputTokens = outputTokens == null ? FROM_PROFILE + workloadFile : outputTokens;
    }
    if (inputTokens == null) {
      inputTokens = input;
    }
    if (outputTokens == null) {
      outputTokens = output;
    }
    return this;
  }

  /** The length spec that stands for "the --workload profile's lengths" (and says so in summary.json). */
  static final String FROM_PROFILE = "workload:";

  @Option(names = "--workload", paramLabel = "PROFILE.json", description = "A workload profile from 'tokenmeter proxy export-workload': input and output lengths drawn from its observed distributions (unless --input-tokens or --output-tokens is given), without --concurrency or --rate its mean arrival rate as --rate, and its conversations, when it has some, as sessions (--turns, --think-time; docs/PROXY.md, Exporting the workload).")
  Path workloadFile;

  /** The --workload profile and what it sets besides lengths; made on first use. */
  private ObservedTraffic observed;

  @Option(names = "--prompts", paramLabel = "FILE", description = "Prompts from a JSONL file ({\"prompt\":...} or {\"messages\":[...]}) or a ShareGPT JSON file, used in order. With --turns, its multi-turn conversations are replayed turn by turn: the recorded user turns in order, the model's own answers as the assistant turns (at most --turns turns each).")
  Path prompts;

  @Option(names = "--shared-prefix-tokens", paramLabel = "N", description = "Synthetic prompts start with the same N-token prefix (prefix-cache experiments; default: 0).")
  int sharedPrefixTokens;

  @Option(names = "--max-context", paramLabel = "N", description = "With --turns: a session ends before its next prompt would exceed N tokens (counted in the summary as ended by max context; default: 0, no limit).")
  int maxContext;

  @ArgGroup(validate = false)
  CompletionOptions bursts = new CompletionOptions();

  @ArgGroup(validate = false)
  ProfileOptions traffic = new ProfileOptions();

  @ArgGroup(validate = false)
  TokenizerOptions tokenizers = new TokenizerOptions();

  /** A closed-loop completion user's pause between bursts when --think-time is not given. */
  static final ThinkTime COMPLETION_PAUSE = CompletionOptions.COMPLETION_PAUSE;

  /** Whether {@code --profile completion} was given. */
  boolean completion() {
    return trafficProfile() == Profile.COMPLETION;
  }

  /**
   * Makes this workload code completion's typing bursts ({@code --profile completion}), {@code
   * pause} between a closed-loop user's bursts. Call before {@link #validate}.
   */
  WorkloadOptions typing(ThinkTime pause) {
    bursts.pause = pause;
    return this;
  }

  /** {@code --profile} parsed. */
  Profile trafficProfile() {
    return traffic.parsed();
  }

  /**
   * The profile's own checks, before the server is contacted: completion flags need {@code
   * --profile completion}, agent flags {@code --profile agent}, which needs sessions ({@code
   * --turns}) of synthetic prompts.
   */
  private void validateProfile() {
    bursts.check(completion(), turns != null, prompts, workloadFile, maxContext);
    traffic.checkAgent(turns != null, prompts);
  }

  /**
   * {@code --profile agent} needs an API with tools: a usage error naming {@code api} otherwise
   * (the completions API, TGI and Ollama's endpoints are not driven as agents).
   */
  void checkApi(String name) {
    traffic.checkApi(name);
  }

  /** Set by {@code bench --turns}: the turns per session and the pause between them; null without sessions. */
  private LengthSpec turns;
  private ThinkTime think = ThinkTime.NONE;

  private LengthSpec out;
  private LengthSpec in;
  private PromptFile file;

  /** Parses the specs, loads the prompt file and an explicit --tokenizer: every usage error now. */
  void validate() {
    validateProfile();
    withDefaults(BENCH_INPUT, BENCH_OUTPUT);
    out = outputTokens.startsWith(FROM_PROFILE) ? profile().output() : parse("--output-tokens", outputTokens, true);
    if (sharedPrefixTokens < 0) {
      throw new UsageException("--shared-prefix-tokens must not be negative");
    }
    if (maxContext < 0) {
      throw new UsageException("--max-context must be 0 (no limit) or more tokens, got " + maxContext);
    }
    if (maxContext > 0 && turns == null) {
      throw new UsageException("--max-context ends conversations: add --turns N (or leave out --max-context)");
    }
    if (maxContext > 0 && maxContext <= sharedPrefixTokens) {
      throw new UsageException("--max-context " + maxContext + " leaves no room after the " + sharedPrefixTokens
          + "-token system prompt (--shared-prefix-tokens): raise it");
    }
    if (prompts != null) {
      file = PromptFile.load(prompts);
      if (turns != null && FileSessions.multiTurn(file).isEmpty()) {
        throw new UsageException(prompts + " holds no conversation of 2 or more user turns (ShareGPT \"conversations\" or"
            + " OpenAI \"messages\") to replay with --turns: give a multi-turn dataset, or leave out --turns");
      }
    } else {
      in = inputTokens.startsWith(FROM_PROFILE) ? profileInput() : parse("--input-tokens", inputTokens, false);
    }
    tokenizers.resolveGiven();
  }

  /**
   * The per-stage workload factory for {@code model}: sized by --tokenizer, else by the model's
   * known tokenizer, else by the heuristic estimate. Validates first when not done yet.
   */
  Function<StagePlan, RequestSource> factory(String model) {
    withDefaults(BENCH_INPUT, BENCH_OUTPUT);
    if (out == null && in == null && file == null) {
      validate();
    }
    tokenizers.chooseFor(model);
    TokenEstimator estimator = estimator();
    if (completion()) {
      return bursts.factory(in, out, tokenizers.synthesizer(estimator), prepared(in.mean()));
    }
    if (turns != null) {
      return sessionsFactory(estimator);
    }
    if (file != null) {
      PromptFile f = file;
      LengthSpec o = out;
      return plan -> new FileWorkload(f, o, plan.seed(), false, estimator);
    }
    PromptSynthesizer synth = tokenizers.synthesizer(estimator);
    LengthSpec i = in;
    LengthSpec o = out;
    int prepared = prepared(i.mean());
    return plan -> new PreparedRequests(new SyntheticWorkload(i, o, plan.seed(), synth, sharedPrefixTokens), prepared);
  }

  /** Prompts to build ahead per stage for prompts of {@code meanTokens}: 16 to {@link #MAX_PREPARED}, within {@link #MAX_PREPARED_CHARS}. */
  private static int prepared(double meanTokens) {
    return (int) Math.max(16, Math.min(MAX_PREPARED, MAX_PREPARED_CHARS / Math.max(1.0, meanTokens * 5)));
  }

  /**
   * Makes this workload real conversations ({@code bench --turns}): {@code turns} per session,
   * {@code think} between them. Call before {@link #validate}.
   */
  WorkloadOptions sessions(LengthSpec turns, ThinkTime think) {
    this.turns = turns;
    this.think = think;
    return this;
  }

  private Function<StagePlan, RequestSource> sessionsFactory(TokenEstimator estimator) {
    if (file != null) {
      PromptFile f = file;
      LengthSpec o = out;
      LengthSpec t = turns;
      ThinkTime th = think;
      int context = maxContext;
      return plan -> new FileSessions(f, t, o, th, context, plan.seed(), estimator);
    }
    PromptSynthesizer synth = tokenizers.synthesizer(estimator);
    LengthSpec i = in;
    LengthSpec o = out;
    LengthSpec t = turns;
    ThinkTime th = think;
    int context = maxContext;
    int system = sharedPrefixTokens;
    int pool = prepared(i.mean());
    if (trafficProfile() == Profile.AGENT) {
      ThinkTime tool = traffic.agentToolTime;
      LengthSpec result = traffic.agentToolResult;
      int agentPool = prepared(i.mean() + result.mean());
      return plan -> new AgentSessions(new AgentSessions.Settings(
          t, i, o, tool, result, th, context, plan.seed(), synth, system, agentPool));
    }
    return plan -> new SyntheticSessions(
        new SyntheticSessions.Settings(t, i, o, th, context, plan.seed(), synth, system, pool));
  }

  /**
   * The per-stage workload for a simulation, which reads only token counts: synthetic workloads
   * draw the same lengths as {@link #factory} without building prompt text (the drawn lengths are
   * the counts; with --shared-prefix-tokens N every prompt is at least N + 1 tokens and the
   * simulation is told that the first N are shared); a prompt file is read as in bench, counted by
   * --tokenizer, else by {@code model}'s tokenizer as bench would, else the estimate.
   */
  Function<StagePlan, RequestSource> lengthsFactory(String model) {
    validate();
    if (file != null) {
      return factory(model);
    }
    LengthSpec i = in;
    LengthSpec o = out;
    int prefix = sharedPrefixTokens;
    return plan -> SyntheticWorkload.lengthsOnly(i, o, plan.seed(), prefix);
  }

  /** Whether every request asks for the same number of output tokens (after {@link #validate}). */
  boolean fixedOutputLengths() {
    return out instanceof LengthSpec.Fixed;
  }

  /**
   * The input lengths a --workload profile gives: its prompts' lengths, or in sessions, when the
   * profile observed conversations, the tokens each turn added (a new message's length: a later
   * prompt's whole length already holds the history the session resends).
   */
  private LengthSpec profileInput() {
    ConversationProfile c = profile().conversationsOrNull();
    if (turns != null && c != null && c.messageTokensOrNull() != null) {
      return c.messageTokensOrNull();
    }
    return profile().input();
  }

  /** The --workload profile, read on first use; null without --workload. */
  WorkloadProfile profile() {
    return workloadFile == null ? null : observed().profile();
  }

  private ObservedTraffic observed() {
    if (observed == null) {
      observed = new ObservedTraffic(workloadFile);
    }
    return observed;
  }

  /** With --workload and no load given: the profile's mean rate as {@code --rate} ({@link ObservedTraffic#rateInto}). */
  void rateFromProfile(LoadOptions load, PrintStream err) {
    if (workloadFile == null || !load.concurrency.isEmpty() || !load.rate.isEmpty()) {
      return;
    }
    observed().rateInto(load, err);
  }

  /**
   * With --workload: its conversations as {@code --turns} and {@code --think-time} unless given
   * ({@link ObservedTraffic#conversationsInto}); their new messages then take the tokens each
   * observed turn added ({@link #profileInput}).
   */
  void conversationsFromProfile(CostOptions cost, LoadOptions load, CommandSpec command, PrintStream err) {
    if (workloadFile != null) {
      observed().conversationsInto(cost, load, command, err);
    }
  }

  /** What sizes prompts: the chosen tokenizer (after {@link #factory}), else the heuristic estimate. */
  TokenEstimator estimator() {
    return tokenizers.estimator();
  }

  /** A synthesizer sizing text as this workload does (after {@link #factory}): the tokenizer's, else the estimate's. */
  PromptSynthesizer synthesizer() {
    return tokenizers.synthesizer(tokenizers.estimator());
  }

  /** The tokenizer chosen by {@link #factory}, or null for the estimate. */
  Tokenizer tokenizer() {
    return tokenizers.chosen();
  }

  /**
   * The embedded simulator's prompt counter, counting as this workload sizes prompts (after {@link
   * #factory}): see {@link #promptCounter(Tokenizer)}.
   */
  PromptCounter promptCounter() {
    return promptCounter(tokenizers.chosen());
  }

  /** A simulator's prompt counter that counts as bench does with {@code tokenizer}: {@link TokenizerOptions#promptCounter}. */
  static PromptCounter promptCounter(Tokenizer tokenizer) {
    return TokenizerOptions.promptCounter(tokenizer);
  }

  /** Counts output tokens with the chosen tokenizer when the server sends no usage; null without one. */
  OutputTokenCounter outputCounter() {
    return tokenizers.outputCounter();
  }

  /** One line for the terminal saying how tokens are counted. */
  String tokenizerLine() {
    return tokenizers.line();
  }

  /** {@code spec} parsed as a length spec, {@code option} naming it in the usage error; null for none when {@code optional}. */
  static LengthSpec parse(String option, String spec, boolean optional) {
    if (optional && (spec == null || spec.equalsIgnoreCase("none"))) {
      return null;
    }
    try {
      return LengthSpec.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new UsageException(option + ": " + e.getMessage());
    }
  }

  Map<String, Object> describe() {
    withDefaults(BENCH_INPUT, BENCH_OUTPUT);
    Map<String, Object> m = new LinkedHashMap<>();
    if (prompts != null) {
      m.put("prompts_file", prompts.toString());
    } else {
      m.put("input_tokens", inputTokens);
      m.put("shared_prefix_tokens", sharedPrefixTokens);
    }
    tokenizers.describe(m);
    m.put("output_tokens", outputTokens == null ? "none" : outputTokens);
    m.put("profile", trafficProfile().flagValue());
    if (completion()) {
      bursts.describe(m);
    }
    if (turns != null) {
      m.put("turns", turns.describe());
      m.put("think_time", think.describe());
      m.put("max_context", maxContext);
    }
    if (trafficProfile() == Profile.AGENT) {
      traffic.describeAgent(m);
    }
    if (workloadFile != null) {
      m.put("workload_profile", workloadFile.toString());
    }
    return m;
  }
}
