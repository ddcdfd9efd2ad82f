package dev.tokenmeter.cli;

import dev.tokenmeter.workload.AgentSessions;
import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.ThinkTime;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The traffic's shape: the {@code --profile} flag of the workload group (nested in {@link
 * WorkloadOptions}, shown in its section) and agent loops' {@code --tool-time} and {@code
 * --tool-result-tokens}, their checks, and the API check an agent needs. Single-threaded, filled by
 * picocli, then checked once by {@link #checkAgent}.
 */
final class ProfileOptions {
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
  /** Set by {@link #checkAgent} under {@code --profile agent}. */
  ThinkTime agentToolTime;
  LengthSpec agentToolResult;

  /** {@code --profile} parsed. */
  Profile parsed() {
    if (parsedProfile == null) {
      parsedProfile = Profile.parse(trafficProfile == null ? "chat" : trafficProfile);
    }
    return parsedProfile;
  }

  /**
   * The agent checks, before the server is contacted: agent flags need {@code --profile agent},
   * which needs sessions ({@code --turns}, {@code sessions}) of synthetic prompts (no {@code
   * prompts} file); parses them when it is on.
   */
  void checkAgent(boolean sessions, Path prompts) {
    if (parsed() != Profile.AGENT) {
      if (toolTime != null || toolResultTokens != null) {
        throw new UsageException((toolTime != null ? "--tool-time" : "--tool-result-tokens")
            + " shapes agent loops: add --profile agent (or leave it out)");
      }
      return;
    }
    if (!sessions) {
      throw new UsageException("--profile agent runs sessions of tool steps (bench and simulate): add --turns N (e.g. --turns 8)");
    }
    if (prompts != null) {
      throw new UsageException("--profile agent synthesizes its tasks and tool results: leave out --prompts"
          + " (or use --profile chat to replay the file's conversations)");
    }
    agentToolTime = LoadOptions.durationSpec("--tool-time", toolTime == null ? DEFAULT_TOOL_TIME : toolTime);
    agentToolResult = WorkloadOptions.parse("--tool-result-tokens", toolResultTokens == null ? DEFAULT_TOOL_RESULT_TOKENS : toolResultTokens, false);
  }

  /**
   * {@code --profile agent} needs an API with tools: a usage error naming {@code api} otherwise
   * (the completions API, TGI and Ollama's endpoints are not driven as agents).
   */
  void checkApi(String name) {
    if (parsed() != Profile.AGENT) {
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

  /** The agent loops as summary.json's workload describes them, into {@code m} (under {@code --profile agent}). */
  void describeAgent(Map<String, Object> m) {
    m.put("tool_time", toolTime == null ? DEFAULT_TOOL_TIME : toolTime);
    m.put("tool_result_tokens", toolResultTokens == null ? DEFAULT_TOOL_RESULT_TOKENS : toolResultTokens);
    m.put("tools", AgentSessions.TOOLS.size());
  }
}
