package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.loadgen.SessionSource;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.SessionTurn;
import dev.tokenmeter.core.request.ToolCall;
import dev.tokenmeter.core.request.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Agent loops ({@code bench --profile agent}): sessions whose turns are tool steps. Turn 1 sends
 * the system prompt, the {@link #TOOLS tool definitions} (together about {@code
 * --shared-prefix-tokens} tokens, the prefix every session shares) and a task message of {@code
 * --input-tokens}; each answer is appended as received: its tool calls where the server made
 * some (each call's id, name and arguments; several when it made parallel calls), else its text.
 * The calls of one answer run at once: after the longest of their tool times ({@code --tool-time},
 * drawn per call) the next turn appends one result per call, {@code --tool-result-tokens} long
 * each: a {@code tool} message answering that call's id, or, after a text answer (no call to
 * answer), a user message carrying one result. A session ends after {@code --turns} steps or before a prompt would exceed {@code
 * --max-context}.
 *
 * <pre>{@code
 * var s = new AgentSessions(new Settings(new LengthSpec.Fixed(8), input, output, toolTime,
 *     toolResult, ThinkTime.NONE, 0, 42, PromptSynthesizer.standard(), 2000, 256));
 * RequestSpec first = s.open(0).next(0);
 * }</pre>
 *
 * <p>Thread-safe source; each {@link Conversation} is confined to the engine's loop.
 */
/* design notes
 *
 * The same rules as SyntheticSessions (cheap on the loop, pools built up front, a running count):
 * prompt(k+1) = prompt(k) + answer(k) + result(k), where answer(k) is the server's completion
 * tokens less reasoning (a tool call's arguments are output tokens: every client decoder reads
 * them as TOOL_CALL text, and the servers count them in usage) or, without usage, the estimate of
 * the answer's text and every call's arguments. Every tool call of an answer is kept and answered,
 * in the order the calls came (each API wants a result for each call before the next turn: OpenAI
 * a tool message per tool_call_id, Anthropic a tool_result block per tool_use in one user message,
 * Gemini a functionResponse part per functionCall, Responses a function_call_output per call_id);
 * the tools run concurrently, as agents run parallel calls, so the step's wait is the longest of
 * their drawn times. Arguments that are not a JSON object (a call cut
 * at max_tokens) are appended as {} so that Anthropic's input and Gemini's args, which must be
 * objects, stay valid. Gemini may send a call without id: the session makes one
 * ("tm_<session>_<turn>", "_<i>" added for call i > 0 of the answer) and sends it to no server (Gemini's encoder leaves a made id out).
 */
public final class AgentSessions implements SessionSource {
  static final long SESSION_STREAM = 18;
  static final long TASK_STREAM = 19;
  static final long RESULT_STREAM = 20;

