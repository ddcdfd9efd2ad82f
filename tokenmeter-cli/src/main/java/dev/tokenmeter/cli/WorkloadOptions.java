package dev.tokenmeter.cli;

import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.simulator.PromptCounter;
import dev.tokenmeter.tokenizer.Tokenizer;
import dev.tokenmeter.tokenizer.TokenizerResolver;
import dev.tokenmeter.workload.AgentSessions;
import dev.tokenmeter.workload.ConversationProfile;
import dev.tokenmeter.workload.FileSessions;
import dev.tokenmeter.workload.FileWorkload;
import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.PreparedRequests;
import dev.tokenmeter.workload.PromptFile;
import dev.tokenmeter.workload.PromptSynthesizer;
import dev.tokenmeter.workload.SyntheticCompletions;
import dev.tokenmeter.workload.SyntheticSessions;
import dev.tokenmeter.workload.SyntheticWorkload;
import dev.tokenmeter.workload.ThinkTime;
import dev.tokenmeter.workload.TokenEstimator;
import dev.tokenmeter.workload.WorkloadProfile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * What each request sends, and the tokenizer that sizes prompts and counts output when the server
 * sends no usage. Call {@link #validate} before contacting the server, then {@link #factory} once
 * the model is known.
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
      input = COMPLETION_INPUT;
      output = COMPLETION_OUTPUT;
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

  private WorkloadProfile profile;

  @Option(names = "--prompts", paramLabel = "FILE", description = "Prompts from a JSONL file ({\"prompt\":...} or {\"messages\":[...]}) or a ShareGPT JSON file, used in order. With --turns, its multi-turn conversations are replayed turn by turn: the recorded user turns in order, the model's own answers as the assistant turns (at most --turns turns each).")
  Path prompts;

  @Option(names = "--shared-prefix-tokens", paramLabel = "N", description = "Synthetic prompts start with the same N-token prefix (prefix-cache experiments; default: 0).")
  int sharedPrefixTokens;

  @Option(names = "--max-context", paramLabel = "N", description = "With --turns: a session ends before its next prompt would exceed N tokens (counted in the summary as ended by max context; default: 0, no limit).")
  int maxContext;

  @Option(names = "--burst", paramLabel = "SPEC", description = "--profile completion: requests per typing burst, a length spec: 4, uniform:2,6 (default: uniform:2,6).")
  String burst;

  @Option(names = "--keystroke-time", paramLabel = "SPEC", description = "--profile completion: the pause between a burst's requests, on the user's clock (a request still in flight when the next goes out is cancelled as superseded): a duration (150ms), uniform:100ms,300ms or exponential:150ms (default: 150ms).")
  String keystrokeTime;

  @Option(names = "--cancel-after", paramLabel = "DURATION", description = "--profile completion: also cancel a request not done this long after it was issued (an editor that gives up on a slow suggestion), counted apart from superseded ones and from errors (default: none).")
  String cancelAfter;

  static final String COMPLETION_INPUT = "uniform:1024,2048";
  static final String COMPLETION_OUTPUT = "uniform:16,64";
  static final String COMPLETION_BURST = "uniform:2,6";
  static final String COMPLETION_KEYSTROKE = "150ms";
  /** A closed-loop completion user's pause between bursts when --think-time is not given. */
  static final ThinkTime COMPLETION_PAUSE = new ThinkTime.Fixed(2_000_000_000L); // 2 s

  private LengthSpec burstSpec;
  private ThinkTime keystroke;
  private long cancelAfterNanos;
  /** Set by {@link #typing}: a closed-loop user's pause between bursts. */
  private ThinkTime pause = ThinkTime.NONE;

  /** Whether {@code --profile completion} was given. */
  boolean completion() {
    return trafficProfile() == Profile.COMPLETION;
  }

  /**
   * Makes this workload code completion's typing bursts ({@code --profile completion}), {@code
   * pause} between a closed-loop user's bursts. Call before {@link #validate}.
   */
  WorkloadOptions typing(ThinkTime pause) {
    this.pause = pause;
    return this;
  }

  /** Checks code completion's options: only with --profile completion, and what it cannot take. */
  private void validateCompletion() {
    if (!completion()) {
      for (String[] o : new String[][] {{"--burst", burst}, {"--keystroke-time", keystrokeTime}, {"--cancel-after", cancelAfter}}) {
        if (o[1] != null) {
          throw new UsageException(o[0] + " shapes code completion's typing bursts: add --profile completion (or leave out " + o[0] + ")");
        }
      }
      return;
    }
    if (turns != null) {
      throw new UsageException("--profile completion sends bursts of keystroke requests, not conversations: give --burst N instead of --turns");
    }
    if (prompts != null || workloadFile != null) {
      throw new UsageException("--profile completion synthesizes its fill-in-the-middle prompts: leave out "
          + (prompts != null ? "--prompts" : "--workload") + " (and size them with --input-tokens)");
    }
    if (maxContext > 0) {
      throw new UsageException("--max-context ends conversations: --profile completion has none (leave it out)");
    }
    burstSpec = parse("--burst", burst == null ? COMPLETION_BURST : burst, false);
    keystroke = LoadOptions.durationSpec("--keystroke-time", keystrokeTime == null ? COMPLETION_KEYSTROKE : keystrokeTime);
    if (cancelAfter != null) {
      cancelAfterNanos = Durations.parseNanos("--cancel-after", cancelAfter);
      if (cancelAfterNanos <= 0) {
        throw new UsageException("--cancel-after must be a positive duration such as 500ms, got '" + cancelAfter + "'");
      }
    }
  }

  @Option(names = "--profile", paramLabel = "PROFILE", description = "The traffic's shape: chat (requests; with --turns, conversations; the default), agent (agent loops: sessions of --turns tool steps; each request offers 4 tools in the API's own schema after a system prompt, the two about --shared-prefix-tokens long; the model's tool call (or text) is appended, then, after --tool-time, a tool result of --tool-result-tokens; APIs chat, anthropic, gemini, responses) or completion (code completion: fill-in-the-middle requests, prompt before and suffix after a cursor, sent as the completions API's prompt and suffix with --api completions, as one message otherwise; users type in bursts of --burst requests --keystroke-time apart, each request superseded, i.e. cancelled, when the next goes out; --think-time is the pause between bursts (default 2s), --rate starts bursts; prompts default to uniform:1024,2048 tokens, answers to uniform:16,64). See README, Conversations and agents; docs/METRICS.md.")
  String trafficProfile = "chat";

  @Option(names = "--tool-time", paramLabel = "SPEC", description = "With --profile agent: how long each tool runs, the pause between a tool call's answer and the next step: a duration (800ms), uniform:200ms,2s or exponential:1s (default: 0).")
  String toolTime;

  @Option(names = "--tool-result-tokens", paramLabel = "SPEC", description = "With --profile agent: tokens of each tool result appended to the context, same forms as --input-tokens (default: 512).")
  String toolResultTokens;

  /** Agent loops' defaults. */
  static final String DEFAULT_TOOL_TIME = "0";
  static final String DEFAULT_TOOL_RESULT_TOKENS = "512";

  private Profile parsedProfile;

  /** {@code --profile} parsed. */
  Profile trafficProfile() {
    if (parsedProfile == null) {
      parsedProfile = Profile.parse(trafficProfile == null ? "chat" : trafficProfile);
    }
    return parsedProfile;
  }

  /**
   * The profile's own checks, before the server is contacted: agent flags need {@code --profile
   * agent}, which needs sessions ({@code --turns}) of synthetic prompts.
   */
  private void validateProfile() {
    validateCompletion();
    if (trafficProfile() != Profile.AGENT) {
      if (toolTime != null || toolResultTokens != null) {
        throw new UsageException((toolTime != null ? "--tool-time" : "--tool-result-tokens")
            + " shapes agent loops: add --profile agent (or leave it out)");
      }
      return;
    }
    if (turns == null) {
      throw new UsageException("--profile agent runs sessions of tool steps (bench and simulate): add --turns N (e.g. --turns 8)");
    }
    if (prompts != null) {
      throw new UsageException("--profile agent synthesizes its tasks and tool results: leave out --prompts"
          + " (or use --profile chat to replay the file's conversations)");
    }
    agentToolTime = LoadOptions.durationSpec("--tool-time", toolTime == null ? DEFAULT_TOOL_TIME : toolTime);
    agentToolResult = parse("--tool-result-tokens", toolResultTokens == null ? DEFAULT_TOOL_RESULT_TOKENS : toolResultTokens, false);
  }

  /**
   * {@code --profile agent} needs an API with tools: a usage error naming {@code api} otherwise
   * (the completions API, TGI and Ollama's endpoints are not driven as agents).
   */
  void checkApi(String name) {
    if (trafficProfile() != Profile.AGENT) {
      return;
    }
    dev.tokenmeter.client.Api api;
    try {
      api = dev.tokenmeter.client.Api.parse(name);
    } catch (IllegalArgumentException e) {
      return; // --api's own check says what is wrong
    }
    switch (api) {
      case CHAT, ANTHROPIC, GEMINI, RESPONSES -> {}
      default -> throw new UsageException("--profile agent sends tool definitions and tool results, which --api "
          + api.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
          + " does not take here: use --api chat, anthropic, gemini or responses");
    }
  }

  private ThinkTime agentToolTime;
  private LengthSpec agentToolResult;

  /** Set by {@code bench --turns}: the turns per session and the pause between them; null without sessions. */
  private LengthSpec turns;
  private ThinkTime think = ThinkTime.NONE;

  @Option(names = "--tokenizer", paramLabel = "SPEC", description = "The target model's tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base, a model name (gpt-4o, gpt-4.1, o3, ...), path/to/tokenizer.json or a model folder, or hf:org/name[@revision] (Hugging Face cache, downloaded when missing; HF_TOKEN for gated models). Default: from --model when tokenmeter knows it, else prompt sizes are estimates. See docs/TOKENIZERS.md.")
  String tokenizer;

  @Option(names = "--tokenizer-map", paramLabel = "FILE", description = "Model names or globs to tokenizers, a JSON object ({\"my-llama-*\": \"hf:meta-llama/Llama-3.1-8B-Instruct\"}), over ~/.config/tokenmeter/tokenizers.json (or $TOKENMETER_TOKENIZER_MAP) and the built-in map.")
  Path tokenizerMap;

  private TokenizerResolver resolver;
  private String model;
  private LengthSpec out;
  private LengthSpec in;
  private PromptFile file;
  private Tokenizer chosen;
  private String chosenFrom = "none";

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
    if (tokenizer != null) {
      chosen = resolver().resolve(tokenizer);
      chosenFrom = "--tokenizer";
    }
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
    this.model = model;
    if (chosen == null && model != null) {
      resolver().forModel(model).ifPresent(t -> {
        chosen = t;
        chosenFrom = "model " + model;
      });
    }
    TokenEstimator estimator = estimator();
    if (completion()) {
      return completionFactory(estimator);
    }
    if (turns != null) {
      return sessionsFactory(estimator);
    }
    if (file != null) {
      PromptFile f = file;
      LengthSpec o = out;
      return plan -> new FileWorkload(f, o, plan.seed(), false, estimator);
    }
    PromptSynthesizer synth =
        chosen == null ? PromptSynthesizer.standard() : new PromptSynthesizer(estimator);
    LengthSpec i = in;
    LengthSpec o = out;
    int prepared = (int) Math.max(16, Math.min(MAX_PREPARED, MAX_PREPARED_CHARS / Math.max(1.0, i.mean() * 5)));
    return plan -> new PreparedRequests(new SyntheticWorkload(i, o, plan.seed(), synth, sharedPrefixTokens), prepared);
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

  private Function<StagePlan, RequestSource> completionFactory(TokenEstimator estimator) {
    PromptSynthesizer synth =
        chosen == null ? PromptSynthesizer.standard() : new PromptSynthesizer(estimator);
    LengthSpec i = in;
    LengthSpec o = out;
    LengthSpec b = burstSpec;
    ThinkTime k = keystroke;
    ThinkTime p = pause;
    long cancel = cancelAfterNanos;
    int pool = (int) Math.max(16, Math.min(MAX_PREPARED, MAX_PREPARED_CHARS / Math.max(1.0, i.mean() * 5)));
    return plan -> new SyntheticCompletions(
        new SyntheticCompletions.Settings(i, o, b, k, p, cancel, plan.seed(), synth, pool));
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
    PromptSynthesizer synth =
        chosen == null ? PromptSynthesizer.standard() : new PromptSynthesizer(estimator);
    LengthSpec i = in;
    LengthSpec o = out;
    LengthSpec t = turns;
    ThinkTime th = think;
    int context = maxContext;
    int system = sharedPrefixTokens;
    int pool = (int) Math.max(16, Math.min(MAX_PREPARED, MAX_PREPARED_CHARS / Math.max(1.0, i.mean() * 5)));
    if (trafficProfile() == Profile.AGENT) {
      ThinkTime tool = agentToolTime;
      LengthSpec result = agentToolResult;
      int agentPool = (int) Math.max(16, Math.min(MAX_PREPARED,
          MAX_PREPARED_CHARS / Math.max(1.0, (i.mean() + result.mean()) * 5)));
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
    if (profile == null && workloadFile != null) {
      profile = WorkloadProfile.read(workloadFile);
    }
    return profile;
  }

  /**
   * With --workload and no load given: the profile's mean arrival rate as {@code --rate}, said on
   * {@code err}. A profile without a rate (fewer than two requests) is a usage error.
   */
  void rateFromProfile(LoadOptions load, PrintStream err) {
    if (workloadFile == null || !load.concurrency.isEmpty() || !load.rate.isEmpty()) {
      return;
    }
    double rate = profile().meanRatePerSecond();
    if (Double.isNaN(rate)) {
      throw new UsageException("--workload " + workloadFile + " has no arrival rate (fewer than 2 requests): give --rate R or --concurrency N");
    }
    load.rate = new java.util.ArrayList<>(List.of(rate));
    err.println(String.format(java.util.Locale.ROOT, "tokenmeter: --rate %.4g/s (%s arrivals) from %s: its mean rate from the"
        + " first to the last request; the rates by hour of day are not replayed", rate, load.arrival, workloadFile));
  }

  /**
   * With --workload whose profile has conversations of more than one turn: their turns as
   * {@code --turns} and their think times as {@code --think-time}, each unless given (the think
   * times only when there are sessions: not under {@code --turns 1}), said on {@code err}; the
   * sessions' new messages then take the tokens each observed turn added ({@link #profileInput}).
   * So a benchmark built from production traffic holds its conversations.
   */
  void conversationsFromProfile(CostOptions cost, LoadOptions load, CommandSpec command, PrintStream err) {
    if (workloadFile == null) {
      return;
    }
    ConversationProfile c = profile().conversationsOrNull();
    if (c == null || c.turns().mean() <= 1.0) {
      return;
    }
    var given = command.commandLine().getParseResult();
    List<String> said = new java.util.ArrayList<>();
    if (!given.hasMatchedOption("--turns")) {
      cost.observedTurns = c.turns();
      said.add(String.format(java.util.Locale.ROOT, "--turns as observed (mean %.2f, max %d)", c.turns().mean(),
          c.turns().quantiles().getLast()));
    }
    // think times only where there are sessions (not under an explicit --turns 1)
    if (!given.hasMatchedOption("--think-time") && !c.thinkTimeMillis().isEmpty() && cost.sessionTurns() != null) {
      load.observedThinkTime = new ThinkTime.Empirical(c.thinkTimeMillis());
      said.add("--think-time as observed (" + load.observedThinkTime.describe() + ")");
    }
    if (!said.isEmpty()) {
      err.println("tokenmeter: " + String.join(" and ", said) + " from " + workloadFile + ": its "
          + c.conversations() + " conversations");
    }
  }

  /** The resolver, with the user's map files; loads them on first use. */
  private TokenizerResolver resolver() {
    if (resolver == null) {
      resolver = TokenizerResolver.system(tokenizerMap);
    }
    return resolver;
  }

  /** What sizes prompts: the chosen tokenizer (after {@link #factory}), else the heuristic estimate. */
  TokenEstimator estimator() {
    return chosen == null ? TokenEstimator.heuristic() : TokenEstimator.exact(chosen);
  }

  /** A synthesizer sizing text as this workload does (after {@link #factory}): the tokenizer's, else the estimate's. */
  PromptSynthesizer synthesizer() {
    return chosen == null ? PromptSynthesizer.standard() : new PromptSynthesizer(estimator());
  }

  /** The tokenizer chosen by {@link #factory}, or null for the estimate. */
  Tokenizer tokenizer() {
    return chosen;
  }

  /**
   * The embedded simulator's prompt counter, counting as this workload sizes prompts (after {@link
   * #factory}): see {@link #promptCounter(Tokenizer)}.
   */
  PromptCounter promptCounter() {
    return promptCounter(chosen);
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
  String tokenizerLine() {
    if (chosen != null) {
      return "tokenizer: " + chosen.name() + " (from " + chosenFrom + "); prompt lengths are exact and output without usage is counted with it.";
    }
    String hint = model == null ? null : resolver().hintFor(model);
    return "tokenizer: none known for this model; prompt lengths are estimates (heuristic, about 10% off on English) and output without usage is counted by chunks. "
        + (hint == null ? "Pass --tokenizer for exact counts." : "For exact counts: " + hint + ".");
  }

  private static LengthSpec parse(String option, String spec, boolean optional) {
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
    m.put("input_tokens_exact", chosen != null);
    m.put("tokenizer", chosen == null ? "heuristic" : chosen.name());
    m.put("tokenizer_source", chosen == null ? "estimate" : chosenFrom);
    m.put("output_tokens", outputTokens == null ? "none" : outputTokens);
    m.put("profile", trafficProfile().flagValue());
    if (completion()) {
      m.put("burst", burst == null ? COMPLETION_BURST : burst);
      m.put("keystroke_time", keystrokeTime == null ? COMPLETION_KEYSTROKE : keystrokeTime);
      m.put("cancel_after", cancelAfter == null ? "none" : cancelAfter);
      m.put("think_time", pause.describe());
    }
    if (turns != null) {
      m.put("turns", turns.describe());
      m.put("think_time", think.describe());
      m.put("max_context", maxContext);
    }
    if (trafficProfile() == Profile.AGENT) {
      m.put("tool_time", toolTime == null ? DEFAULT_TOOL_TIME : toolTime);
      m.put("tool_result_tokens", toolResultTokens == null ? DEFAULT_TOOL_RESULT_TOKENS : toolResultTokens);
      m.put("tools", AgentSessions.TOOLS.size());
    }
    if (workloadFile != null) {
      m.put("workload_profile", workloadFile.toString());
    }
    return m;
  }
}