  /** The tools every request offers: what a coding agent typically has. */
  public static final List<ToolSpec> TOOLS = List.of(
      new ToolSpec("read_file", "Read a file of the repository and return its contents.",
          "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"Path relative to the"
              + " repository root\"}},\"required\":[\"path\"]}"),
      new ToolSpec("search_code", "Search the repository for a regular expression; returns matching lines.",
          "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"},\"max_results\":{\"type\":\"integer\","
              + "\"minimum\":1}},\"required\":[\"pattern\"]}"),
      new ToolSpec("run_command", "Run a shell command in the repository and return its output.",
          "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"},\"timeout_seconds\":{\"type\":"
              + "\"integer\",\"minimum\":1}},\"required\":[\"command\"]}"),
      new ToolSpec("edit_file", "Replace a string in a file with another.",
          "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"old\":{\"type\":\"string\"},"
              + "\"new\":{\"type\":\"string\"}},\"required\":[\"path\",\"old\",\"new\"]}"));

  /** A result message's text when the tool's answer is drawn as 0 tokens. */
  private static final String EMPTY_RESULT = "(no output)";

  /**
   * What the agent sessions are made of.
   *
   * @param turns tool steps (requests) per session
   * @param input tokens of each session's task message
   * @param output {@code max_tokens} per step, null to send none
   * @param toolTime how long each tool runs, the pause before the next step
   * @param toolResult tokens of each tool result
   * @param think a further pause between steps (the user's, usually none)
   * @param maxContext a session ends before a prompt would exceed this many tokens; 0 for no limit
   * @param seed seeds every draw
   * @param synthesizer builds and sizes the messages
   * @param sharedPrefixTokens tokens of the system prompt and tool definitions together (the system
   *     prompt is at least 1 token more than the definitions need when this is smaller)
   * @param poolSize task messages and tool results built up front, each
   */
  public record Settings(
      LengthSpec turns,
      LengthSpec input,
      LengthSpec output,
      ThinkTime toolTime,
      LengthSpec toolResult,
      ThinkTime think,
      int maxContext,
      long seed,
      PromptSynthesizer synthesizer,
      int sharedPrefixTokens,
      int poolSize) {
    public Settings {
      Objects.requireNonNull(turns, "turns");
      Objects.requireNonNull(input, "input");
      Objects.requireNonNull(toolTime, "toolTime");
      Objects.requireNonNull(toolResult, "toolResult");
      Objects.requireNonNull(think, "think");
      Objects.requireNonNull(synthesizer, "synthesizer");
      if (maxContext < 0 || sharedPrefixTokens < 0 || poolSize < 1) {
        throw new IllegalArgumentException("maxContext and sharedPrefixTokens must be >= 0, poolSize >= 1");
      }
    }
  }

  private final Settings s;
  private final Message system;
  /** The system prompt's and the tool definitions' tokens: every session's first count. */
  private final int prefixTokens;
  private final String[] tasks;
  private final int[] taskTokens;
  private final String[] results;
  private final int[] resultTokens;

  /** Builds the pools now, in parallel. */
  public AgentSessions(Settings settings) {
    this.s = settings;
    TokenEstimator estimator = settings.synthesizer().estimator();
    int toolTokens = toolTokens(estimator);
    int systemTokens = Math.max(1, settings.sharedPrefixTokens() - toolTokens);
    PromptSynthesizer.Synthesized p = settings.synthesizer()
        .text(systemTokens, Draws.forItem(settings.seed(), SyntheticWorkload.PREFIX_STREAM, 0));
    String lead = "You are a coding agent. Use the tools to complete the task.\n\n";
    system = new Message("system", lead + p.text());
    prefixTokens = toolTokens + p.tokens() + estimator.count(lead);
    tasks = new String[settings.poolSize()];
    taskTokens = new int[settings.poolSize()];
    results = new String[settings.poolSize()];
    resultTokens = new int[settings.poolSize()];
    IntStream.range(0, tasks.length).parallel().forEach(i -> {
      SplittableRandom r = Draws.forItem(settings.seed(), TASK_STREAM, i);
      PromptSynthesizer.Synthesized m = settings.synthesizer().text(settings.input().sample(r), r);
      tasks[i] = m.text();
      taskTokens[i] = m.tokens();
      SplittableRandom q = Draws.forItem(settings.seed(), RESULT_STREAM, i);
      int n = settings.toolResult().sample(q);
      PromptSynthesizer.Synthesized t = n > 0 ? settings.synthesizer().text(n, q) : null;
      results[i] = t == null ? EMPTY_RESULT : t.text();
      resultTokens[i] = t == null ? estimator.count(EMPTY_RESULT) : t.tokens();
    });
  }

  /** The tool definitions' tokens by {@code estimator}: their names, descriptions and schemas. */
  static int toolTokens(TokenEstimator estimator) {
    int n = 0;
    for (ToolSpec t : TOOLS) {
      n += estimator.count(t.name()) + estimator.count(t.description()) + estimator.count(t.parametersJson());
    }
    return n;
  }

  /** The prompt tokens every session starts with: system prompt and tool definitions. */
  public int prefixTokens() {
    return prefixTokens;
  }

  @Override
  public Conversation open(long session) {
    return new Agent(session, Draws.forItem(s.seed(), SESSION_STREAM, session));
  }

  /** One line for reports. */
  public String describe() {
    return "agent sessions of " + s.turns().describe() + " tool steps, " + TOOLS.size() + " tools, tool time "
        + s.toolTime().describe() + ", tool results " + s.toolResult().describe() + " tokens"
        + (s.maxContext() > 0 ? ", context at most " + s.maxContext() + " tokens" : "");
  }

  private final class Agent implements Conversation {
    private static final TokenEstimator ANSWER_ESTIMATE = TokenEstimator.heuristic();
    private final long session;
    private final SplittableRandom random;
    private final int planned;
    private final List<Message> history = new ArrayList<>();
    private int turn;
    private int promptTokens;
    /** The messages the next turn appends (the task, or a result per call), and their tokens. */
    private final List<Message> pending = new ArrayList<>(1);
    private int pendingTokens;
    /** Tool calls of the last answer: how many tool times the next pause is the longest of. */
    private int lastCalls;
    private End end;

    Agent(long session, SplittableRandom random) {
      this.session = session;
      this.random = random;
      this.planned = s.turns().sample(random);
      history.add(system);
      promptTokens = prefixTokens;
    }

    @Override
    public RequestSpec next(long id) {
      if (end != null) {
        throw new IllegalStateException("session " + session + " has ended");
      }
      if (turn == 0) {
        int i = random.nextInt(tasks.length);
        // Led by the session's number: sessions share the system prompt and tools only.
        String lead = "Task " + session + ".";
        int tokens = taskTokens[i] + s.synthesizer().estimator().count(lead);
        if (s.maxContext() > 0 && (long) promptTokens + tokens > s.maxContext()) {
          end = End.MAX_CONTEXT;
          return null;
        }
        pending.add(new Message("user", lead + " " + tasks[i]));
        pendingTokens = tokens;
      }
      history.addAll(pending);
      promptTokens += pendingTokens;
      pending.clear();
      turn++;
      OptionalInt max = s.output() == null ? OptionalInt.empty() : OptionalInt.of(s.output().sample(random));
      return new RequestSpec(id, new Prompt.Chat(history, TOOLS), promptTokens, false, max,
          new SessionTurn(session, turn));
    }

    @Override
    public boolean answered(RequestTimeline answer) {
      String text = answer.content().toString();
      List<ToolCall> received = answer.toolCalls();
      List<ToolCall> calls = new ArrayList<>(received.size());
      int argumentTokens = 0;
      for (int c = 0; c < received.size(); c++) {
        ToolCall call = kept(received.get(c), c);
        calls.add(call);
        argumentTokens += ANSWER_ESTIMATE.count(call.arguments());
      }
      history.add(new Message("assistant", text, calls));
      lastCalls = calls.size();
      int completion = answer.usageCompletionTokens();
      int answerTokens = completion >= 0
          ? Math.max(0, completion - Math.max(0, answer.usageReasoningTokens()))
          : ANSWER_ESTIMATE.count(text) + argumentTokens;
      promptTokens += answerTokens;
      if (turn >= planned) {
        end = End.TURNS;
        return false;
      }
      pendingTokens = 0;
      if (calls.isEmpty()) {
        int i = random.nextInt(results.length);
        pending.add(new Message("user", results[i]));
        pendingTokens = resultTokens[i];
      }
      for (ToolCall call : calls) {
        int i = random.nextInt(results.length);
        pending.add(new Message("tool", results[i], new ToolCall(call.id(), call.name(), null)));
        pendingTokens += resultTokens[i];
      }
      long sent = Math.max(promptTokens - answerTokens, answer.usagePromptTokens());
      if (s.maxContext() > 0 && sent + answerTokens + pendingTokens > s.maxContext()) {
        end = End.MAX_CONTEXT;
        return false;
      }
      return true;
    }

    /**
     * Call {@code index} of the answer as the history keeps it: an id (made when the server sent
     * none), object arguments.
     */
    private ToolCall kept(ToolCall c, int index) {
      String id = c.id().isEmpty() ? "tm_" + session + "_" + turn + (index == 0 ? "" : "_" + index) : c.id();
      String name = c.name().isEmpty() ? TOOLS.get(0).name() : c.name();
      String a = c.arguments() == null ? "" : c.arguments().strip();
      return new ToolCall(id, name, a.startsWith("{") && a.endsWith("}") ? a : "{}");
    }

    @Override
    public long thinkNanos() {
      // the answer's calls run at once: the step waits for the slowest (one draw after a text answer)
      long tools = s.toolTime().sampleNanos(random);
      for (int c = 1; c < lastCalls; c++) {
        tools = Math.max(tools, s.toolTime().sampleNanos(random));
      }
      return tools + s.think().sampleNanos(random);
    }

    @Override
    public End end() {
      return end;
    }
  }
}
